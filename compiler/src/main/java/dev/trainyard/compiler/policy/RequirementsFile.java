package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.SourceLocation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The version-limiting requirements of a pip requirements file as committed in the working
 * directory, with those of the files it includes ({@code -r other.txt}, {@code --requirement
 * other.txt}, relative to the including file, as pip resolves them), at most {@link #MAX_DEPTH}
 * files deep and each file once.
 *
 * <pre>
 * # requirements.txt
 * torch&lt;2.10          # line 2, column 1
 * -r extra.txt         # read too
 * numpy                # no limit: not listed
 * </pre>
 *
 * <p>The file format is pip's ("Requirements File Format", pip.pypa.io/en/stable/reference/
 * requirements-file-format/): a {@code #} at the start or after a blank starts a comment, a line
 * ending in {@code \} continues on the next, lines starting with {@code -} are options. Constraint
 * files ({@code -c}) only narrow what other lines install and are not read.
 */
final class RequirementsFile {
  /** Files included through {@code -r}, counting the first; deeper ones are not read. */
  static final int MAX_DEPTH = 4;

  private static final Pattern COMMENT = Pattern.compile("(^|\\s)#.*$");
  private static final Pattern INCLUDE =
      Pattern.compile("(?:-r|--requirement)(?:\\s*=\\s*|\\s+|(?=[^\\s=]))(\\S+)");

  private RequirementsFile() {}

  /**
   * Reads {@code path} (relative to the working directory) and what it includes.
   *
   * @param scripts reads files of the working directory
   * @param path the file, as {@code pip install -r} names it
   * @param folder how the working directory is named in diagnostics ({@code jobs/a/}, "" for the
   *     repository root)
   * @return the requirements that limit a version, in file order (an unreadable file has none)
   */
  static List<Requirement> read(RunScripts scripts, String path, String folder) {
    List<Requirement> out = new ArrayList<>();
    read(scripts, normalize(path), folder, 1, new HashSet<>(), out);
    return out;
  }

  private static void read(
      RunScripts scripts,
      String path,
      String folder,
      int depth,
      Set<String> seen,
      List<Requirement> out) {
    if (depth > MAX_DEPTH || !seen.add(path)) {
      return;
    }
    Optional<String> text = scripts.read(path);
    if (text.isEmpty()) {
      return;
    }
    String[] lines = text.get().split("\r?\n", -1);
    for (int i = 0; i < lines.length; i++) {
      int first = i;
      StringBuilder logical = new StringBuilder(lines[i]);
      while (logical.toString().endsWith("\\") && i + 1 < lines.length) {
        logical.setLength(logical.length() - 1);
        logical.append(lines[++i]);
      }
      String line = COMMENT.matcher(logical).replaceFirst("");
      String trimmed = line.strip();
      if (trimmed.startsWith("-")) {
        Matcher include = INCLUDE.matcher(trimmed);
        if (include.matches()) {
          String parent = Path.of(path).getParent() == null ? "" : Path.of(path).getParent() + "/";
          read(scripts, normalize(parent + include.group(1)), folder, depth + 1, seen, out);
        }
      } else if (!trimmed.isEmpty()) {
        int column = line.length() - line.stripLeading().length() + 1;
        Requirement.parse(trimmed, new SourceLocation(folder + path, first + 1, column))
            .ifPresent(out::add);
      }
    }
  }

  /** {@code ./a/../b.txt} → {@code b.txt}; a path out of the folder keeps its {@code ..}. */
  private static String normalize(String path) {
    return Path.of(path).normalize().toString().replace('\\', '/');
  }
}
