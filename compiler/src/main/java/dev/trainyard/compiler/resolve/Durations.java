package dev.trainyard.compiler.resolve;

import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code timeout:} values such as {@code 24h}, {@code 90m}, {@code 1h30m}, {@code 2d}, {@code 3600s}. */
public final class Durations {
  private static final Pattern DURATION = Pattern.compile("^(?:(\\d+)d)?(?:(\\d+)h)?(?:(\\d+)m)?(?:(\\d+)s)?$");

  private Durations() {}

  /** Seconds in {@code text}, or empty when it is not a duration or is zero. */
  public static OptionalLong seconds(String text) {
    // A blank text matches (every part is optional) and sums to 0, which is no duration.
    Matcher m = DURATION.matcher(text.trim());
    if (!m.matches()) {
      return OptionalLong.empty();
    }
    long total = part(m, 1) * 86_400 + part(m, 2) * 3_600 + part(m, 3) * 60 + part(m, 4);
    return total > 0 ? OptionalLong.of(total) : OptionalLong.empty();
  }

  private static long part(Matcher m, int group) {
    return m.group(group) == null ? 0 : Long.parseLong(m.group(group));
  }
}
