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
import dev.trainyard.controller.state.ContainerSnapshot;
import dev.trainyard.controller.state.ErrorLine;
import dev.trainyard.controller.state.JobSetSnapshot;
import dev.trainyard.controller.state.LogProgress;
import dev.trainyard.controller.state.Phase;
import dev.trainyard.controller.state.PodSnapshot;
import dev.trainyard.controller.state.Progress;
import dev.trainyard.controller.state.Resumed;
import dev.trainyard.controller.state.RunObservation;
import dev.trainyard.controller.state.RunStateMapper;
import dev.trainyard.controller.state.TrainingSigns;
import dev.trainyard.controller.state.WorkloadSnapshot;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
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

  /** The log tail the source serves for any pod (null: it cannot be read). */
  String tail;

  final List<String> tailsRead = new ArrayList<>();

  final ReconcilerTest.FakeSource source =
      new ReconcilerTest.FakeSource() {
        @Override
        public Optional<String> logTail(
            RunKey key, String pod, String container, int lines, int maxBytes) {
          tailsRead.add(pod + "/" + container + " " + lines + " " + maxBytes);
          return Optional.ofNullable(tail);
        }
      };
  final List<Phase> tracked = new ArrayList<>();
  final List<RunKey> forgotten = new ArrayList<>();
  Optional<Progress> progress = Optional.empty();
  Optional<Resumed> resumed = Optional.empty();
  TrainingSigns signs = TrainingSigns.NONE;
  RunStateMapper mapper = new RunStateMapper(Duration.ofMinutes(10), Duration.ofMinutes(30));
  final List<String> stops = new ArrayList<>();
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
          public Optional<Resumed> resumed(RunKey key) {
            return resumed;
          }

          @Override
          public TrainingSigns signs(RunKey key) {
            return signs;
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
    Reconciler r =
        new Reconciler(
            source,
            mapper,
            forges,
            new StatusLedger(),
            new TargetUrl(""),
            new ControllerMetrics(),
            time,
            fromTest);
    r.stopStalledWith(
        (key, why) -> {
          stops.add(key.cacheKey() + ": " + why);
          return true;
        });
    return r;
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
    PodSnapshot failed =
        new PodSnapshot(
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
                ContainerSnapshot.running("sidecar"),
                ContainerSnapshot.terminated("node", 1, "Error")),
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
        Optional.of("RuntimeError: mat1 and mat2 shapes cannot be multiplied (16x7 and 8x1)"),
        ErrorLine.of(tail));
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
    assertTrue(cut.getBytes(StandardCharsets.UTF_8).length <= Reconciler.LOG_BYTES);
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

  @Test
  @DisplayName(
      "succeeded before its log was followed: rank 0's log read once; the recorded minGPT-DDP exit 0"
          + " and an empty log ask 'did it train?', a log with steps does not, a log that cannot be"
          + " read does not")
  void succeededWithoutTraining() throws IOException {
    Reconciler r = reconciler();
    tail = fixture("exit-zero.log");
    completed = true;
    observe(T0.plusSeconds(4));
    r.reconcile(KEY);
    r.reconcile(KEY);
    assertEquals(
        List.of(
            "success succeeded in 4s; no training step was seen — did it train? (attempt 1 of 1)"),
        posted());
    assertEquals(List.of("p0/node 200 65536"), tailsRead, "read once");

    for (String log : Arrays.asList(fixture("plain-steps.log"), null, "")) {
      tail = log;
      RunKey other = new RunKey(KEY.namespace(), "other-" + (log == null ? -1 : log.length()));
      source.provenance.put(
          other,
          new RunProvenance(
              "https://github.com/acme/llm.git",
              "b".repeat(39) + (log == null ? 9 : log.length() % 9),
              "jobs/x/train.yaml",
              "dev",
              other.name()));
      source.runs.put(other, source.runs.get(KEY));
      r.reconcile(other);
      assertEquals(
          "".equals(log)
              ? "success succeeded in 4s; no training step was seen — did it train? (attempt 1 of 1)"
              : "success succeeded in 4s, attempt 1 of 1",
          posted().get(posted().size() - 1),
          "served empty (printed nothing) asks; unreadable (null) does not");
    }
  }

  @Test
  @DisplayName(
      "the follower saw a world size below nodes × processes: the success asks 'did it train"
          + " alone?' though it showed steps, and reads no tail")
  void worldSizeFromTheFollower() {
    Reconciler r = reconciler();
    progress =
        Optional.of(
            new Progress(20L, 20L, null, null, List.of(), T0.plusSeconds(3), Progress.Source.LOG));
    signs = new TrainingSigns(true, 1, null);
    completed = true;
    observe(T0.plusSeconds(4));
    r.reconcile(KEY);
    assertEquals(
        List.of(
            "success succeeded in 4s; rank 0 printed world size 1, not 2 — did it train alone?"
                + " (attempt 1 of 1)"),
        posted());
    assertEquals(List.of(), tailsRead);
  }

  /** {@code run} of the job jobs/llama succeeded {@code took} after its pods started. */
  void succeeded(RunKey run, Duration took) {
    completed = true;
    observe(T0.plus(took));
    source.provenance.put(
        run,
        new RunProvenance(
            "https://github.com/acme/llm.git",
            Integer.toHexString(run.name().hashCode()).repeat(8).substring(0, 40),
            "jobs/llama/train.yaml",
            "dev",
            run.name()));
    source.runs.put(run, source.runs.get(KEY));
  }

  @Test
  @DisplayName(
      "its job's earlier runs took 2h (three or more): a run done in 4s asks 'did it train?'; with"
          + " two earlier runs nothing is asked; another job's history does not count")
  void fasterThanItsJob() {
    Reconciler r = reconciler();
    progress =
        Optional.of(
            new Progress(20L, 20L, null, null, List.of(), T0.plusSeconds(3), Progress.Source.LOG));
    for (int i = 0; i < 2; i++) {
      succeeded(new RunKey(KEY.namespace(), "llama-" + i), Duration.ofHours(2));
      r.reconcile(new RunKey(KEY.namespace(), "llama-" + i));
    }
    succeeded(new RunKey(KEY.namespace(), "llama-early"), Duration.ofSeconds(4));
    r.reconcile(new RunKey(KEY.namespace(), "llama-early"));
    assertEquals("success succeeded in 4s, attempt 1 of 1", posted().get(posted().size() - 1));
    succeeded(new RunKey(KEY.namespace(), "llama-2"), Duration.ofHours(2));
    r.reconcile(new RunKey(KEY.namespace(), "llama-2"));
    succeeded(new RunKey(KEY.namespace(), "llama-fast"), Duration.ofSeconds(4));
    r.reconcile(new RunKey(KEY.namespace(), "llama-fast"));
    assertEquals(
        "success succeeded in 4s; its job's runs usually take 2h — did it train? (attempt 1 of 1)",
        posted().get(posted().size() - 1));
    RunKey elsewhere = new RunKey("team-b", "llama-fast");
    succeeded(elsewhere, Duration.ofSeconds(4));
    r.reconcile(elsewhere);
    assertEquals(
        "success succeeded in 4s, attempt 1 of 1",
        posted().get(posted().size() - 1),
        "another namespace is another job");
  }

  @Test
  @DisplayName(
      "failStalledAfter: a run stalled past it is failed on the commit and its stop is asked once;"
          + " forgotten, a new run of the name may be stopped again")
  void stalledFailsAndStops() {
    mapper =
        new RunStateMapper(
            Duration.ofMinutes(10),
            Duration.ofMinutes(30),
            new RunStateMapper.Limits(false, Duration.ofHours(1)));
    Reconciler r = reconciler();
    progress =
        Optional.of(
            new Progress(
                370L, 1000L, null, null, List.of(), T0.plusSeconds(60), Progress.Source.LOG));
    observe(T0.plus(Duration.ofMinutes(45)));
    r.reconcile(KEY);
    assertEquals(List.of(), stops, "stalled, within the limit");
    observe(T0.plus(Duration.ofMinutes(62)));
    r.reconcile(KEY);
    r.reconcile(KEY);
    assertEquals(
        List.of(
            "pending stalled: no progress for 30m (last: step 370/1000), attempt 1 of 1",
            "failure failed: stalled, no progress for 1h (last: step 370/1000), attempt 1 of 1"),
        posted());
    assertEquals(
        List.of(
            KEY.cacheKey()
                + ": failed: stalled, no progress for 1h (last: step 370/1000), attempt 1 of 1"),
        stops);
    assertEquals(0, r.stalledRunning(), "failed, no longer running");
    source.runs.remove(KEY);
    r.reconcile(KEY);
    observe(T0.plus(Duration.ofMinutes(62)));
    r.reconcile(KEY);
    assertEquals(2, stops.size(), "a re-created run is stopped again");
  }
}
