package dev.trainyard.compiler.source;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Finds tab characters in the leading whitespace of lines, before the YAML parser sees them.
 *
 * <p>YAML 1.2 §6.1 forbids tabs in indentation; SnakeYAML stops at the first one with "found
 * character '\t' that cannot start any token". Scanning ourselves lets us report every such line at
 * once. Lines inside a block scalar ({@code run: |}) that are indented deeper than its key are
 * content, where a tab after the indentation is legal, so they are skipped.
 */
final class TabIndentation {
  /** {@code key: |}, {@code - >-}, {@code run: |2+ # comment}: a line that opens a block scalar. */
  private static final Pattern BLOCK_SCALAR_HEADER =
      Pattern.compile(".*(^|[\\s:])[|>]([1-9][+-]?|[+-][1-9]?)?\\s*(#.*)?$");

  private TabIndentation() {}

  /**
   * One {@link DiagnosticCode#TAB_INDENTATION} error per line with a tab in its indentation, in
   * line order.
   */
  static List<Diagnostic> find(SourceFile file) {
    if (file.text().indexOf('\t') < 0) {
      return List.of(); // nearly every file: no line to look at
    }
    List<Diagnostic> found = new ArrayList<>();
    String[] lines = file.text().split("\n", -1);
    int blockParentIndent = -1;
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i];
      int spaces = leadingSpaces(line);
      boolean blank = line.isBlank();
      if (blockParentIndent >= 0 && (blank || spaces > blockParentIndent)) {
        continue;
      }
      blockParentIndent = BLOCK_SCALAR_HEADER.matcher(line.stripTrailing()).matches() ? spaces : -1;
      int tab = firstTabInIndent(line);
      if (tab >= 0) {
        found.add(tabAt(file.displayPath(), i + 1, tab + 1));
      }
    }
    return found;
  }

  private static int leadingSpaces(String line) {
    int n = 0;
    while (n < line.length() && line.charAt(n) == ' ') {
      n++;
    }
    return n;
  }

  private static int firstTabInIndent(String line) {
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (c == '\t') {
        return i;
      }
      if (c != ' ') {
        return -1;
      }
    }
    return -1;
  }

  private static Diagnostic tabAt(String file, int line, int column) {
    return Diagnostic.error(
            DiagnosticCode.TAB_INDENTATION,
            new SourceLocation(file, line, column),
            "",
            "tab character in indentation")
        .withHint("YAML indents with spaces only: replace the tab with spaces (2 per level)");
  }
}
