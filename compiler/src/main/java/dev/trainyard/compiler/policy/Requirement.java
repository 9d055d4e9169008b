package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.SourceLocation;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One PEP 508 requirement that limits a package's version, as a requirements file, pyproject.toml
 * or a {@code pip install} argument writes it: {@code torch<2.10}, {@code torch[cuda] (>=2.1, <3)},
 * {@code transformers == 4.1.*}.
 *
 * <p>What is not read (empty from {@link #parse}): direct references ({@code name @ url}), paths
 * and URLs, requirements with an environment marker ({@code ; python_version < "3.11"}: whether
 * they apply depends on the node), and specifiers that are no PEP 440 set. pip options after the
 * requirement on the same line ({@code --hash=...}) are cut off first.
 *
 * @param name the package name as written
 * @param specifiers its version specifier set
 * @param text the requirement as written, without options and comments
 * @param at where it starts (its name) in the file that holds it
 */
record Requirement(String name, Pep440Specifiers specifiers, String text, SourceLocation at) {
  private static final Pattern FORM =
      Pattern.compile(
          "([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\\s*(?:\\[[^\\]]*\\])?\\s*(\\(([^)]*)\\)|[^(@;]*)");

  private static final Pattern OPTIONS = Pattern.compile("\\s+--?[A-Za-z].*$");

  /**
   * Reads {@code written} (one requirement, no comment) found at {@code at}.
   *
   * @return the requirement, or empty when it is none this check can compare (see the class
   *     comment) or sets no version limit ({@code torch} alone)
   */
  static Optional<Requirement> parse(String written, SourceLocation at) {
    String text = OPTIONS.matcher(written.strip()).replaceFirst("").strip();
    Matcher m = FORM.matcher(text);
    if (!m.matches()) {
      return Optional.empty();
    }
    String spec = m.group(3) != null ? m.group(3) : m.group(2);
    return Pep440Specifiers.parse(spec)
        .filter(s -> !s.toString().isEmpty())
        .map(s -> new Requirement(m.group(1), s, text, at));
  }
}
