package dev.trainyard.controller.state;

import static dev.trainyard.controller.state.Runs.NOW;
import static dev.trainyard.controller.state.Runs.T0;
import static dev.trainyard.controller.state.Runs.readyPod;
import static dev.trainyard.controller.state.Runs.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.controller.state.Progress.Source;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * "Did it train?" on a run that succeeded (no training step seen, a world size below nodes ×
 * processes, far faster than its job's earlier runs), the platform's choice to fail it, and a run
 * failed for a stall past {@code failStalledAfter}.
 */
class RunStateMapperTrainedTest {

  static final RunStateMapper MAPPER =
      new RunStateMapper(Duration.ofMinutes(10), Duration.ofMinutes(30));

  static final RunStateMapper STRICT =
      new RunStateMapper(
          Duration.ofMinutes(10),
          Duration.ofMinutes(30),
          new RunStateMapper.Limits(true, Duration.ofHours(2)));

  static final Progress STEP =
      new Progress(40L, 40L, null, null, List.of(), NOW.minusSeconds(5), Source.LOG);

  /** Succeeded 4 s after its pods started, on {@code nodes} nodes of {@code procs} processes. */
  static RunObservation done(int nodes, int procs) {
    Runs r = run().nodes(nodes).processes(procs);
    for (int i = 0; i < nodes; i++) {
      r.pods(readyPod("p" + i, "n" + i));
    }
    return r.condition(Runs.yes("Completed", "AllJobsCompleted", T0.plusSeconds(14))).observe();
  }

  @Test
  @DisplayName(
      "rank 0's log read and no step in it nor pushed: success that asks 'did it train?'; a log"
          + " that could not be read, or a step seen, asks nothing")
  void noStep() {
    RunObservation o = done(2, 1).withSigns(new TrainingSigns(true, 0, null));
    RunState s = MAPPER.map(o);
    assertEquals(Phase.SUCCEEDED, s.phase());
    assertEquals(Cause.NONE, s.cause());
    assertEquals(
        "succeeded in 4s; no training step was seen — did it train? (attempt 1 of 4)",
        s.description());
    assertEquals(
        "succeeded in 4s, attempt 1 of 4",
        MAPPER.map(done(2, 1).withSigns(new TrainingSigns(false, 0, null))).description(),
        "not read: no evidence either way");
    assertEquals(
        "succeeded in 4s, attempt 1 of 4",
        MAPPER.map(o.withProgress(Optional.of(STEP))).description());
    Progress pushed = new Progress(null, null, 100, null, null, NOW, Source.PUSH);
    assertEquals(
        "succeeded in 4s, attempt 1 of 4",
        MAPPER.map(o.withProgress(Optional.of(pushed))).description(),
        "a push is progress");
  }

  @Test
  @DisplayName(
      "rank 0 printed a world size below nodes × processes: 'did it train alone?', even with steps;"
          + " equal or larger, or unknown processes per node counted as 1: nothing")
  void worldSize() {
    RunObservation alone =
        done(2, 1).withSigns(new TrainingSigns(true, 1, null)).withProgress(Optional.of(STEP));
    assertEquals(
        "succeeded in 4s; rank 0 printed world size 1, not 2 — did it train alone? (attempt 1 of 4)",
        MAPPER.map(alone).description());
    assertEquals(
        "succeeded in 4s; rank 0 printed world size 2, not 4 — did it train alone? (attempt 1 of 4)",
        MAPPER
            .map(
                done(2, 2)
                    .withSigns(new TrainingSigns(true, 2, null))
                    .withProgress(Optional.of(STEP)))
            .description());
    for (int world : List.of(4, 5)) {
      assertEquals(
          "succeeded in 4s, attempt 1 of 4",
          MAPPER
              .map(
                  done(2, 2)
                      .withSigns(new TrainingSigns(true, world, null))
                      .withProgress(Optional.of(STEP)))
              .description());
    }
    assertEquals(
        "succeeded in 4s, attempt 1 of 4",
        MAPPER
            .map(
                done(2, 0)
                    .withSigns(new TrainingSigns(true, 2, null))
                    .withProgress(Optional.of(STEP)))
            .description(),
        "MPI: processes per node unknown, 2 nodes make at least 2");
    assertTrue(
        MAPPER
            .map(done(1, 4).withSigns(new TrainingSigns(true, 1, null)))
            .description()
            .contains("world size 1, not 4"),
        "a single-process fallback on one node of 4 processes; before 'no training step'");
  }

  @Test
  @DisplayName(
      "under a tenth of its job's usual time: 'its job's runs usually take …'; a tenth or more:"
          + " nothing")
  void farFaster() {
    RunObservation o =
        done(2, 1)
            .withSigns(new TrainingSigns(false, 0, Duration.ofSeconds(41)))
            .withProgress(Optional.of(STEP));
    assertEquals(
        "succeeded in 4s; its job's runs usually take 41s — did it train? (attempt 1 of 4)",
        MAPPER.map(o).description());
    assertEquals(
        "succeeded in 4s, attempt 1 of 4",
        MAPPER.map(o.withSigns(new TrainingSigns(false, 0, Duration.ofSeconds(40)))).description(),
        "exactly ten times: not far faster");
  }

  @Test
  @DisplayName("untrained: failure makes the same run a user failure, saying why")
  void failUntrained() {
    RunState s = STRICT.map(done(2, 1).withSigns(new TrainingSigns(true, 0, null)));
    assertEquals(Phase.FAILED, s.phase());
    assertEquals(Cause.USER, s.cause());
    assertEquals(
        "failed: succeeded in 4s; no training step was seen — did it train? (attempt 1 of 4)",
        s.description());
    assertEquals(
        Phase.SUCCEEDED,
        STRICT.map(done(2, 1).withProgress(Optional.of(STEP))).phase(),
        "a run that trained stays a success");
  }

  @Test
  @DisplayName(
      "stalled past failStalledAfter: FAILED (user, stalled) naming that limit; stalled but within"
          + " it: RUNNING; without the limit: RUNNING for ever")
  void failStalled() {
    Instant last = NOW.minus(Duration.ofHours(2)).minusSeconds(1);
    RunObservation o =
        run()
            .pods(readyPod("p0", "n0"), readyPod("p1", "n1"))
            .observe()
            .withProgress(
                Optional.of(new Progress(370L, 1000L, null, null, List.of(), last, Source.LOG)));
    RunState s = STRICT.map(o);
    assertEquals(Phase.FAILED, s.phase());
    assertEquals(Cause.USER, s.cause());
    assertTrue(s.stalled());
    assertEquals(
        "failed: stalled, no progress for 2h (last: step 370/1000), attempt 1 of 4",
        s.description());
    assertEquals(Phase.RUNNING, MAPPER.map(o).phase());
    RunObservation within =
        o.withProgress(
            Optional.of(
                new Progress(
                    370L,
                    1000L,
                    null,
                    null,
                    List.of(),
                    NOW.minus(Duration.ofHours(2)),
                    Source.LOG)));
    RunState w = STRICT.map(within);
    assertEquals(Phase.RUNNING, w.phase());
    assertTrue(w.stalled());
    assertEquals(
        "stalled: no progress for 30m (last: step 370/1000), attempt 1 of 4", w.description());
  }

  @Test
  @DisplayName("failStalledAfter shorter than the progress stall is refused")
  void limitOrder() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                new RunStateMapper(
                    Duration.ofMinutes(10),
                    Duration.ofMinutes(30),
                    new RunStateMapper.Limits(false, Duration.ofMinutes(29))));
    assertEquals(
        "failStalledAfter PT29M is shorter than progress stallAfter PT30M", e.getMessage());
    new RunStateMapper(
        Duration.ofMinutes(10),
        Duration.ofMinutes(30),
        new RunStateMapper.Limits(false, Duration.ofMinutes(30)));
  }

  @Test
  @DisplayName("training signs: a negative world size is refused; withUsual keeps the rest")
  void signs() {
    assertThrows(IllegalArgumentException.class, () -> new TrainingSigns(true, -1, null));
    assertEquals(
        new TrainingSigns(true, 3, Duration.ofHours(1)),
        new TrainingSigns(true, 3, null).withUsual(Duration.ofHours(1)));
    assertEquals(TrainingSigns.NONE, done(1, 1).signs());
    assertEquals(0, new UserSettings("", null, -2).processesPerNode());
  }
}
