package dev.trainyard.controller.text;

/**
 * Text cut to a length limit counted in Unicode code points, as the forges count it (GitHub rejects
 * a commit status description over 140 characters with 422 "description is too long (maximum is 140
 * characters)"). Shared by {@code controller.state}, which writes descriptions, and {@code
 * controller.forge}, which enforces each forge's limit; it knows neither.
 *
 * <pre>
 * ShortText.fit("ab   cdef", 5)  →  "ab…"
 * </pre>
 */
public final class ShortText {

  private static final String ELLIPSIS = "…";

  private ShortText() {}

  /**
   * {@code text} stripped, unchanged when it has at most {@code max} code points, else cut to
   * {@code max - 1} code points (trailing blanks dropped) and ended with "…"; null is "".
   */
  public static String fit(String text, int max) {
    String t = text == null ? "" : text.strip();
    if (t.codePointCount(0, t.length()) <= max) {
      return t;
    }
    int end = t.offsetByCodePoints(0, max - 1);
    return t.substring(0, end).stripTrailing() + ELLIPSIS;
  }
}
