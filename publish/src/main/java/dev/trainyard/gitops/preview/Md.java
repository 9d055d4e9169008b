package dev.trainyard.gitops.preview;

import java.util.List;

/**
 * Markdown and HTML escaping for text that comes from repositories (names, paths, messages,
 * values).
 */
final class Md {
  private Md() {}

  /**
   * An inline code span that survives backticks in {@code text} (CommonMark: a longer backtick
   * run).
   */
  static String code(String text) {
    String ticks = "`".repeat(longestRun(text) + 1);
    String pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
    return ticks + pad + text.replace('\n', ' ') + pad + ticks;
  }

  /** A table cell: pipes escaped, newlines flattened. */
  static String cell(String text) {
    return text.replace("|", "\\|").replace('\n', ' ');
  }

  /** Text inside HTML ({@code <summary>}). */
  static String html(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }

  /** A code fence longer than any backtick run in {@code lines} (at least three). */
  static String fence(List<String> lines) {
    int longest = 0;
    for (String l : lines) {
      longest = Math.max(longest, longestRun(l));
    }
    return "`".repeat(Math.max(3, longest + 1));
  }

  private static int longestRun(String text) {
    int best = 0;
    int run = 0;
    for (int i = 0; i < text.length(); i++) {
      run = text.charAt(i) == '`' ? run + 1 : 0;
      best = Math.max(best, run);
    }
    return best;
  }
}
