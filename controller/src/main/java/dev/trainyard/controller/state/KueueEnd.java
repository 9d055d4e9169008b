package dev.trainyard.controller.state;

import java.time.Instant;
import java.util.Locale;
import java.util.Optional;

/**
 * Kueue ended a run that JobSet did not end: its Workload was deactivated, or Kueue finished it
 * while the JobSet stayed suspended. Kueue never requeues such a Workload, so without this the run
 * would read "queued …: requeued after eviction" or "not started" for ever.
 *
 * <ul>
 *   <li>Deactivated: {@code spec.active} false (Kueue sets it once {@code
 *       waitForPodsReady.requeuingStrategy .backoffLimitCount} evictions are spent, a maximum
 *       execution time passed or an admission check rejected it; so may a person), or condition
 *       {@code Evicted} with a reason starting {@code Deactivated} (Kueue's own test, {@code
 *       strings.HasPrefix(reason, "Deactivated")}, kueue v0.19.2 {@code pkg/workload/evict};
 *       reasons {@code Deactivated} and {@code DeactivatedDueTo<cause>}, e.g. {@code
 *       DeactivatedDueToRequeuingLimitExceeded}) not followed by {@code Requeued=True} (what Kueue
 *       sets when the Workload is reactivated). While the JobSet still runs (not suspended), {@code
 *       spec.active} false alone is not the end yet: Kueue writes its Evicted reason, then suspends
 *       the JobSet (seen on the harness, {@code InterplayIT}), and the status waits for those words
 *       ("deactivated by Kueue (requeuing limit exceeded)", not "spec.active is false").
 *   <li>{@code Finished=True} while the JobSet is still suspended (e.g. it could not be started).
 * </ul>
 *
 * @param what what happened, e.g. "deactivated by Kueue (requeuing limit exceeded)"
 * @param brief the same in a few words, for when what the pods showed follows ("deactivated by
 *     Kueue")
 * @param since when (the condition's time; null when unknown)
 */
record KueueEnd(String what, String brief, Instant since) {

  /** How Kueue ended {@code o}'s run, if it did. */
  static Optional<KueueEnd> of(RunObservation o) {
    if (o.workload().isEmpty()) {
      return Optional.empty();
    }
    WorkloadSnapshot w = o.workload().get();
    Optional<ConditionSnapshot> evicted =
        ConditionSnapshot.find(w.conditions(), "Evicted").filter(ConditionSnapshot::isTrue);
    boolean deactivatedReason =
        evicted.map(c -> c.reason().startsWith("Deactivated")).orElse(false)
            && !ConditionSnapshot.holds(w.conditions(), "Requeued");
    boolean deactivatedEviction =
        evicted.map(c -> c.reason().startsWith("Deactivated")).orElse(false);
    if (!w.active() && !deactivatedEviction && !o.jobSet().suspended()) {
      // spec.active just turned false and Kueue has not evicted the run yet: it writes the
      // Evicted reason (e.g. DeactivatedDueToRequeuingLimitExceeded) before it suspends the
      // JobSet, and a terminal status is final, so the end waits for those words.
      return Optional.empty();
    }
    if (!w.active() || deactivatedReason) {
      String what = deactivated(evicted.filter(c -> c.reason().startsWith("Deactivated")));
      return Optional.of(
          new KueueEnd(
              what,
              what.startsWith("deactivated by Kueue") ? "deactivated by Kueue" : "deactivated",
              evicted.map(ConditionSnapshot::since).orElse(null)));
    }
    Optional<ConditionSnapshot> finished =
        ConditionSnapshot.find(w.conditions(), "Finished").filter(ConditionSnapshot::isTrue);
    if (finished.isPresent() && o.jobSet().suspended()) {
      ConditionSnapshot f = finished.get();
      String said = f.message().isBlank() ? f.reason() : f.message().strip();
      return Optional.of(
          new KueueEnd(
              "Kueue finished the Workload without running it"
                  + (said.isEmpty() ? "" : " (" + said + ")"),
              "finished by Kueue",
              f.since()));
    }
    return Optional.empty();
  }

  /**
   * "deactivated by Kueue (requeuing limit exceeded)" from {@code
   * DeactivatedDueToRequeuingLimitExceeded}.
   */
  private static String deactivated(Optional<ConditionSnapshot> evicted) {
    String cause =
        evicted.map(ConditionSnapshot::reason).orElse("").replaceFirst("^Deactivated(DueTo)?", "");
    if (cause.isEmpty()) {
      return "deactivated (Workload spec.active is false)";
    }
    return "deactivated by Kueue ("
        + cause.replaceAll("(?<=[a-z])(?=[A-Z])", " ").toLowerCase(Locale.ROOT)
        + ")";
  }
}
