package dev.trainyard.compiler.schema;

import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The hint for an unknown field: the closest allowed name by Levenshtein distance ("did you mean
 * `nodes`?"), or the list of allowed names when none is close.
 */
final class FieldSuggestions {
  private FieldSuggestions() {}

  /**
   * @param unknown the field the user wrote, e.g. {@code node}
   * @param allowed the property names the schema allows at that level
   */
  static String hint(String unknown, List<String> allowed) {
    if (allowed.isEmpty()) {
      return "remove it; no fields are allowed here";
    }
    String best =
        allowed.stream()
            .min(
                Comparator.comparingInt((String name) -> distance(unknown, name))
                    // On a tie, a name that extends what was typed wins (`gpu` → `gpus`, not
                    // `cpu`).
                    .thenComparing(
                        name ->
                            !name.toLowerCase(Locale.ROOT)
                                .startsWith(unknown.toLowerCase(Locale.ROOT)))
                    .thenComparing(name -> name))
            .orElseThrow();
    if (distance(unknown, best) <= threshold(unknown)) {
      return "did you mean `" + best + "`?";
    }
    List<String> sorted = allowed.stream().sorted().map(name -> "`" + name + "`").toList();
    return "allowed fields here: " + String.join(", ", sorted);
  }

  /**
   * Close enough to be a typo: one edit for short names, up to a third of the name for long ones.
   */
  private static int threshold(String name) {
    return Math.max(1, Math.min(3, name.length() / 3));
  }

  /** Case-insensitive Levenshtein distance (insert, delete, substitute each cost 1). */
  static int distance(String a, String b) {
    String s = a.toLowerCase(Locale.ROOT);
    String t = b.toLowerCase(Locale.ROOT);
    int[] previous = new int[t.length() + 1];
    int[] current = new int[t.length() + 1];
    for (int j = 0; j <= t.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= s.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= t.length(); j++) {
        int substitute = previous[j - 1] + (s.charAt(i - 1) == t.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitute, Math.min(previous[j] + 1, current[j - 1] + 1));
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[t.length()];
  }
}
