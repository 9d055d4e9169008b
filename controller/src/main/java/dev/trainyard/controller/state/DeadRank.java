package dev.trainyard.controller.state;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The first pod of a running attempt that failed, in words: "rank on node n1 exited with code 137".
 * Under the compiled {@code FailIndex} policy the run fails only once every other rank has ended
 * too (they lose their peer, hit a collective timeout or the run's timeout), so until then the run
 * is still RUNNING but must not say "2 of 2 nodes ready". The first to fail is named (by the time
 * its container ended, then the lowest index): ranks that fail after it because it died do not
 * change the text, so it is posted once.
 */
final class DeadRank {

  private DeadRank() {}

  /** The first failed pod of {@code pods} (one attempt), described; empty when none failed. */
  static Optional<String> of(List<PodSnapshot> pods, UserSettings settings) {
    return pods.stream()
        .filter(p -> "Failed".equals(p.phase()))
        .min(
            Comparator.comparing(DeadRank::endedAt, Comparator.nullsLast(Comparator.naturalOrder()))
                .thenComparing(PodSnapshot::name, PodOrder::natural))
        .map(p -> describe(p, settings));
  }

  private static String describe(PodSnapshot p, UserSettings settings) {
    String who =
        (p.runsRanks() ? "rank" : "launcher") + (p.node().isEmpty() ? "" : " on node " + p.node());
    Optional<Failure> reason =
        FailureClassifier.platform(p).or(() -> FailureClassifier.userSetting(p, settings));
    if (reason.isPresent()) {
      return who + ": " + reason.get().what();
    }
    return FailureClassifier.userExit(p)
        .map(f -> who + " exited with code " + f.exitCode())
        .orElse(who + " failed");
  }

  /**
   * When the pod's containers ended: the latest finish among its terminated containers; null when
   * unknown.
   */
  private static Instant endedAt(PodSnapshot p) {
    return p.containers().stream()
        .map(ContainerSnapshot::finishedAt)
        .filter(Objects::nonNull)
        .max(Comparator.naturalOrder())
        .orElse(null);
  }
}
