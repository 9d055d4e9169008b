package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.controller.forge.FakeForge;
import dev.trainyard.controller.forge.ForgeDirectory;
import dev.trainyard.controller.forge.ForgeEndpoint;
import dev.trainyard.controller.forge.ForgeKind;
import dev.trainyard.controller.forge.JdkTransport;
import dev.trainyard.controller.forge.RetryPolicy;
import dev.trainyard.controller.forge.RetryingTransport;
import dev.trainyard.controller.forge.TestTime;
import dev.trainyard.controller.forge.Token;
import dev.trainyard.controller.state.ConditionSnapshot;
import dev.trainyard.controller.state.JobSetSnapshot;
import dev.trainyard.controller.state.LogProgress;
import dev.trainyard.controller.state.Phase;
import dev.trainyard.controller.state.Progress;
import dev.trainyard.controller.state.RunObservation;
import dev.trainyard.controller.state.RunStateMapper;
import dev.trainyard.controller.state.WorkloadSnapshot;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Progress on the commit: recorded trainer output drives the reconciler against the fake forge, and
 * the posts are exactly the first progress, each 10 %, the stall and the end.
 */
class ReconcilerProgressTest {

  static final Instant T0 = ReconcilerTest.T0;
  static final RunKey KEY = ReconcilerTest.KEY;

  final FakeForge forge = FakeForge.start();
  final TestTime time = new TestTime(T0);

  /** The log tail the source serves for any pod ("" for none). */
  String tail = "";

  final List<String> tailsRead = new ArrayList<>();

  final ReconcilerTest.FakeSource source =
      new ReconcilerTest.FakeSource() {
        @Override
        public Optional<String> logTail(
            RunKey key, String pod, String container, int lines, int maxBytes) {
          tailsRead.add(pod + "/" + container + " " + lines + " " + maxBytes);
          return tail.isEmpty() ? Optional.empty() : Optional.of(tail);
        }
      };
  final List<Phase> tracked = new ArrayList<>();
  final List<RunKey> forgotten = new ArrayList<>();
  Optional<Progress> progress = Optional.empty();
  Optional<dev.trainyard.controller.state.Resumed> resumed = Optional.empty();
  boolean completed;

  @AfterEach
  void close() {
    forge.close();
  }

  Reconciler reconciler() {
    RetryingTransport http =
        new RetryingTransport(
            new JdkTransport(Duration.ofSeconds(5)),
            RetryPolicy.standard(),
            time,
            time,
            new ControllerMetrics());
    ForgeDirectory forges =
        new ForgeDirectory(
            List.of(
                new ForgeEndpoint(
                    "github.com",
                    ForgeKind.GITHUB,
                    forge.githubApi(),
                    new Token(FakeForge.GITHUB_TOKEN))),
            http);
    RunProgress fromTest =
        new RunProgress() {
          @Override
          public Optional<Progress> progress(RunKey key) {
            return progress;
          }

          @Override
          public Optional<dev.trainyard.controller.state.Resumed> resumed(RunKey key) {
            return resumed;
          }

          @Override
          public void track(RunKey key, RunObservation o, Phase phase) {
            tracked.add(phase);
          }

          @Override
          public void forget(RunKey key) {
            forgotten.add(key);
          }
        };
    return new Reconciler(
        source,
        new RunStateMapper(Duration.ofMinutes(10), Duration.ofMinutes(30)),
        forges,
        new StatusLedger(),
        new TargetUrl(""),
        new ControllerMetrics(),
        time,
        fromTest);
  }

  void observe(Instant now) {
    source.provenance.put(
        KEY,
        new RunProvenance(
            "https://github.com/acme/llm.git",
            ReconcilerTest.SHA,
            "jobs/llama/train.yaml",
            "dev",
            KEY.name()));
    List<ConditionSnapshot> end =
        completed
            ? List.of(new ConditionSnapshot("Completed", true, "AllJobsCompleted", "", now))
            : List.of();
    source.runs.put(
        KEY,
        new RunObservation(
            new JobSetSnapshot(KEY.namespace(), KEY.name(), T0, false, 2, 0, 0, "lq", end),
            List.of(ReconcilerTest.ready("p0"), ReconcilerTest.ready("p1")),
            Optional.of(
                new WorkloadSnapshot(
                    "cq",
                    List.of(
                        new ConditionSnapshot("QuotaReserved", true, "", "", T0),
                        new ConditionSnapshot("Admitted", true, "", "", T0)))),
            now));
  }

  List<String> posted() {
    return forge.accepted().stream().map(a -> a.state() + " " + a.description()).toList();
  }

  static String fixture(String name) throws IOException {
    try (InputStream in = ReconcilerProgressTest.class.getResourceAsStream("/progress/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  @DisplayName(
      "tqdm under DDP (recorded, 22 bar updates): running, the first step, each 10 %, then success: 13 posts")
  void tqdmSequence() throws IOException {
    Reconciler r = reconciler();
    observe(T0.plusSeconds(30));
    r.reconcile(KEY);
    LogProgress log = new LogProgress();
    Instant at = T0.plusSeconds(60);
    for (String segment : fixture("tqdm-ddp.log").split("[\r\n]")) {
      at = at.plusSeconds(1);
      if (log.accept(segment, at)) {
        progress = log.current();
        observe(at);
        r.reconcile(KEY);
      }
    }
    completed = true;
    observe(at.plusSeconds(5));
    r.reconcile(KEY);
    // The ETAs are the bars' own ("[00:00<00:02, ...]" at 4/40).
    List<String> expected =
        List.of(
            "pending running: 2 of 2 nodes ready, attempt 1 of 1",
            "pending running: step 0/40 (0 %), attempt 1 of 1",
            "pending running: step 4/40 (10 %), ETA 2s, attempt 1 of 1",
            "pending running: step 8/40 (20 %), ETA 1s, attempt 1 of 1",
            "pending running: step 12/40 (30 %), ETA 1s, attempt 1 of 1",
            "pending running: step 16/40 (40 %), ETA 1s, attempt 1 of 1",
            "pending running: step 20/40 (50 %), ETA 1s, attempt 1 of 1",
            "pending running: step 24/40 (60 %), ETA 0s, attempt 1 of 1",
            "pending running: step 28/40 (70 %), ETA 0s, attempt 1 of 1",
            "pending running: step 32/40 (80 %), ETA 0s, attempt 1 of 1",
            "pending running: step 36/40 (90 %), ETA 0s, attempt 1 of 1",
            "pending running: step 40/40 (100 %), ETA 0s, attempt 1 of 1",
            "success succeeded in 1m 33s, attempt 1 of 1");
    assertEquals(expected, posted());
    assertTrue(tracked.contains(Phase.RUNNING));
  }

  @Test
  @DisplayName(
      "a stall is posted at once; moving again is posted though its 10 % was posted before")
  void stallAndResume() {
    Reconciler r = reconciler();
    LogProgress log = new LogProgress();
    log.accept("step 370/1000 loss 0.53", T0.plusSeconds(60));
    progress = log.current();
    observe(T0.plusSeconds(60));
    r.reconcile(KEY);
    observe(T0.plusSeconds(60).plus(Duration.ofMinutes(31)));
    r.reconcile(KEY);
    assertEquals(1, r.stalledRunning());
    log.accept("step 371/1000 loss 0.52", T0.plusSeconds(60).plus(Duration.ofMinutes(32)));
    progress = log.current();
    observe(T0.plusSeconds(60).plus(Duration.ofMinutes(32)));
    r.reconcile(KEY);
    assertEquals(0, r.stalledRunning());
    assertEquals(
        List.of(
            "pending running: step 370/1000 (37 %), loss 0.53, attempt 1 of 1",
            "pending stalled: no progress for 30m (last: step 370/1000), attempt 1 of 1",
            "pending running: step 371/1000 (37 %), loss 0.52, attempt 1 of 1"),
        posted());
  }

  @Test
  @DisplayName("without a new 10 %, a moved step is posted after 30 minutes, not before")
  void every() {
    Reconciler r = reconciler();
    LogProgress log = new LogProgress();
    Instant at = T0.plusSeconds(60);
    for (int step = 1; step <= 40; step++) {
      at = at.plus(Duration.ofMinutes(1));
      log.accept("step " + step + "/10000", at);
      progress = log.current();
      observe(at);
      r.reconcile(KEY);
    }
    assertEquals(
        List.of(
            "pending running: step 1/10000 (0 %), attempt 1 of 1",
            "pending running: step 31/10000 (0 %), attempt 1 of 1"),
        posted());
  }

  @Test
  @DisplayName("the progress posts stop at 35, leaving room for the stall and the end")
  void budget() {
    Reconciler r = reconciler();
    LogProgress log = new LogProgress();
    Instant at = T0.plusSeconds(60);
    for (int step = 1; step <= 60; step++) {
      at = at.plus(Duration.ofMinutes(31));
      log.accept("step " + step + "/100000", at);
      progress = log.current();
      observe(at);
      r.reconcile(KEY);
    }
    assertEquals(35, posted().size());
    completed = true;
    observe(at.plusSeconds(1));
    r.reconcile(KEY);
    assertEquals(36, posted().size());
    assertTrue(posted().get(35).startsWith("success "), posted().get(35));
  }

  @Test
  @DisplayName("the metrics table for a detailed forge: names and values, pipes escaped")
  void metricsTable() {
    assertEquals(
        "",
        Reconciler.metricsTable(new Progress(1L, 2L, null, null, null, T0, Progress.Source.LOG)));
    assertEquals(
        "Last metrics (step 1/2, read at 2026-12-01T08:00:00Z):\n\n| metric | value |\n|---|---|\n"
            + "| loss | 0.5 |\n| a\\|b | 1 |\n",
        Reconciler.metricsTable(
            new Progress(
                1L,
                2L,
                null,
                null,
                List.of(new Progress.Metric("loss", "0.5"), new Progress.Metric("a|b", "1")),
                T0,
                Progress.Source.LOG)));
  }

  @Test
  @DisplayName(
      "a failure's description ends with the failing rank's error line (recorded torchrun log), masked, read once")
  void errorLineInFailure() throws IOException {
    Reconciler r = reconciler();
    tail = "step 1/100 loss 0.2\nValueError: token ghp_" + "a".repeat(36) + "\n";
    source.provenance.put(
        KEY,
        new RunProvenance(
            "https://github.com/acme/llm.git",
            ReconcilerTest.SHA,
            "jobs/llama/train.yaml",
            "dev",
            KEY.name()));
    dev.trainyard.controller.state.PodSnapshot failed =
        new dev.trainyard.controller.state.PodSnapshot(
            "p0",
            "kwok-cpu-1",
            "Failed",
            "",
            0,
            false,
            false,
            T0,
            List.of(),
            List.of(
                dev.trainyard.controller.state.ContainerSnapshot.running("sidecar"),
                dev.trainyard.controller.state.ContainerSnapshot.terminated("node", 1, "Error")),
            List.of());
    source.runs.put(
        KEY,
        new RunObservation(
            new JobSetSnapshot(
                KEY.namespace(),
                KEY.name(),
                T0,
                false,
                2,
                0,
                0,
                "lq",
                List.of(
                    new ConditionSnapshot("Failed", true, "FailedJobs", "", T0.plusSeconds(20)))),
            List.of(failed),
            Optional.empty(),
            T0.plusSeconds(60)));
    r.reconcile(KEY);
    r.reconcile(KEY);
    List<String> posted = posted();
    assertEquals(1, posted.size(), posted.toString());
    assertTrue(posted.get(0).startsWith("failure failed (user error): "), posted.get(0));
    assertTrue(
        posted.get(0).endsWith("kwok-cpu-1: ValueError: token ***, attempt 1 of 1"), posted.get(0));
    assertFalse(posted.get(0).contains("a".repeat(36)), "masked: " + posted.get(0));
    assertEquals(List.of("p0/node 150 32768"), tailsRead, "read once, the container that failed");
    tail = fixture("fail-ddp.log");
    assertEquals(
        java.util.Optional.of(
            "RuntimeError: mat1 and mat2 shapes cannot be multiplied (16x7 and 8x1)"),
        dev.trainyard.controller.state.ErrorLine.of(tail));
  }

  @Test
  @DisplayName("a detailed status shows the last 30 lines of the tail read, at most 16 KiB")
  void lastLines() {
    StringBuilder b = new StringBuilder();
    for (int i = 1; i <= 40; i++) {
      b.append("line ").append(i).append('\n');
    }
    String last = Reconciler.lastLines(b.toString());
    assertEquals(30, last.lines().count());
    assertTrue(last.startsWith("line 11\n"), last);
    assertTrue(last.endsWith("line 40"), last);
    String big = ("x".repeat(1000) + "\n").repeat(20);
    String cut = Reconciler.lastLines(big);
    assertTrue(
        cut.getBytes(java.nio.charset.StandardCharsets.UTF_8).length <= Reconciler.LOG_BYTES);
    assertEquals(16, cut.lines().count(), "whole lines only");
  }

  @Test
  @DisplayName(
      "where the attempt resumed from (read from its log) is posted at once beside the nodes, then beside the progress; a progress post keeps it")
  void resumedPosted() throws IOException {
    Reconciler r = reconciler();
    observe(T0.plusSeconds(30));
    r.reconcile(KEY);
    LogProgress log = new LogProgress();
    for (String line : fixture("checkpoint-resume.log").split("\n")) {
      log.accept(line, T0.plusSeconds(40));
    }
    resumed = log.resumed();
    String words = resumed.orElseThrow().describe();
    observe(T0.plusSeconds(40));
    r.reconcile(KEY);
    log.accept("step 21/60 loss 0.5", T0.plusSeconds(50));
    progress = log.current();
    observe(T0.plusSeconds(50));
    r.reconcile(KEY);
    assertEquals(
        List.of(
            "pending running: 2 of 2 nodes ready, attempt 1 of 1",
            "pending running: 2 of 2 nodes ready, " + words + ", attempt 1 of 1",
            "pending running: step 21/60 (35 %), loss 0.5, " + words + ", attempt 1 of 1"),
        posted());
  }
}
