package dev.trainyard.compiler.resolve;

import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code timeout:} values such as {@code 24h}, {@code 90m}, {@code 1h30m}, {@code 2d}, {@code
 * 3600s}.
 */
public final class Durations {
  private static final Pattern DURATION =
      Pattern.compile("^(?:(\\d+)d)?(?:(\\d+)h)?(?:(\\d+)m)?(?:(\\d+)s)?$");

  /**
   * The longest duration, in seconds: 36,500 days (100 years). Anything longer is a typo, and a
   * bound keeps the sum far from overflowing a long (and within Kubernetes' int64 {@code
   * activeDeadlineSeconds}).
   */
  public static final long MAX_SECONDS = 36_500L * 86_400;

  private Durations() {}

  /**
   * Seconds in {@code text}, or empty when it is not a duration, is zero or is over {@link
   * #MAX_SECONDS}.
   */
  public static OptionalLong seconds(String text) {
    // A blank text matches (every part is optional) and sums to 0, which is no duration.
    Matcher m = DURATION.matcher(text.trim());
    if (!m.matches()) {
      return OptionalLong.empty();
    }
    long total = part(m, 1, 86_400) + part(m, 2, 3_600) + part(m, 3, 60) + part(m, 4, 1);
    return total > 0 && total <= MAX_SECONDS ? OptionalLong.of(total) : OptionalLong.empty();
  }

  /**
   * One part in seconds; a part of more than 12 digits counts as over the maximum (no overflow).
   */
  private static long part(Matcher m, int group, long unit) {
    String digits = m.group(group);
    if (digits == null) {
      return 0;
    }
    return digits.length() > 12 ? MAX_SECONDS + 1 : Long.parseLong(digits) * unit;
  }
}
