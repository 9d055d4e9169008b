package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trainyard.controller.LiveApiServer;
import dev.trainyard.controller.LiveKubelet;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code trainyard status} run in-process against a real API server ({@link LiveApiServer}): the
 * objects and their status are written as the JobSet controller and the kubelet write them. The AGE
 * column is the only part that depends on when the test runs; {@link #table} blanks it.
 */
class StatusCommandLiveTest {

  static final String STARTED = "2026-12-01T08:00:00Z";

  /** {@code status} with the shared server's kubeconfig and {@code args}. */
  static MainTest.Run status(String... args) {
    return MainTest.run(withKubeconfig("status", args));
  }

  static String[] withKubeconfig(String command, String... args) {
    return Stream.concat(
            Stream.of(command, "--kubeconfig", LiveApiServer.kubeconfig().toString()),
            Arrays.stream(args))
        .toArray(String[]::new);
  }

  /** The lines of {@code text} with each AGE cell (seconds since the JobSet was created) "AGE". */
  static List<String> table(String text) {
    return text.lines().map(l -> l.replaceAll("  \\d+s *  6f1c2d3", "  AGE  6f1c2d3")).toList();
  }

  /** A JobSet that completed, as the JobSet controller says it. */
  static void succeeded(String ns, String name) {
    LiveApiServer.condition(
        LiveApiServer.jobSet(ns, name, 1, true), "Completed", "AllJobsCompleted");
  }

  /** A JobSet that failed, as the JobSet controller says it. */
  static void failed(String ns, String name) {
    LiveApiServer.condition(
        LiveApiServer.jobSet(ns, name, 1, true), "Failed", "ReachedMaxRestarts");
  }

  /** A JobSet of two nodes whose pods run and are ready. */
  static void running(String ns, String name) {
    LiveApiServer.jobSet(ns, name, 2, true);
    LiveApiServer.running(LiveApiServer.pod(ns, name, 0, 0), STARTED);
    LiveApiServer.running(LiveApiServer.pod(ns, name, 1, 0), STARTED);
  }

  /** A JobSet whose one pod is not scheduled yet. */
  static GenericKubernetesResource starting(String ns, String name) {
    GenericKubernetesResource js = LiveApiServer.jobSet(ns, name, 1, true);
    LiveApiServer.pod(ns, name, 0, 0);
    return js;
  }

  @Test
  @DisplayName(
      "status -n NS: one table row per run, sorted by run, in the state the commit status shows; exit 0, nothing on stderr")
  void table() {
    String ns = LiveApiServer.namespace("table");
    succeeded(ns, "beta");
    starting(ns, "delta");
    running(ns, "eps");
    LiveApiServer.jobSet(ns, "zeta", 1, true);
    MainTest.Run r = status("-n", ns);
    assertEquals(0, r.exit(), r.err());
    assertEquals("", r.err());
    assertEquals(
        List.of(
            "RUN        STATE      QUEUE  NODES  ATTEMPT  PROGRESS  ETA  AGE  COMMIT   DESCRIPTION",
            "run-beta   succeeded  -      0/1    1/1      -         -    AGE  6f1c2d3  succeeded in 0s, attempt 1 of 1",
            "run-delta  starting   -      0/1    1/1      -         -    AGE  6f1c2d3  starting: waiting for nodes, attempt 1 of 1",
            "run-eps    running    -      2/2    1/1      -         -    AGE  6f1c2d3  running: 2 of 2 nodes ready, attempt 1 of 1",
            "run-zeta   admitted   -      0/1    1/1      -         -    AGE  6f1c2d3  admitted: no pods yet, attempt 1 of 1"),
        table(r.out()));
  }

  @Test
  @DisplayName(
      "--stall-after is the mapping's stall time: a run not started 1s after admission is stalled")
  void stallAfter() {
    String ns = LiveApiServer.namespace("stall");
    starting(ns, "delta");
    LiveApiServer.await("the run is older than 1s", () -> sleep(1100));
    MainTest.Run r = status("-n", ns, "--stall-after", "1s");
    assertEquals(0, r.exit(), r.err());
    assertEquals(
        List.of(
            "RUN        STATE               QUEUE  NODES  ATTEMPT  PROGRESS  ETA  AGE  COMMIT   DESCRIPTION",
            "run-delta  starting (stalled)  -      0/1    1/1      -         -    AGE  6f1c2d3  not started 1s after admission: waiting for nodes, attempt 1 of 1"),
        table(r.out()));
  }

  @Test
  @DisplayName(
      "--output json: the same runs as a JSON array (no age), namespace, JobSet, state and description per run")
  void json() throws Exception {
    String ns = LiveApiServer.namespace("json");
    failed(ns, "gamma");
    running(ns, "eps");
    MainTest.Run r = status("-n", ns, "-o", "json");
    assertEquals(0, r.exit(), r.err());
    assertEquals("", r.err());
    assertTrue(r.out().startsWith("[ {\n"), r.out());
    JsonNode runs = new ObjectMapper().readTree(r.out());
    assertEquals(2, runs.size(), r.out());
    assertEquals("run-eps", runs.get(0).path("run").asText());
    assertEquals("running", runs.get(0).path("state").asText());
    assertEquals(2, runs.get(0).path("nodes").path("ready").asInt());
    assertEquals("run-gamma", runs.get(1).path("run").asText());
    assertEquals(ns, runs.get(1).path("namespace").asText());
    assertEquals("gamma", runs.get(1).path("jobSet").asText());
    assertEquals("failed", runs.get(1).path("state").asText());
    assertEquals(
        "failed (platform error): JobSet failed (ReachedMaxRestarts), attempt 1 of 1",
        runs.get(1).path("description").asText());
  }

  @Test
  @DisplayName(
      "-A: runs of every namespace with a first NAMESPACE column; -A RUN finds the run in whichever namespace holds it")
  void allNamespaces() {
    String ns = LiveApiServer.namespace("every");
    String name = "solo-" + ns;
    succeeded(ns, name);
    MainTest.Run r = status("-A");
    assertEquals(0, r.exit(), r.err());
    List<String> lines = r.out().lines().toList();
    assertEquals(
        List.of("NAMESPACE", "RUN", "STATE", "QUEUE", "NODES", "ATTEMPT", "PROGRESS", "ETA", "AGE")
            .toString(),
        List.of(lines.get(0).split(" +")).subList(0, 9).toString());
    List<String> row =
        lines.stream()
            .filter(l -> l.startsWith(ns + " "))
            .map(l -> cells(l))
            .findFirst()
            .orElseThrow();
    assertEquals(
        List.of(ns, "run-" + name, "succeeded", "-", "0/1", "1/1", "-", "-"), row.subList(0, 8));
    assertEquals(List.of("6f1c2d3", "succeeded in 0s, attempt 1 of 1"), row.subList(9, row.size()));

    MainTest.Run one = status("-A", "run-" + name);
    assertEquals(0, one.exit(), one.err());
    assertEquals(2, one.out().lines().count(), one.out());
    assertTrue(one.out().startsWith("NAMESPACE"), one.out());
    assertEquals(ns, cells(one.out().lines().toList().get(1)).get(0));
  }

  private static List<String> cells(String line) {
    return List.of(line.trim().split(" {2,}"));
  }

  @Test
  @DisplayName(
      "status RUN finds a run by its run label or its JobSet name (the first by run label when both match): one row and exit 0, though it failed (without -w)")
  void namedRun() {
    String ns = LiveApiServer.namespace("named");
    failed(ns, "gamma");
    // JobSet "run-gamma" (run label "run-run-gamma") is named as gamma's run label: the run
    // sorted first by run label is the one shown.
    succeeded(ns, "run-gamma");
    List<String> expected =
        List.of(
            "RUN        STATE              QUEUE  NODES  ATTEMPT  PROGRESS  ETA  AGE  COMMIT   DESCRIPTION",
            "run-gamma  failed (platform)  -      0/1    1/1      -         -    AGE  6f1c2d3  failed (platform error): JobSet failed (ReachedMaxRestarts), attempt 1 of 1");
    for (String name : List.of("run-gamma", "gamma")) {
      MainTest.Run r = status("-n", ns, name);
      assertEquals(0, r.exit(), r.err());
      assertEquals("", r.err());
      assertEquals(expected, table(r.out()), name);
    }
  }

  @TempDir Path dir;

  @Test
  @DisplayName(
      "status RUN of a run that succeeded asks rank 0's log \"did it train?\" as the controller does (an empty log shows no step); --platform's untrained: failure fails it; a list reads no log")
  void succeededAsksDidItTrain() throws Exception {
    String ns = LiveApiServer.namespace("train");
    GenericKubernetesResource js = LiveApiServer.jobSet(ns, "done", 1, true);
    // Not scheduled: the API server answers its log with an empty text (no kubelet to ask).
    LiveApiServer.pod(ns, "done", 0, 0);
    LiveApiServer.condition(js, "Completed", "AllJobsCompleted");
    String header =
        "RUN       STATE      QUEUE  NODES  ATTEMPT  PROGRESS  ETA  AGE  COMMIT   DESCRIPTION";
    MainTest.Run list = status("-n", ns);
    assertEquals(
        List.of(
            header,
            "run-done  succeeded  -      0/1    1/1      -         -    AGE  6f1c2d3  succeeded in 0s, attempt 1 of 1"),
        table(list.out()));
    MainTest.Run named = status("-n", ns, "done");
    assertEquals(0, named.exit(), named.err());
    assertEquals(
        List.of(
            header,
            "run-done  succeeded  -      0/1    1/1      -         -    AGE  6f1c2d3  succeeded in 0s; no training step was seen — did it train? (attempt 1 of 1)"),
        table(named.out()));
    Path platform = dir.resolve("platform.yaml");
    Files.writeString(
        platform,
        StatusOptionsTest.PLATFORM.formatted(", status: {progress: {untrained: failure}}"));
    MainTest.Run strict = status("-n", ns, "done", "--platform", platform.toString(), "-w");
    assertEquals(1, strict.exit(), "-w of a run that failed: " + strict.err());
    assertEquals(
        List.of(
            "RUN       STATE          QUEUE  NODES  ATTEMPT  PROGRESS  ETA  AGE  COMMIT   DESCRIPTION",
            "run-done  failed (user)  -      0/1    1/1      -         -    AGE  6f1c2d3  failed: succeeded in 0s; no training step was seen — did it train? (attempt 1 of 1)"),
        table(strict.out()));
  }

  /** A recorded trainer log of the controller's test resources. */
  static String recorded(String name) throws Exception {
    try (var in = LiveKubelet.class.getResourceAsStream("/progress/" + name)) {
      return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  /**
   * A running run of two nodes on {@code kubelet}'s node, rank 0's log {@code log} at {@code at}.
   */
  static GenericKubernetesResource runningWithLog(
      String ns, String name, LiveKubelet kubelet, String log, Instant at) {
    GenericKubernetesResource js = LiveApiServer.jobSet(ns, name, 2, true);
    Pod zero = LiveApiServer.pod(ns, name, 0, 0, kubelet.node());
    LiveApiServer.running(zero, STARTED);
    LiveApiServer.running(LiveApiServer.pod(ns, name, 1, 0, kubelet.node()), STARTED);
    kubelet.log(ns, zero.getMetadata().getName(), log, at);
    return js;
  }

  @Test
  @DisplayName(
      "a running run's progress is read from rank 0's log (a recorded trainer log, served as the kubelet serves it): PROGRESS, the description, stalled after 30m without a line; status RUN adds its last metrics")
  void progress() throws Exception {
    String ns = LiveApiServer.namespace("progress");
    Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    try (LiveKubelet kubelet = LiveKubelet.start("kubelet-" + ns, dir.resolve("certs"))) {
      runningWithLog(ns, "fresh", kubelet, recorded("plain-steps.log"), now);
      runningWithLog(
          ns, "quiet", kubelet, recorded("plain-steps.log"), now.minus(Duration.ofMinutes(40)));
      MainTest.Run list = status("-n", ns);
      assertEquals(0, list.exit(), list.err());
      assertEquals(
          List.of(
              "RUN        STATE              QUEUE  NODES  ATTEMPT  PROGRESS       ETA  AGE  COMMIT   DESCRIPTION",
              "run-fresh  running            -      2/2    1/1      50/50 (100 %)  -    AGE  6f1c2d3  running: step 50/50 (100 %), loss 0.0008, attempt 1 of 1",
              "run-quiet  running (stalled)  -      2/2    1/1      50/50 (100 %)  -    AGE  6f1c2d3  stalled: no progress for 30m (last: step 50/50), attempt 1 of 1"),
          table(list.out()));
      MainTest.Run one = status("-n", ns, "fresh");
      assertEquals(0, one.exit(), one.err());
      assertEquals(
          List.of(
              "RUN        STATE    QUEUE  NODES  ATTEMPT  PROGRESS       ETA  AGE  COMMIT   DESCRIPTION",
              "run-fresh  running  -      2/2    1/1      50/50 (100 %)  -    AGE  6f1c2d3  running: step 50/50 (100 %), loss 0.0008, attempt 1 of 1",
              "",
              "metrics at step 50/50 (" + now + "): loss 0.0008"),
          table(one.out()));
      MainTest.Run json = status("-n", ns, "quiet", "-o", "json");
      JsonNode progress = new ObjectMapper().readTree(json.out()).get(0).path("progress");
      assertEquals(50, progress.path("step").asInt(), json.out());
      assertEquals(
          now.minus(Duration.ofMinutes(40)).toString(), progress.path("updatedAt").asText());
    }
  }

  @Test
  @DisplayName(
      "-w reads a running run's log again only after 30s (a new line within that redraws nothing); a run that is not running has its log not read")
  void progressReadOnce() throws Exception {
    String ns = LiveApiServer.namespace("reuse");
    Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    try (LiveKubelet kubelet = LiveKubelet.start("kubelet-" + ns, dir.resolve("certs"))) {
      String log = recorded("plain-steps.log");
      runningWithLog(ns, "fresh", kubelet, log, now);
      Watch watch = Watch.start("-n", ns, "fresh", "-w", "--interval", "50ms", "--timeout", "3s");
      LiveApiServer.await("the first draw", () -> watch.out().toString().contains("metrics at"));
      String pod = "fresh-node-0-0-a0";
      kubelet.log(ns, pod, log.replace("step 50/50 loss 0.0008", "step 50/50 loss 0.0001"), now);
      assertEquals(StatusCommand.EXIT_TIMEOUT, watch.await(), watch.err().toString());
      assertEquals(
          "metrics at step 50/50 (" + now + "): loss 0.0008",
          watch.out().toString().lines().reduce((a, b) -> b).orElseThrow(),
          "one draw, from the first read: " + watch.out());
      assertEquals(4, watch.out().toString().lines().count(), watch.out().toString());

      String ended = LiveApiServer.namespace("reuse-ended");
      LiveApiServer.condition(
          runningWithLog(ended, "done", kubelet, log, now), "Failed", "ReachedMaxRestarts");
      MainTest.Run r = status("-n", ended);
      assertEquals(0, r.exit(), r.err());
      List<String> row = cells(r.out().lines().toList().get(1));
      assertEquals(List.of("run-done", "failed (platform)"), row.subList(0, 2), r.out());
      assertEquals("-", row.get(5), "no PROGRESS read for a run that is not running: " + r.out());
    }
  }

  @Test
  @DisplayName(
      "--platform's status.progress is the controller's: its stallAfter (45m) keeps a run quiet for 40m running, its failStalledAfter (35m) fails it")
  void platformProgressSettings() throws Exception {
    String ns = LiveApiServer.namespace("limits");
    Instant quiet = Instant.now().truncatedTo(ChronoUnit.SECONDS).minus(Duration.ofMinutes(40));
    try (LiveKubelet kubelet = LiveKubelet.start("kubelet-" + ns, dir.resolve("certs"))) {
      runningWithLog(ns, "quiet", kubelet, recorded("plain-steps.log"), quiet);
      Path patient = dir.resolve("patient.yaml");
      Files.writeString(
          patient, StatusOptionsTest.PLATFORM.formatted(", status: {progress: {stallAfter: 45m}}"));
      Path strict = dir.resolve("strict.yaml");
      Files.writeString(
          strict,
          StatusOptionsTest.PLATFORM.formatted(
              ", status: {progress: {stallAfter: 30m, failStalledAfter: 35m}}"));
      MainTest.Run calm = status("-n", ns, "--platform", patient.toString());
      assertEquals(
          List.of(
              "RUN        STATE    QUEUE  NODES  ATTEMPT  PROGRESS       ETA  AGE  COMMIT   DESCRIPTION",
              "run-quiet  running  -      2/2    1/1      50/50 (100 %)  -    AGE  6f1c2d3  running: step 50/50 (100 %), loss 0.0008, attempt 1 of 1"),
          table(calm.out()));
      MainTest.Run failed = status("-n", ns, "--platform", strict.toString());
      assertEquals(
          List.of(
              "RUN        STATE          QUEUE  NODES  ATTEMPT  PROGRESS       ETA  AGE  COMMIT   DESCRIPTION",
              "run-quiet  failed (user)  -      2/2    1/1      50/50 (100 %)  -    AGE  6f1c2d3  failed: stalled, no progress for 35m (last: step 50/50), attempt 1 of 1"),
          table(failed.out()));
      MainTest.Run watched =
          status("-n", ns, "quiet", "-w", "--interval", "50ms", "--timeout", "500ms");
      assertEquals(StatusCommand.EXIT_TIMEOUT, watched.exit(), watched.err());
      assertEquals(4, watched.out().lines().count(), "drawn once: " + watched.out());
    }
  }

  @Test
  @DisplayName(
      "-A RUN of a run in two namespaces: exit 1, naming both, with a hint to pick the first with -n")
  void twoNamespaces() {
    String a = LiveApiServer.namespace("twin-a");
    String b = LiveApiServer.namespace("twin-b");
    String name = "twin-" + a;
    succeeded(b, name);
    succeeded(a, name);
    MainTest.Run r = status("-A", name);
    assertEquals(1, r.exit(), r.err());
    assertEquals("", r.out());
    assertEquals(
        List.of(
            "trainyard status: run \"" + name + "\" is in 2 namespaces: " + a + ", " + b,
            "  hint: pick one with `trainyard status " + name + " -n " + a + "`"),
        r.err().lines().toList());
  }

  @Test
  @DisplayName(
      "a run that is not there: exit 1 naming the namespace (the context's default, or * with -A) and how to list the runs")
  void notFound() {
    MainTest.Run r = status("nope");
    assertEquals(1, r.exit(), r.err());
    assertEquals("", r.out());
    assertEquals(
        List.of(
            "trainyard status: run \"nope\" not found in namespace \"default\"",
            "  hint: list the runs with `trainyard status -n default`"),
        r.err().lines().toList());
    String missing = "missing-" + LiveApiServer.namespace("nf");
    MainTest.Run all = status("-A", missing, "-w", "--interval", "50ms", "--appear-timeout", "3s");
    assertEquals(1, all.exit(), all.err());
    assertEquals(
        List.of(
            "trainyard status: run \""
                + missing
                + "\" is not in namespace \"*\" yet; waiting up to 3s for it to appear (a submit"
                + " reaches the cluster at the GitOps tool's next sync)",
            "trainyard status: run \""
                + missing
                + "\" not found in namespace \"*\" within --appear-timeout 3s",
            "  hint: list the runs with `trainyard status -A`"),
        all.err().lines().toList());
  }

  @Test
  @DisplayName(
      "a namespace without runs: the header, a two-line note naming it and pointing at -A; exit 0")
  void emptyNamespace() {
    String ns = LiveApiServer.namespace("empty");
    MainTest.Run r = status("-n", ns);
    assertEquals(0, r.exit(), r.err());
    assertEquals(
        "RUN  STATE  QUEUE  NODES  ATTEMPT  PROGRESS  ETA  AGE  COMMIT  DESCRIPTION\n", r.out());
    assertEquals(
        List.of(
            "trainyard status: no runs in namespace \"" + ns + "\" (or it does not exist)",
            "  hint: `trainyard status -A` lists the runs of every namespace"),
        r.err().lines().toList());
  }

  @Test
  @DisplayName(
      "-w of a list ends at --timeout with exit 0, though every run ended; the unchanged table is drawn once and the empty note said once")
  void listWatchTimesOut() {
    String ns = LiveApiServer.namespace("lw");
    succeeded(ns, "beta");
    MainTest.Run r = status("-n", ns, "-w", "--interval", "50ms", "--timeout", "400ms");
    assertEquals(0, r.exit(), r.err());
    assertEquals(
        List.of(
            "RUN       STATE      QUEUE  NODES  ATTEMPT  PROGRESS  ETA  AGE  COMMIT   DESCRIPTION",
            "run-beta  succeeded  -      0/1    1/1      -         -    AGE  6f1c2d3  succeeded in 0s, attempt 1 of 1"),
        table(r.out()));
    assertEquals(
        List.of("trainyard status: --timeout 400ms passed before the watch ended"),
        r.err().lines().toList());

    String empty = LiveApiServer.namespace("lw-empty");
    MainTest.Run none = status("-n", empty, "-w", "--interval", "50ms", "--timeout", "300ms");
    assertEquals(0, none.exit(), none.err());
    assertEquals(
        List.of(
            "trainyard status: no runs in namespace \"" + empty + "\" (or it does not exist)",
            "  hint: `trainyard status -A` lists the runs of every namespace",
            "trainyard status: --timeout 300ms passed before the watch ended"),
        none.err().lines().toList());
  }

  @Test
  @DisplayName(
      "RUN -w ends with the run: exit 0 when it succeeded, 1 when it failed, at once when it had already ended")
  void watchEndsWithTheRun() {
    String ns = LiveApiServer.namespace("we");
    succeeded(ns, "beta");
    failed(ns, "gamma");
    MainTest.Run ok = status("-n", ns, "beta", "-w", "--timeout", "1m");
    assertEquals(0, ok.exit(), ok.err());
    assertEquals("", ok.err());
    assertEquals(2, ok.out().lines().count(), ok.out());
    MainTest.Run bad = status("-n", ns, "gamma", "-w", "--timeout", "1m");
    assertEquals(1, bad.exit(), bad.err());
    assertEquals("", bad.err());
    assertEquals(2, bad.out().lines().count(), bad.out());
  }

  @Test
  @DisplayName(
      "RUN -w past --timeout before the run ended: exit 3 (as kubectl wait), one line naming the run")
  void watchTimesOut() {
    String ns = LiveApiServer.namespace("wt");
    starting(ns, "delta");
    MainTest.Run r = status("-n", ns, "delta", "-w", "--interval", "50ms", "--timeout", "300ms");
    assertEquals(StatusCommand.EXIT_TIMEOUT, r.exit(), r.err());
    assertEquals(
        List.of("trainyard status: --timeout 300ms passed before run \"delta\" ended"),
        r.err().lines().toList());
    assertEquals(2, r.out().lines().count(), r.out());
  }

  @Test
  @DisplayName(
      "RUN -w of a run not there yet waits --appear-timeout, saying so once, then exits 1 naming the timeout")
  void appearTimeout() {
    String ns = LiveApiServer.namespace("at");
    long start = System.nanoTime();
    MainTest.Run r = status("-n", ns, "late", "-w", "--interval", "50ms", "--appear-timeout", "3s");
    assertTrue(Duration.ofNanos(System.nanoTime() - start).toMillis() >= 3000);
    assertEquals(1, r.exit(), r.err());
    assertEquals("", r.out());
    assertEquals(
        List.of(
            "trainyard status: run \"late\" is not in namespace \""
                + ns
                + "\" yet; waiting up to 3s for it to appear (a submit reaches the cluster at"
                + " the GitOps tool's next sync)",
            "trainyard status: run \"late\" not found in namespace \""
                + ns
                + "\" within --appear-timeout 3s",
            "  hint: list the runs with `trainyard status -n " + ns + "`"),
        r.err().lines().toList());
  }

  @Test
  @DisplayName("--appear-timeout longer than --timeout waits only --timeout")
  void appearTimeoutCappedByTimeout() {
    String ns = LiveApiServer.namespace("cap");
    long start = System.nanoTime();
    MainTest.Run r = status("-n", ns, "late", "-w", "--interval", "50ms", "--timeout", "5s");
    assertTrue(
        Duration.ofNanos(System.nanoTime() - start).compareTo(Duration.ofSeconds(20)) < 0,
        "not the default 10m");
    assertEquals(1, r.exit(), r.err());
    assertTrue(
        r.err().contains("not found in namespace \"" + ns + "\" within --appear-timeout 10m\n"),
        r.err());
  }

  /** {@code status} in a thread of its own, its output readable while it runs. */
  record Watch(StringWriter out, StringWriter err, CompletableFuture<Integer> exit) {
    static Watch start(String... args) {
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      String[] all = withKubeconfig("status", args);
      return new Watch(
          out,
          err,
          CompletableFuture.supplyAsync(
              () -> Main.run(new PrintWriter(out), new PrintWriter(err), all)));
    }

    int await() throws Exception {
      return exit.get(60, TimeUnit.SECONDS);
    }
  }

  @Test
  @DisplayName(
      "RUN -w that waited for the run to appear redraws the table on each change (a blank line between; JSON arrays one after the other) and ends with it")
  void watchRedraws() throws Exception {
    String ns = LiveApiServer.namespace("redraw");
    Watch table =
        Watch.start("-n", ns, "late", "-w", "--interval", "50ms", "--appear-timeout", "1m");
    Watch json =
        Watch.start(
            "-n", ns, "late", "-w", "--interval", "50ms", "-o", "json", "--appear-timeout", "1m");
    LiveApiServer.await(
        "both wait",
        () -> table.err().toString().contains("yet;") && json.err().toString().contains("yet;"));
    GenericKubernetesResource js = starting(ns, "late");
    LiveApiServer.await(
        "both drew the starting run",
        () ->
            table.out().toString().contains("starting")
                && json.out().toString().contains("starting"));
    sleep(300);
    LiveApiServer.condition(js, "Completed", "AllJobsCompleted");
    assertEquals(0, table.await(), table.err().toString());
    assertEquals(0, json.await(), json.err().toString());
    assertEquals(1, table.err().toString().lines().count(), table.err().toString());
    String drawn = table.out().toString();
    List<String> lines = table(drawn);
    assertEquals(HEADER_LATE, lines.get(0));
    assertTrue(drawn.contains(" ago\n\nRUN ") || drawn.contains("of 1\n\nRUN "), drawn);
    assertTrue(
        lines.get(lines.size() - 1).startsWith("run-late  succeeded  -      0/1    1/1"), drawn);
    assertTrue(drawn.split("\n\n", -1).length >= 2, drawn);
    assertTrue(drawn.endsWith("did it train? (attempt 1 of 1)\n"), drawn);
    String arrays = json.out().toString();
    assertTrue(arrays.startsWith("[ {"), arrays);
    assertTrue(arrays.contains("} ]\n[ {"), arrays);
    assertTrue(!arrays.contains("\n\n"), "no blank line between JSON arrays: " + arrays);
    assertTrue(arrays.endsWith("\"state\" : \"succeeded\"\n} ]\n"), arrays);
  }

  static final String HEADER_LATE =
      "RUN       STATE     QUEUE  NODES  ATTEMPT  PROGRESS  ETA  AGE  COMMIT   DESCRIPTION";

  @Test
  @DisplayName("--interval, --timeout or --stall-after that is no duration: usage error (exit 2)")
  void badDurations() {
    for (String option : List.of("--interval", "--timeout", "--stall-after")) {
      MainTest.Run r = status(option, "soon");
      assertEquals(2, r.exit(), option + ": " + r.err());
      assertEquals(
          List.of(
              "trainyard: "
                  + option
                  + " 'soon' is not a duration like 500ms, 90s, 10m, 1h or 1h30m (at most 36500d)",
              "Try 'trainyard status --help' for more information."),
          r.err().lines().toList(),
          option);
    }
  }

  private static boolean sleep(long millis) {
    try {
      Thread.sleep(millis);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
