package dev.trainyard.controller.state;

import static dev.trainyard.controller.state.Runs.T0;
import static dev.trainyard.controller.state.Runs.no;
import static dev.trainyard.controller.state.Runs.pod;
import static dev.trainyard.controller.state.Runs.readyPod;
import static dev.trainyard.controller.state.Runs.run;
import static dev.trainyard.controller.state.Runs.waitingPod;
import static dev.trainyard.controller.state.Runs.yes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@link RunStateMapper#quietUntil}: which steps on a run's way up wait before they are posted. */
class QuietTest {

  static final Duration QUIET = RunStateMapper.QUIET;

  static Optional<Instant> quiet(Runs r) {
    RunObservation o = r.observe();
    return RunStateMapper.quietUntil(o, new RunStateMapper(Duration.ofMinutes(10)).map(o));
  }

  @Test
  @DisplayName(
      "'queued: waiting for Kueue to admit it' is held until QUIET after the JobSet's creation, not a millisecond longer")
  void waitingForKueue() {
    assertEquals(Optional.of(T0.plus(QUIET)), quiet(run().suspended().at(T0.plusSeconds(1))));
    assertEquals(
        Optional.of(T0.plus(QUIET)),
        quiet(run().suspended().at(T0.plus(QUIET).minusMillis(1))),
        "held up to its end");
    assertEquals(Optional.empty(), quiet(run().suspended().at(T0.plus(QUIET))));
  }

  @Test
  @DisplayName(
      "queued with Kueue's first words (a LocalQueue a sync has not applied yet) is held as well; after QUIET its verdict is posted")
  void kueueWords() {
    assertEquals(
        Optional.of(T0.plus(QUIET)),
        quiet(
            run()
                .suspended()
                .workload(
                    "", no("QuotaReserved", "Inadmissible", "LocalQueue team-a doesn't exist"))
                .at(T0.plusSeconds(1))));
    assertEquals(
        Optional.empty(),
        quiet(
            run()
                .suspended()
                .workload("", no("QuotaReserved", "Pending", "insufficient quota"))
                .at(T0.plus(QUIET))));
  }

  @Test
  @DisplayName(
      "a start step (pods waiting for nodes) is held until QUIET after the Workload's admission")
  void startingFromAdmission() {
    Instant admitted = T0.plusSeconds(30);
    Runs r =
        run()
            .admittedWorkload(admitted)
            .pods(pod("p0", "", "Pending", false), pod("p1", "", "Pending", false))
            .at(admitted.plusSeconds(1));
    assertEquals(Phase.STARTING, r.map().phase());
    assertEquals(Optional.of(admitted.plus(QUIET)), quiet(r));
  }

  @Test
  @DisplayName(
      "admitted without a Workload (an unqueued JobSet, no pods yet) counts from the JobSet's creation")
  void admittedWithoutWorkload() {
    Runs r = run().at(T0.plusSeconds(2));
    assertEquals(Phase.ADMITTED, r.map().phase());
    assertEquals(Optional.of(T0.plus(QUIET)), quiet(r));
  }

  @Test
  @DisplayName("an Admitted condition without a time counts from the JobSet's creation")
  void admittedWithoutTime() {
    Runs r =
        run()
            .workload("cq", yes("QuotaReserved", "QuotaReserved", null), yes("Admitted", "A", null))
            .at(T0.plusSeconds(3));
    assertEquals(Phase.ADMITTED, r.map().phase());
    assertEquals(Optional.of(T0.plus(QUIET)), quiet(r));
  }

  @Test
  @DisplayName("what blocks a start (an image that cannot be pulled) is posted at once")
  void blockerAtOnce() {
    Runs r =
        run()
            .pods(waitingPod("p0", "n0", "ghcr.io/acme/missing:1", "ImagePullBackOff", "back-off"))
            .at(T0.plusSeconds(1));
    assertEquals(Phase.STARTING, r.map().phase());
    assertEquals(Optional.empty(), quiet(r));
  }

  @Test
  @DisplayName(
      "a stalled start is posted at once, even inside QUIET (a stall time shorter than it)")
  void stalledAtOnce() {
    RunObservation o = run().at(T0.plusSeconds(2)).observe();
    RunState s = new RunStateMapper(Duration.ofSeconds(1)).map(o);
    assertTrue(s.stalled());
    assertEquals(Optional.empty(), RunStateMapper.quietUntil(o, s));
  }

  @Test
  @DisplayName("running, restarting and succeeded are never held")
  void neverHeld() {
    Instant soon = T0.plusSeconds(1);
    for (Runs r :
        List.of(
            run().pods(readyPod("p0", "n0"), readyPod("p1", "n1")).at(soon),
            run().restarts(1).at(soon),
            run().condition(yes("Completed", "AllJobsCompleted", soon)).at(soon))) {
      assertEquals(Optional.empty(), quiet(r), r.map().description());
    }
  }

  @Test
  @DisplayName("a JobSet without creation time is posted at once (nothing to count from)")
  void noCreationTime() {
    RunObservation o = run().suspended().observe();
    RunObservation noTime =
        new RunObservation(
            new JobSetSnapshot("ns", "js", null, true, 2, 0, 0, "q", List.of()),
            o.pods(),
            o.workload(),
            T0);
    RunState s = new RunStateMapper(Duration.ofMinutes(10)).map(noTime);
    assertEquals(Phase.QUEUED, s.phase());
    assertEquals(Optional.empty(), RunStateMapper.quietUntil(noTime, s));
  }
}
