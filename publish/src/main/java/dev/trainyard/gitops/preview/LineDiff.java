package dev.trainyard.gitops.preview;

import java.util.ArrayList;
import java.util.List;

/**
 * A line diff of two multi-line values (a launch script, a hostfile) by longest common subsequence:
 * {@code " "}, {@code "-"} or {@code "+"} before each line, removals before additions. Values are
 * short (tens of lines); past {@link #MAX_CELLS} the whole old value is shown removed and the new
 * one added.
 */
final class LineDiff {
  private static final long MAX_CELLS = 1_000_000;

  private LineDiff() {}

  static List<String> of(List<String> a, List<String> b) {
    if ((long) a.size() * b.size() > MAX_CELLS) {
      List<String> out = new ArrayList<>();
      a.forEach(l -> out.add("-" + l));
      b.forEach(l -> out.add("+" + l));
      return out;
    }
    int[][] lcs = new int[a.size() + 1][b.size() + 1];
    for (int i = a.size() - 1; i >= 0; i--) {
      for (int j = b.size() - 1; j >= 0; j--) {
        lcs[i][j] =
            a.get(i).equals(b.get(j))
                ? lcs[i + 1][j + 1] + 1
                : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
      }
    }
    List<String> out = new ArrayList<>();
    int i = 0;
    int j = 0;
    while (i < a.size() || j < b.size()) {
      if (i < a.size() && j < b.size() && a.get(i).equals(b.get(j))) {
        out.add(" " + a.get(i++));
        j++;
      } else if (i < a.size() && (j == b.size() || lcs[i + 1][j] >= lcs[i][j + 1])) {
        out.add("-" + a.get(i++));
      } else {
        out.add("+" + b.get(j++));
      }
    }
    return out;
  }
}
