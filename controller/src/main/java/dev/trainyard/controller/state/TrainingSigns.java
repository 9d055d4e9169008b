package dev.trainyard.controller.state;

import java.time.Duration;

/**
 * What tells whether a run that succeeded trained, beyond its progress ({@link
 * RunObservation#progress}): {@link RunStateMapper} asks "did it train?" when one of them says no.
 *
 * <ul>
 *   <li>{@code logRead}: rank 0's log was read: the API server served it (read once at the end,
 *       even empty), or a followed stream delivered a line that is not blank. False when it could
 *       not be read (the pod gone, no right to {@code pods/log}, the kubelet answered an error):
 *       then no progress proves nothing.
 *   <li>{@code worldSize}: the largest world size rank 0 printed ({@link LogProgress#worldSize}), 0
 *       when none.
 *   <li>{@code usual}: the median duration of its job's earlier successful runs (at least {@link
 *       #MIN_HISTORY} of them), null when unknown.
 * </ul>
 *
 * <pre>
 * TrainingSigns[logRead=true, worldSize=1, usual=PT2H]
 * </pre>
 */
public record TrainingSigns(boolean logRead, int worldSize, Duration usual) {

  /** Nothing known: no question is asked. */
  public static final TrainingSigns NONE = new TrainingSigns(false, 0, null);

  /** Earlier successful runs of a job needed before its usual duration counts. */
  public static final int MIN_HISTORY = 3;

  public TrainingSigns {
    if (worldSize < 0) {
      throw new IllegalArgumentException("worldSize " + worldSize + " is negative");
    }
  }

  /** These signs with {@code usual} as the job's usual duration. */
  public TrainingSigns withUsual(Duration usual) {
    return new TrainingSigns(logRead, worldSize, usual);
  }
}
