package dev.trainyard.compiler.units;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one duration grammar of every Trainyard file and flag (train.yaml's {@code timeout},
 * platform.yaml, controller.yaml, {@code status}/{@code logs} flags): days, hours, minutes, seconds
 * and milliseconds, largest first, each at most once: {@code 24h}, {@code 90m}, {@code 1h30m},
 * {@code 2d}, {@code 3600s}, {@code 500ms}. Values Kubernetes takes in seconds ({@link #seconds})
 * must be whole seconds.
 */
public final class Durations {
  private static final Pattern DURATION =
      Pattern.compile("^(?:(\\d+)d)?(?:(\\d+)h)?(?:(\\d+)m)?(?:(\\d+)s)?(?:(\\d+)ms)?$");

  /**
   * The longest duration, in seconds: 36,500 days (100 years). Anything longer is a typo, and a
   * bound keeps the sum far from overflowing a long (and within Kubernetes' int64 {@code
   * activeDeadlineSeconds}).
   */
  public static final long MAX_SECONDS = 36_500L * 86_400;

  private Durations() {}

  /**
   * Whole seconds in {@code text}, or empty when it is not a duration, is zero, is over {@link
   * #MAX_SECONDS} or has a part smaller than a second left over ({@code 1500ms}).
   */
  public static OptionalLong seconds(String text) {
    return parse(text)
        .filter(d -> d.toMillisPart() == 0)
        .map(d -> OptionalLong.of(d.getSeconds()))
        .orElse(OptionalLong.empty());
  }

  /**
   * The duration {@code text} names, or empty when it is not one, is zero or is over {@link
   * #MAX_SECONDS}. Surrounding blanks are ignored.
   */
  public static Optional<Duration> parse(String text) {
    // A blank text matches (every part is optional) and sums to 0, which is no duration.
    Matcher m = DURATION.matcher(text.trim());
    if (!m.matches()) {
      return Optional.empty();
    }
    long seconds = part(m, 1, 86_400) + part(m, 2, 3_600) + part(m, 3, 60) + part(m, 4, 1);
    String ms = m.group(5);
    // 16 digits of milliseconds are over the maximum already; more could overflow a long.
    if (ms != null && ms.length() > 15) {
      return Optional.empty();
    }
    // Each part is at most 12 digits times a day (part), so the sum stays far below a long's end.
    long millis = ms == null ? 0 : Long.parseLong(ms);
    Duration total = Duration.ofSeconds(seconds).plusMillis(millis);
    return total.isZero() || total.compareTo(Duration.ofSeconds(MAX_SECONDS)) > 0
        ? Optional.empty()
        : Optional.of(total);
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
