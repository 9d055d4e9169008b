package dev.trainyard.controller.state;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * How far a running run has got, as last seen: from rank 0's log ({@link Source#LOG}, the trainer's
 * own progress lines) or pushed by the program ({@link Source#PUSH}, Kubeflow Trainer's KEP-2779
 * {@code trainerStatus} payload). Every part is optional because trainers print different subsets:
 * a tqdm bar gives step, total and remaining time; a Hugging Face log dict gives only metrics and
 * an epoch.
 *
 * <ul>
 *   <li>{@code step}, {@code totalSteps}: steps done and planned, null when unknown; {@code
 *       totalSteps} is never below 1.
 *   <li>{@code percent}: 0–100, null when unknown (KEP-2779 {@code progressPercentage}); derived
 *       from step and total where the source gave none.
 *   <li>{@code remaining}: the estimated time to the end, null when unknown (KEP-2779 {@code
 *       estimatedRemainingSeconds}).
 *   <li>{@code metrics}: name and value as the program printed them ({@code loss} → {@code 0.53}),
 *       in the order seen, at most {@link #MAX_METRICS} (KEP-2779 {@code metrics}).
 *   <li>{@code updatedAt}: when this progress was reported (KEP-2779 {@code lastUpdatedTime}) or
 *       its line was read.
 * </ul>
 *
 * <pre>
 * Progress[step=370, totalSteps=1000, percent=37, remaining=PT1M45S,
 *          metrics=[Metric[name=loss, value=0.53]], updatedAt=2026-12-02T08:00:00Z, source=LOG]
 * </pre>
 */
public record Progress(
    Long step,
    Long totalSteps,
    Integer percent,
    Duration remaining,
    List<Metric> metrics,
    Instant updatedAt,
    Source source) {

  /** The most metrics kept per progress; later ones are dropped. */
  public static final int MAX_METRICS = 8;

  /** Where a progress came from. */
  public enum Source {
    /** Parsed from a progress line in rank 0's container log. */
    LOG,
    /** Pushed by the run's own pod in KEP-2779's {@code trainerStatus} shape. */
    PUSH
  }

  /** One training metric as printed: {@code name} and {@code value} are never null or blank. */
  public record Metric(String name, String value) {
    public Metric {
      if (name == null || name.isBlank() || value == null || value.isBlank()) {
        throw new IllegalArgumentException("a metric needs a name and a value");
      }
    }
  }

  public Progress {
    if (step != null && step < 0) {
      throw new IllegalArgumentException("step " + step + " is negative");
    }
    if (totalSteps != null && totalSteps < 1) {
      throw new IllegalArgumentException("totalSteps " + totalSteps + " is below 1");
    }
    if (percent != null && (percent < 0 || percent > 100)) {
      throw new IllegalArgumentException("percent " + percent + " is outside 0-100");
    }
    if (remaining != null && remaining.isNegative()) {
      throw new IllegalArgumentException("remaining " + remaining + " is negative");
    }
    if (percent == null && step != null && totalSteps != null) {
      percent = (int) Math.min(100, step * 100 / totalSteps);
    }
    metrics = metrics == null ? List.of() : List.copyOf(metrics);
    if (metrics.size() > MAX_METRICS) {
      metrics = metrics.subList(0, MAX_METRICS);
    }
    if (updatedAt == null || source == null) {
      throw new IllegalArgumentException("a progress needs updatedAt and source");
    }
  }
}
