package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.SourceLocation;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The two fields of a committed {@code pyproject.toml} that meet the runtime's image: {@code
 * [project] dependencies} (what {@code pip install .} installs) and {@code [project]
 * requires-python} (PyPA "Declaring project metadata", packaging.python.org/en/latest/
 * specifications/pyproject-toml/), each string with where it is written.
 *
 * <pre>
 * [project]
 * requires-python = "&gt;=3.12"        # line 2, column 19 (inside the quotes)
 * dependencies = [
 *   "torch&lt;2.10",                   # line 4, column 4
 * ]
 * </pre>
 *
 * <p>A scanner for exactly this shape, not a TOML parser: the {@code [project]} table's own lines
 * (until the next table header), keys written bare, values as one basic ({@code "..."}) or literal
 * ({@code '...'}) string, the array over one or more lines with comments. Other spellings (dotted
 * keys, inline tables, multi-line strings, escapes) are not read.
 */
final class PyprojectFile {
  private static final Pattern HEADER =
      Pattern.compile("\\s*\\[\\[?\\s*([^\\]]+?)\\s*\\]\\]?\\s*(#.*)?");
  private static final Pattern KEY = Pattern.compile("\\s*([A-Za-z0-9_-]+)\\s*=\\s*");
  private static final Pattern STRING = Pattern.compile("\"([^\"\\\\]*)\"|'([^']*)'");

  /**
   * A string value and where its text starts.
   *
   * @param value the string's content
   * @param at its first character, inside the quotes
   */
  record Text(String value, SourceLocation at) {}

  private final Optional<Text> requiresPython;
  private final List<Text> dependencies;

  private PyprojectFile(Optional<Text> requiresPython, List<Text> dependencies) {
    this.requiresPython = requiresPython;
    this.dependencies = List.copyOf(dependencies);
  }

  /**
   * Scans {@code text}, the file named {@code file} in diagnostics.
   *
   * @return the fields found (absent ones empty); never fails
   */
  static PyprojectFile scan(String file, String text) {
    String[] lines = text.split("\r?\n", -1);
    Optional<Text> requires = Optional.empty();
    List<Text> deps = new ArrayList<>();
    boolean inProject = false;
    for (int i = 0; i < lines.length; i++) {
      Matcher header = HEADER.matcher(lines[i]);
      if (header.matches()) {
        inProject = header.group(1).equals("project") && !lines[i].contains("[[");
        continue;
      }
      Matcher key = KEY.matcher(lines[i]);
      if (!inProject || !key.lookingAt()) {
        continue;
      }
      if (key.group(1).equals("requires-python")) {
        requires = strings(file, lines, i, key.end(), false).stream().findFirst();
      } else if (key.group(1).equals("dependencies") && lines[i].startsWith("[", key.end())) {
        deps.addAll(strings(file, lines, i, key.end() + 1, true));
      }
    }
    return new PyprojectFile(requires, deps);
  }

  /**
   * The strings from line {@code i}, column {@code from} on: one, or (in an array) each until the
   * closing {@code ]}, across lines, skipping comments.
   */
  private static List<Text> strings(String file, String[] lines, int i, int from, boolean array) {
    List<Text> out = new ArrayList<>();
    for (int line = i, start = from; line < lines.length; line++, start = 0) {
      String rest = lines[line];
      int pos = start;
      while (pos < rest.length()) {
        char ch = rest.charAt(pos);
        if (ch == '#' || ch == ']' && array) {
          if (ch == ']') {
            return out;
          }
          break;
        }
        Matcher s = STRING.matcher(rest).region(pos, rest.length());
        if ((ch == '"' || ch == '\'') && s.lookingAt()) {
          String value = s.group(1) != null ? s.group(1) : s.group(2);
          out.add(new Text(value, new SourceLocation(file, line + 1, pos + 2)));
          if (!array) {
            return out;
          }
          pos = s.end();
        } else {
          pos++;
        }
      }
      if (!array) {
        return out;
      }
    }
    return out;
  }

  /** {@code [project] requires-python}, when written. */
  Optional<Text> requiresPython() {
    return requiresPython;
  }

  /** {@code [project] dependencies}, in file order. */
  List<Text> dependencies() {
    return dependencies;
  }
}
