package dev.trainyard.controller.state;

import dev.trainyard.controller.state.Progress.Metric;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

/**
 * A {@link Progress} in words, for the commit status description and {@code trainyard status}:
 *
 * <pre>
 * describe → "step 370/1000 (37 %), ETA 1h 45m, loss 0.53"   (parts the trainer did not print are left out)
 * position → "step 370/1000", "step 370", "37 %"             (the "last:" of a stalled run)
 * column   → "370/1000 (37 %)", "step 370", "37 %", "-"      (PROGRESS)
 * eta      → "1h 45m", "-"                                   (ETA)
 * </pre>
 *
 * The one metric named is the first whose name holds "loss" (any case: {@code loss}, {@code
 * train_loss}, torchtune's {@code Loss}); the others stay in {@link Progress#metrics()} for the
 * detailed views.
 */
public final class ProgressText {

  private ProgressText() {}

  /** Position, ETA and loss, comma-separated; "" when the progress has none of them. */
  public static String describe(Progress p) {
    StringBuilder b = new StringBuilder(position(p));
    if (p.step() != null && p.totalSteps() != null) {
      b.append(" (").append(p.percent()).append(" %)");
    }
    if (p.remaining() != null) {
      append(b, "ETA " + Description.duration(p.remaining()));
    }
    loss(p).ifPresent(m -> append(b, m.name() + " " + m.value()));
    return b.toString();
  }

  /** Where the run is: "step 370/1000", "step 370", "37 %", or "" when unknown. */
  public static String position(Progress p) {
    if (p.step() != null) {
      return "step " + p.step() + (p.totalSteps() == null ? "" : "/" + p.totalSteps());
    }
    return p.percent() == null ? "" : p.percent() + " %";
  }

  /** The PROGRESS column: "370/1000 (37 %)", "step 370", "37 %", or "-". */
  public static String column(Optional<Progress> progress) {
    if (progress.isEmpty()) {
      return "-";
    }
    Progress p = progress.get();
    if (p.step() != null && p.totalSteps() != null) {
      return p.step() + "/" + p.totalSteps() + " (" + p.percent() + " %)";
    }
    String s = position(p);
    return s.isEmpty() ? "-" : s;
  }

  /** The ETA column: "1h 45m", or "-" when unknown. */
  public static String eta(Optional<Progress> progress) {
    return progress.map(Progress::remaining).map(Description::duration).orElse("-");
  }

  /** {@code d} as {@link Description#duration} says it, without a zero last unit: "30m", "1h". */
  public static String span(Duration d) {
    String s = Description.duration(d);
    return s.endsWith(" 0s") || s.endsWith(" 0m") ? s.substring(0, s.length() - 3) : s;
  }

  /** The first metric whose name holds "loss". */
  static Optional<Metric> loss(Progress p) {
    return p.metrics().stream()
        .filter(m -> m.name().toLowerCase(Locale.ROOT).contains("loss"))
        .findFirst();
  }

  private static void append(StringBuilder b, String part) {
    b.append(b.isEmpty() ? "" : ", ").append(part);
  }
}
