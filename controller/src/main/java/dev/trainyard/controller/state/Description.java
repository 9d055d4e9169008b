package dev.trainyard.controller.state;

import dev.trainyard.controller.text.ShortText;
import java.time.Duration;

/**
 * Short human text for commit status descriptions: fitting to a length limit counted in Unicode
 * code points (GitHub rejects a description over 140 characters with 422 "description is too long
 * (maximum is 140 characters)"), and durations as "1h 2m", "12m 5s" or "45s".
 */
public final class Description {

  /** GitHub's limit for a commit status description, the strictest of the three forges. */
  public static final int MAX = 140;

  private Description() {}

  /** {@code text} fitted to {@code max} code points ({@link ShortText#fit}). */
  public static String fit(String text, int max) {
    return ShortText.fit(text, max);
  }

  /**
   * {@code head + body + tail}, with {@code body} cut (ended with "…") when the whole would be over
   * {@code max} code points: the part that varies (an image name, a kubelet message) gives way, so
   * what to change and the attempt at the end stay readable. When even an empty body would not fit,
   * the whole is cut as {@link #fit}.
   */
  public static String fit(String head, String body, String tail, int max) {
    int room = max - head.codePointCount(0, head.length()) - tail.codePointCount(0, tail.length());
    if (room < 2) {
      return fit(head + body + tail, max);
    }
    return head + fit(body, room) + tail;
  }

  /**
   * {@code d} in the two largest units: "2h 5m", "12m 5s", "45s"; negative durations count as 0s.
   */
  public static String duration(Duration d) {
    long s = Math.max(0, d.getSeconds());
    if (s >= 3600) {
      return (s / 3600) + "h " + (s % 3600 / 60) + "m";
    }
    if (s >= 60) {
      return (s / 60) + "m " + (s % 60) + "s";
    }
    return s + "s";
  }
}
