package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Mistakes in a {@code pip install} of {@code setup} that fail every node or silently change what
 * it installs, found in the words {@link ReplacedPackages} reads:
 *
 * <ul>
 *   <li>E439: a requirement with an unquoted {@code <} or {@code >} ({@code pip install
 *       torch<2.10}). bash reads the rest as a redirection (bash(1) "REDIRECTION"): {@code <2.10}
 *       takes pip's input from a file named {@code 2.10}, which does not exist, so the command
 *       fails on every node; {@code >=2.1} writes pip's output to a file named {@code =2.1} and pip
 *       installs the package with no limit at all.
 *   <li>W440: {@code -r FILE} naming a file that is not in the working directory at the commit and
 *       that {@code setup} does not write first: pip stops with "Could not open requirements file"
 *       on every node.
 *   <li>W433: {@code -U}/{@code --upgrade} with a package the runtime records: pip's upgrade
 *       strategy replaces the image's version with the newest release that meets the requirement
 *       (pip's "--upgrade" option), whenever one exists.
 * </ul>
 */
final class SetupInstalls {
  private static final Pattern REDIRECTION = Pattern.compile("[0-9]*[<>].*");

  /** A package name as PEP 508 writes it, with optional extras, and nothing else. */
  private static final Pattern BARE =
      Pattern.compile("([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)(\\[[^\\]]*\\])?");

  private SetupInstalls() {}

  /**
   * Reports an unquoted redirection in {@code w}, a {@code pip install} argument of {@code setup}.
   *
   * @param text setup's text as parsed
   * @param command the whole {@code pip install …} command as written
   * @return whether {@code w} holds one (its words are then no requirement)
   */
  static boolean redirected(
      RunCheck c, RunSource source, String text, RunTokens.Word w, String command) {
    String raw = text.substring(w.start(), w.end());
    int at = unquoted(raw);
    if (at < 0) {
      return false;
    }
    char op = raw.charAt(at);
    String target = raw.substring(at + 1).replaceFirst("^[<>&]+", "");
    String what =
        op == '<'
            ? "bash reads `"
                + raw.substring(at)
                + "` as input from a file named `"
                + target
                + "`, which does not exist, so `pip install` fails on every node before it starts"
            : "bash writes pip's output to a file named `"
                + target
                + "` and pip installs `"
                + raw.substring(0, at)
                + "` with no version limit";
    String quoted = "'" + w.text() + "'";
    c.out()
        .add(
            Diagnostic.error(
                    DiagnosticCode.UNQUOTED_REQUIREMENT,
                    source.at(w.start(), w.end() - w.start()),
                    "/setup",
                    "`setup` writes `" + raw + "` without quotes: " + what)
                .withHint(
                    "quote the requirement, e.g. `"
                        + command.replace(
                            raw, w.text().contains("'") ? "\"" + w.text() + "\"" : quoted)
                        + "`"));
    return true;
  }

  /**
   * Reports {@code -r path} when the working directory has no such file at the commit and {@code
   * setup} does not name it before this command (a step that writes it, e.g. {@code poetry export
   * -o requirements.txt}).
   *
   * @param before setup's text before this {@code pip install}
   */
  static void missingFile(
      RunCheck c, RunSource source, RunTokens.Word w, String path, String before) {
    if (path.isEmpty()
        || path.contains("$")
        || path.startsWith("/")
        || path.contains("://")
        || before.contains(path)
        || c.scripts().read(path).isPresent()) {
      return;
    }
    c.out()
        .add(
            Diagnostic.warning(
                    DiagnosticCode.REQUIREMENTS_FILE_MISSING,
                    source.at(w.start(), w.end() - w.start()),
                    "/setup",
                    "`setup` installs -r "
                        + path
                        + ", but the working directory has no such file at this commit: pip stops"
                        + " with \"Could not open requirements file\" on every node")
                .withHint(
                    "commit "
                        + path
                        + " next to train.yaml (a path is relative to the working directory), or fix the name"));
  }

  /**
   * Reports each argument of {@code pip install -U} that names a package the runtime records, when
   * its version limit (if any) admits the image's version: the upgrade replaces it with the newest
   * release anyway.
   */
  static void upgrade(
      RunCheck c,
      RunSource source,
      RuntimePackages packages,
      List<RunTokens.Word> requirements,
      String command) {
    for (RunTokens.Word w : requirements) {
      Matcher bare = BARE.matcher(w.text());
      Optional<String> name =
          bare.matches()
              ? Optional.of(bare.group(1))
              : Requirement.parse(w.text(), source.at(w.start(), 1))
                  .filter(r -> packages.version(r.name()).map(r.specifiers()::admits).orElse(false))
                  .map(Requirement::name);
      Optional<Pep440Version> has = name.flatMap(packages::version);
      if (has.isEmpty()) {
        continue;
      }
      c.out()
          .add(
              Diagnostic.warning(
                      DiagnosticCode.REQUIREMENT_REPLACES_RUNTIME_PACKAGE,
                      source.at(w.start(), w.end() - w.start()),
                      "/setup",
                      "`"
                          + command
                          + "` upgrades "
                          + name.get()
                          + " past "
                          + has.get()
                          + ", which runtime "
                          + c.job().runtime().ref()
                          + "'s image has, whenever a newer release exists: every node replaces the image's "
                          + name.get()
                          + " with the newest one pip finds")
                  .withHint(
                      "drop -U/--upgrade for "
                          + name.get()
                          + " (without it pip keeps the image's "
                          + has.get()
                          + ", which meets `"
                          + w.text()
                          + "`), or pin the version the code needs"));
    }
  }

  /**
   * Whether {@code raw} (a word as written) is a redirection of the user's own ({@code >}, {@code
   * 2>}, {@code <file}, {@code >>log}): it starts with one, not after a name.
   */
  static boolean isRedirection(String raw) {
    return REDIRECTION.matcher(raw).matches();
  }

  /** The index of the first {@code <} or {@code >} outside quotes in {@code raw}, or -1. */
  static int unquoted(String raw) {
    char quote = 0;
    for (int i = 0; i < raw.length(); i++) {
      char ch = raw.charAt(i);
      if (quote != 0) {
        quote = ch == quote ? 0 : quote;
      } else if (ch == '\'' || ch == '"') {
        quote = ch;
      } else if (ch == '\\') {
        i++;
      } else if (ch == '<' || ch == '>') {
        return i;
      }
    }
    return -1;
  }
}
