package dev.trainyard.controller.state;

import static dev.trainyard.controller.state.Runs.NOW;
import static dev.trainyard.controller.state.Runs.failedPod;
import static dev.trainyard.controller.state.Runs.readyPod;
import static dev.trainyard.controller.state.Runs.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.controller.state.Progress.Metric;
import dev.trainyard.controller.state.Progress.Source;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A running run's progress in its description, and the stall of a run whose progress stood still.
 */
class RunStateMapperProgressTest {

  private static final RunStateMapper MAPPER =
      new RunStateMapper(Duration.ofMinutes(10), Duration.ofMinutes(30));

  private static Progress progress(Long step, Long total, Duration eta, Duration age) {
    return new Progress(
        step,
        total,
        null,
        eta,
        List.of(new Metric("learning_rate", "3e-05"), new Metric("loss", "0.53")),
        NOW.minus(age),
        Source.LOG);
  }

  private static RunState running(Progress p) {
    return MAPPER.map(
        run()
            .pods(readyPod("p0", "n0"), readyPod("p1", "n1"))
            .observe()
            .withProgress(Optional.ofNullable(p)));
  }

  @Test
  @DisplayName("step, total, percent, ETA and the loss, then the attempt")
  void progressDescribed() {
    RunState s = running(progress(370L, 1000L, Duration.ofMinutes(105), Duration.ZERO));
    assertEquals(Phase.RUNNING, s.phase());
    assertFalse(s.stalled());
    assertEquals(
        "running: step 370/1000 (37 %), ETA 1h 45m, loss 0.53, attempt 1 of 4", s.description());
  }

  @Test
  @DisplayName("parts the trainer did not print are left out; a pushed percent alone is shown")
  void partial() {
    assertEquals(
        "running: step 370, loss 0.53, attempt 1 of 4",
        running(progress(370L, null, null, Duration.ZERO)).description());
    assertEquals(
        "running: 40 %, attempt 1 of 4",
        running(new Progress(null, null, 40, null, null, NOW, Source.PUSH)).description());
    assertEquals(
        "running: 2 of 2 nodes ready, attempt 1 of 4",
        running(new Progress(null, null, null, null, null, NOW, Source.PUSH)).description());
    assertEquals("running: 2 of 2 nodes ready, attempt 1 of 4", running(null).description());
  }

  @Test
  @DisplayName(
      "no progress and no log line for progressStallAfter: stalled, naming the configured time and the last step")
  void stalled() {
    Progress p = progress(370L, 1000L, Duration.ofMinutes(5), Duration.ofMinutes(31));
    RunState s = running(p);
    assertTrue(s.stalled());
    assertEquals(Phase.RUNNING, s.phase());
    assertEquals(
        "stalled: no progress for 30m (last: step 370/1000), attempt 1 of 4", s.description());
    assertFalse(running(progress(370L, 1000L, null, Duration.ofMinutes(30))).stalled());
    assertEquals(
        "stalled: no progress for 30m, attempt 1 of 4",
        running(
                new Progress(
                    null,
                    null,
                    null,
                    null,
                    List.of(new Metric("loss", "1")),
                    NOW.minus(Duration.ofHours(1)),
                    Source.LOG))
            .description());
    assertEquals(
        "stalled: no progress for 30m (last: step 370/1000), attempt 1 of 4",
        new RunStateMapper(Duration.ofMinutes(10))
            .map(
                run()
                    .pods(readyPod("p0", "n0"), readyPod("p1", "n1"))
                    .observe()
                    .withProgress(Optional.of(p)))
            .description(),
        "30m is the default");
  }

  @Test
  @DisplayName("a dead rank says more than the progress")
  void deadRankFirst() {
    RunState s =
        MAPPER.map(
            run()
                .pods(readyPod("p0", "n0"), failedPod("p1", "n1", 137, "Error", NOW))
                .observe()
                .withProgress(Optional.of(progress(370L, 1000L, null, Duration.ofMinutes(40)))));
    assertFalse(s.stalled());
    assertTrue(s.description().startsWith("running: rank on node n1"), s.description());
  }

  @Test
  @DisplayName("a long metric is cut, the attempt stays, within 140 code points")
  void fits() {
    Progress p =
        new Progress(
            370L,
            1000L,
            null,
            Duration.ofMinutes(105),
            List.of(new Metric("loss_" + "x".repeat(150), "0.53")),
            NOW,
            Source.LOG);
    String d = running(p).description();
    assertEquals(Description.MAX, d.codePointCount(0, d.length()));
    assertTrue(d.endsWith(", attempt 1 of 4"), d);
    assertTrue(d.startsWith("running: step 370/1000 (37 %), ETA 1h 45m, loss_x"), d);
  }

  @Test
  @DisplayName("PROGRESS and ETA columns")
  void columns() {
    assertEquals(
        "370/1000 (37 %)",
        ProgressText.column(Optional.of(progress(370L, 1000L, null, Duration.ZERO))));
    assertEquals(
        "step 370", ProgressText.column(Optional.of(progress(370L, null, null, Duration.ZERO))));
    assertEquals(
        "-",
        ProgressText.column(
            Optional.of(new Progress(null, null, null, null, null, NOW, Source.PUSH))));
    assertEquals("-", ProgressText.column(Optional.empty()));
    assertEquals(
        "1h 45m",
        ProgressText.eta(Optional.of(progress(1L, 2L, Duration.ofMinutes(105), Duration.ZERO))));
    assertEquals("-", ProgressText.eta(Optional.of(progress(1L, 2L, null, Duration.ZERO))));
    assertEquals("-", ProgressText.eta(Optional.empty()));
    assertEquals("35m", ProgressText.span(Duration.ofMinutes(35)));
    assertEquals("2h", ProgressText.span(Duration.ofHours(2)));
    assertEquals("1h 5m", ProgressText.span(Duration.ofMinutes(65)));
    assertEquals("45s", ProgressText.span(Duration.ofSeconds(45)));
  }

  private static RunState resumed(Progress p, Resumed r) {
    return MAPPER.map(
        run()
            .pods(readyPod("p0", "n0"), readyPod("p1", "n1"))
            .observe()
            .withProgress(Optional.ofNullable(p))
            .withResumed(Optional.ofNullable(r)));
  }

  @Test
  @DisplayName(
      "an attempt that resumed says from which step and checkpoint, before the attempt: with and without progress, stalled too")
  void resumedDescribed() {
    Resumed r = new Resumed("step-3200", 3200L, Instant.parse("2026-12-02T14:02:11Z"));
    assertEquals(
        "running: 2 of 2 nodes ready, resumed from step 3200 (checkpoint of Dec 2 14:02 UTC),"
            + " attempt 1 of 4",
        resumed(null, r).description());
    assertEquals(
        "running: step 3210/10000 (32 %), loss 0.53, resumed from step 3200 (checkpoint of Dec 2"
            + " 14:02 UTC), attempt 1 of 4",
        resumed(progress(3210L, 10000L, null, Duration.ZERO), r).description());
    RunState stalled = resumed(progress(3210L, 10000L, null, Duration.ofHours(1)), r);
    assertTrue(stalled.stalled());
    assertEquals(
        "stalled: no progress for 30m (last: step 3210/10000), resumed from step 3200 (checkpoint"
            + " of Dec 2 14:02 UTC), attempt 1 of 4",
        stalled.description());
    assertEquals(
        "running: 2 of 2 nodes ready, attempt 1 of 4",
        resumed(null, null).description(),
        "a fresh start says nothing of checkpoints");
  }

  @Test
  @DisplayName(
      "a resumed run's description stays within GitHub's 140: the progress gives way, the resume and attempt stay")
  void resumedFits() {
    Resumed r = new Resumed("step-1", 123456789012L, Instant.parse("2026-09-30T14:02:11Z"));
    Progress p =
        new Progress(
            123456789999L,
            999999999999L,
            null,
            Duration.ofHours(1000),
            List.of(new Metric("loss_" + "x".repeat(150), "0.53")),
            NOW,
            Source.LOG);
    String d = resumed(p, r).description();
    int length = d.codePointCount(0, d.length());
    assertTrue(length <= Description.MAX && length > Description.MAX - 5, d);
    assertTrue(d.contains("ETA 1000h…"), "the progress was cut: " + d);
    assertTrue(
        d.endsWith(
            ", resumed from step 123456789012 (checkpoint of Sep 30 14:02 UTC), attempt 1 of 4"),
        d);
    assertTrue(d.startsWith("running: step 123456789999/999999999999"), d);
  }
}
