package dev.trainyard.controller;

import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.controller.state.Phase;
import dev.trainyard.controller.state.RunState;
import dev.trainyard.controller.state.RunStateMapper;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Which finished runs platform.yaml's {@code retention} says to prune, at an instant (pure: no
 * cluster, no git). A run is due when the mapper calls it SUCCEEDED or FAILED (the same state its
 * commit status shows) and it ended ({@link RunStateMapper#finishedAt}: its JobSet's Completed or
 * Failed condition, else the Workload condition by which Kueue deactivated or finished it) longer
 * ago than the retention of its cluster and namespace for that state. A run in any other phase, or
 * finished at an unknown time, is never due.
 */
public final class RetentionPlan {

  /** A run that reached a terminal phase at {@code finishedAt}. */
  public record Finished(
      String cluster, String namespace, String run, Phase phase, Instant finishedAt) {}

  private RetentionPlan() {}

  /**
   * The finish of {@code run} in state {@code state}; empty unless the state is terminal and the
   * condition that ended it carries a transition time.
   */
  public static Optional<Finished> finished(ObservedRun run, RunState state) {
    if (!state.phase().terminal()) {
      return Optional.empty();
    }
    return RunStateMapper.finishedAt(run.observation())
        .map(
            at ->
                new Finished(
                    run.provenance().cluster(),
                    run.key().namespace(),
                    run.provenance().run(),
                    state.phase(),
                    at));
  }

  /** The runs of {@code finished} due at {@code now}, sorted by cluster, namespace and run. */
  public static List<Finished> due(Collection<Finished> finished, Platform platform, Instant now) {
    return finished.stream()
        .filter(f -> keep(f, platform).map(k -> now.isAfter(f.finishedAt().plus(k))).orElse(false))
        .sorted(
            Comparator.comparing(Finished::cluster)
                .thenComparing(Finished::namespace)
                .thenComparing(Finished::run))
        .toList();
  }

  /** How long {@code f} is kept; empty: forever. */
  static Optional<Duration> keep(Finished f, Platform platform) {
    Platform.Retention r = platform.retention(f.cluster(), f.namespace());
    return switch (f.phase()) {
      case SUCCEEDED -> r.succeeded();
      case FAILED -> r.failed();
      default -> Optional.empty();
    };
  }

  /**
   * Whether {@code platform} prunes anything at all (some retention is set, globally or for a
   * namespace).
   */
  public static boolean configured(Platform platform) {
    return set(platform.retention())
        || platform.namespaces().stream().anyMatch(n -> set(n.retention()));
  }

  private static boolean set(Platform.Retention r) {
    return r.succeeded().isPresent() || r.failed().isPresent();
  }
}
