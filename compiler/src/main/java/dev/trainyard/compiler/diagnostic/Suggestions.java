package dev.trainyard.compiler.diagnostic;

import java.util.Collection;
import java.util.Comparator;
import java.util.Locale;
import java.util.Optional;

/**
 * "Did you mean" for names a user picks from a list (runtimes, priority classes, queues): the
 * closest candidate by optimal-string-alignment distance, where insert, delete, substitute and
 * swapping two neighbouring letters each cost 1 (so {@code troch} is one edit from {@code torch}),
 * if it is close enough to be a typo, or a candidate that contains the word or is contained in it
 * ({@code pytorch} → {@code torch}).
 */
public final class Suggestions {
  private Suggestions() {}

  /** The candidate {@code word} was probably meant to be, if any. */
  public static Optional<String> closest(String word, Collection<String> candidates) {
    String w = word.toLowerCase(Locale.ROOT);
    Optional<String> near =
        candidates.stream()
            .filter(c -> distance(w, c.toLowerCase(Locale.ROOT)) <= threshold(w))
            .min(
                Comparator.comparingInt((String c) -> distance(w, c.toLowerCase(Locale.ROOT)))
                    .thenComparing(c -> c));
    return near.or(
        () ->
            candidates.stream()
                .filter(c -> !w.isEmpty() && (w.contains(c) || c.contains(w)))
                .sorted()
                .findFirst());
  }

  /** One edit for names up to five letters, two up to eight, then three. */
  static int threshold(String word) {
    return word.length() <= 5 ? 1 : word.length() <= 8 ? 2 : 3;
  }

  /**
   * Optimal string alignment distance (Damerau–Levenshtein without repeated edits of one
   * substring).
   */
  static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1
            && j > 1
            && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }
}
