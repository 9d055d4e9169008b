package dev.trainyard.cluster;

import static dev.trainyard.cluster.StatusRuns.lines;
import static dev.trainyard.cluster.StatusRuns.posts;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.trainyard.controller.RunReader;
import dev.trainyard.controller.forge.FakeForge;
import dev.trainyard.controller.state.Resumed;
import dev.trainyard.controller.state.RunStateMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Progress on the commit from a real trainer's output: the tqdm bar rank 0 printed under torch DDP
 * (recorded, {@code controller/src/test/resources/progress/tqdm-ddp.log}) is served by kwok as node
 * 0's container log, update by update, while the run's pods run on the harness (kube-apiserver,
 * JobSet, kwok); the controller, as its own process, follows that log and posts to the fake forge,
 * which checks GitHub's contract. The posts are exactly: running, the first step, each 10 %, the
 * end.
 */
@ExtendWith(KubeClusterExtension.class)
class ProgressIT {

  static final Duration TIMEOUT = Duration.ofSeconds(60);
  static final Pattern PERCENT = Pattern.compile("^\\s*(\\d{1,3})%\\|");
  final FakeForge forge = FakeForge.start();
  final List<ControllerProcess> controllers = new ArrayList<>();

  @AfterEach
  void stop() {
    controllers.forEach(ControllerProcess::close);
    forge.close();
  }

  static String fixture(String name) {
    try (InputStream in = ProgressIT.class.getResourceAsStream("/progress/" + name)) {
      if (in == null) {
        throw new IllegalStateException("no fixture /progress/" + name + " on the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  void awaitPosts(String what, String sha, int count, ControllerProcess c) {
    awaitPosts(what, sha, count, c, TIMEOUT);
  }

  void awaitPosts(String what, String sha, int count, ControllerProcess c, Duration timeout) {
    Eventually.await(
        what,
        timeout,
        () -> {
          c.requireAlive();
          return posts(forge, sha).size() >= count;
        },
        () ->
            "posts: "
                + lines(posts(forge, sha))
                + "\nrejected: "
                + forge.rejected()
                + "\nlog:\n"
                + c.log());
  }

  /**
   * Waits for a post whose description contains {@code fragment}: under load the controller may
   * post a transient state first (e.g. "admitted: no pods yet"), so counting posts is not enough.
   */
  void awaitPosted(
      String what, String sha, String fragment, ControllerProcess c, Duration timeout) {
    Eventually.await(
        what,
        timeout,
        () -> {
          c.requireAlive();
          return lines(posts(forge, sha)).stream().anyMatch(l -> l.contains(fragment));
        },
        () -> "posts: " + lines(posts(forge, sha)) + "\nlog:\n" + c.log());
  }

  /**
   * The posts of {@code sha} without the transient "admitted: no pods yet" a loaded cluster shows.
   */
  List<String> postedOnceRunning(String sha) {
    return lines(posts(forge, sha)).stream()
        .filter(l -> !l.contains("admitted: no pods yet"))
        .toList();
  }

  @Test
  @DisplayName(
      "a recorded tqdm bar (torch DDP, 40 steps, \\r updates) served as node 0's log: 13 posts, running, 0 %, each 10 % with the bar's ETA, success")
  void tqdmBarOnTheCommit(KubeCluster cluster) {
    assumeLogsServed(cluster);
    String ns = cluster.newNamespace();
    String tag = "prog";
    String sha = StatusRuns.sha("prog-tqdm");
    applyRun(cluster, ns, tag, "prog-tqdm", "60s", null);
    // No stall while the pods run on after the bar's last update (kwok ends them at 60 s).
    ControllerProcess c =
        controller(
            cluster,
            tag,
            ns,
            new ControllerProcess.Tuning(
                Duration.ofSeconds(60), Duration.ofSeconds(2), "128m", Duration.ofMinutes(10)));
    awaitPosts("running", sha, 1, c);
    Pod node0 = node0(cluster, ns, "prog-tqdm");
    Path file = logFile(ns, node0);
    String recorded = fixture("tqdm-ddp.log");
    String[] lines = recorded.split("\n", -1);
    // The torchrun banner: whole lines.
    int bar = 0;
    while (!lines[bar].contains("\r")) {
      KwokLogs.append(file, Instant.now(), lines[bar]);
      bar++;
    }
    serve(cluster, ns, node0, file);
    int expected = 1;
    int lastBucket = -1;
    for (String update : lines[bar].split("(?=\r)")) {
      KwokLogs.appendPartial(file, Instant.now(), update);
      Matcher m = PERCENT.matcher(update.substring(1));
      if (!m.find()) {
        continue;
      }
      int bucket = Integer.parseInt(m.group(1)) / 10;
      if (bucket > lastBucket) {
        lastBucket = bucket;
        expected++;
        awaitPosts(update.strip(), sha, expected, c);
      }
    }
    KwokLogs.append(file, Instant.now(), "");
    for (int i = bar + 1; i < lines.length; i++) {
      if (!lines[i].isEmpty()) {
        KwokLogs.append(file, Instant.now(), lines[i]);
      }
    }
    awaitPosts("the end (the pods run 60 s)", sha, expected + 1, c, Duration.ofSeconds(150));
    List<String> posted = lines(posts(forge, sha));
    System.out.println("[ProgressIT] posts:\n  " + String.join("\n  ", posted));
    String attempt = attempt(posted);
    List<String> want = new ArrayList<>();
    want.add("pending | running: 2 of 2 nodes ready" + attempt);
    want.add("pending | running: step 0/40 (0 %)" + attempt);
    String[] eta = {"2s", "1s", "1s", "1s", "1s", "0s", "0s", "0s", "0s", "0s"};
    for (int pct = 10; pct <= 100; pct += 10) {
      want.add(
          "pending | running: step "
              + pct * 40 / 100
              + "/40 ("
              + pct
              + " %), ETA "
              + eta[pct / 10 - 1]
              + attempt);
    }
    assertEquals(want, posted.subList(0, posted.size() - 1));
    assertTrue(
        posted.get(posted.size() - 1).matches("success \\| succeeded in .*" + attempt),
        posted.toString());
    assertEquals(13, posted.size());
  }

  /** Node 0's pod of {@code run} in {@code ns}, whose log kwok serves from a file. */
  static Pod node0(KubeCluster cluster, String ns, String run) {
    return runPods(cluster, ns, run).stream()
        .min(Comparator.comparing(p -> p.getMetadata().getName()))
        .orElseThrow();
  }

  static List<Pod> runPods(KubeCluster cluster, String ns, String run) {
    return cluster
        .client()
        .pods()
        .inNamespace(ns)
        .withLabel("jobset.sigs.k8s.io/jobset-name", run)
        .list()
        .getItems();
  }

  /** The file kwok serves as {@code pod}'s log (its folder made). */
  static Path logFile(String ns, Pod pod) {
    return LocalCluster.mkdirs(
            Path.of(System.getProperty("trainyard.work.dir", "target/cluster"))
                .toAbsolutePath()
                .resolve("kwok-logs")
                .resolve(ns))
        .resolve(pod.getMetadata().getName() + ".log");
  }

  /** kwok serves {@code file} as the log of {@code pod}'s first container. */
  static void serve(KubeCluster cluster, String ns, Pod pod, Path file) {
    KwokLogs.serve(
        cluster.client(),
        ns,
        pod.getMetadata().getName(),
        pod.getSpec().getContainers().get(0).getName(),
        file);
  }

  /** Node 0's pod of {@code run} in {@code ns} and the file kwok serves as its log. */
  static Path servedLog(KubeCluster cluster, String ns, String run) {
    Pod node0 = node0(cluster, ns, run);
    Path file = logFile(ns, node0);
    KwokLogs.append(file, Instant.now(), "");
    serve(cluster, ns, node0, file);
    return file;
  }

  static void assumeLogsServed(KubeCluster cluster) {
    assumeTrue(
        cluster.runs(Component.KWOK) && KwokLogs.served(cluster.client()),
        "NOT RUN: no container logs to serve:"
            + " kwok's Logs CRD is not served (an existing cluster, or sigs.k8s.io/kwok not in the Go module cache)");
  }

  /** A 2-node run of {@link StatusRuns} whose pods kwok runs for {@code duration}. */
  static void applyRun(
      KubeCluster cluster, String ns, String tag, String name, String duration, String queue) {
    Manifests manifests = new Manifests(cluster.client());
    manifests.apply(
        manifests.placed(
            StatusRuns.run(
                name,
                ControllerProcess.host("github", tag),
                StatusRuns.sha(name),
                "slow",
                duration,
                queue),
            ns));
  }

  /** The controller as its own process, posting {@code tag}'s runs; stopped after the test. */
  ControllerProcess controller(
      KubeCluster cluster, String tag, String ns, ControllerProcess.Tuning tuning) {
    ControllerProcess c = ControllerProcess.start(cluster, forge, tag, ns, tag + "-0", tuning);
    controllers.add(c);
    return c;
  }

  ControllerProcess controller(KubeCluster cluster, String tag, String ns) {
    ControllerProcess c =
        ControllerProcess.start(cluster, forge, tag, ns, tag + "-0", Duration.ofSeconds(60));
    controllers.add(c);
    return c;
  }

  /** Waits until both pods of {@code name} exist. */
  static void awaitPods(KubeCluster cluster, String ns, String name) {
    Eventually.await(name + "'s pods", TIMEOUT, () -> runPods(cluster, ns, name).size() == 2);
  }

  /** Waits (150 s) until {@code sha} has a post of {@code state}. */
  void awaitState(String what, String sha, String state, ControllerProcess c) {
    Eventually.await(
        what,
        Duration.ofSeconds(150),
        () -> posts(forge, sha).stream().anyMatch(p -> p.state().equals(state)),
        () -> lines(posts(forge, sha)) + "\n" + c.log());
  }

  /**
   * Once both pods of {@code name} exist, node 0's log is the recorded {@code fixture}, whole lines
   * without carriage returns.
   */
  static void servedRecording(KubeCluster cluster, String ns, String name, String fixture) {
    awaitPods(cluster, ns, name);
    Path file = servedLog(cluster, ns, name);
    for (String line : fixture(fixture).split("\n")) {
      KwokLogs.append(file, Instant.now(), line.replace("\r", ""));
    }
  }

  /** A run the controller follows, posted running, with node 0's log served from {@code log}. */
  record Running(String ns, String sha, ControllerProcess controller, Path log) {}

  /**
   * A 2-node run {@code name} of 600 s in a new namespace, the controller following it; returns
   * once it is posted running and node 0's log is served.
   */
  Running running(KubeCluster cluster, String tag, String name) {
    String ns = cluster.newNamespace();
    String sha = StatusRuns.sha(name);
    applyRun(cluster, ns, tag, name, "600s", null);
    ControllerProcess c = controller(cluster, tag, ns);
    awaitPosts("running", sha, 1, c);
    return new Running(ns, sha, c, servedLog(cluster, ns, name));
  }

  /** The ", attempt N of M" every description ends with, from the first post. */
  static String attempt(List<String> posted) {
    return posted.get(0).substring(posted.get(0).lastIndexOf(", attempt "));
  }

  @Test
  @DisplayName(
      "a loop that printed its first recorded step and hung: stalled after status.progress.stallAfter (20 s here) naming the last step, once; running again when the next step comes")
  void stalledThenMovingAgain(KubeCluster cluster) {
    assumeLogsServed(cluster);
    Running started = running(cluster, "stall", "prog-stall");
    String sha = started.sha();
    ControllerProcess c = started.controller();
    Path file = started.log();
    List<String> recorded = fixture("plain-steps.log").lines().toList();
    awaitPosted("nodes ready", sha, "running: 2 of 2 nodes ready", c, TIMEOUT);
    KwokLogs.append(file, Instant.now(), recorded.get(0));
    awaitPosted("the first step", sha, "step 5/50", c, TIMEOUT);
    Instant first = Instant.now();
    awaitPosted("stalled", sha, "stalled: ", c, Duration.ofSeconds(90));
    Duration after = Duration.between(first, Instant.now());
    KwokLogs.append(file, Instant.now(), recorded.get(1));
    awaitPosted("moving again", sha, "step 10/50", c, TIMEOUT);
    List<String> posted = postedOnceRunning(sha);
    System.out.println(
        "[ProgressIT] stall posted "
            + after.toSeconds()
            + " s after the first step (stallAfter 20 s, resync 2 s):\n  "
            + String.join("\n  ", posted));
    String attempt = attempt(posted);
    assertEquals(
        List.of(
            "pending | running: 2 of 2 nodes ready" + attempt,
            "pending | running: step 5/50 (10 %), loss 2.7186" + attempt,
            "pending | stalled: no progress for 20s (last: step 5/50)" + attempt,
            "pending | running: step 10/50 (20 %), loss 0.9654" + attempt),
        posted);
    assertTrue(after.compareTo(ControllerProcess.PROGRESS_STALL) >= 0, after.toString());
  }

  @Test
  @DisplayName(
      "a resumed attempt: the checkpoint script's recorded line, then 150 lines of setup (past the follow's 100-line tail), then a step: the commit says 'resumed from step 20 (checkpoint of …)', and trainyard status says the same")
  void resumedOnTheCommit(KubeCluster cluster) {
    assumeLogsServed(cluster);
    Running started = running(cluster, "resume", "prog-resume");
    String ns = started.ns();
    String sha = started.sha();
    ControllerProcess c = started.controller();
    Path file = started.log();
    String line =
        fixture("checkpoint-resume.log")
            .lines()
            .filter(l -> l.contains(" resumes from "))
            .findFirst()
            .orElseThrow();
    KwokLogs.append(file, Instant.now(), line);
    for (int i = 0; i < 150; i++) {
      KwokLogs.append(file, Instant.now(), "Collecting package-" + i);
    }
    KwokLogs.append(file, Instant.now(), fixture("plain-steps.log").lines().findFirst().get());
    String resumed = Resumed.parse(line).orElseThrow().describe();
    Eventually.await(
        "the resume on the commit",
        TIMEOUT,
        () ->
            lines(posts(forge, sha)).stream().anyMatch(l -> l.contains("loss 2.7186, " + resumed)),
        () -> "posts: " + lines(posts(forge, sha)) + "\nlog:\n" + c.log());
    List<String> posted = lines(posts(forge, sha));
    System.out.println("[ProgressIT] resumed posts:\n  " + String.join("\n  ", posted));
    String attempt = attempt(posted);
    assertEquals("pending | running: 2 of 2 nodes ready" + attempt, posted.get(0));
    assertEquals(
        "pending | running: step 5/50 (10 %), loss 2.7186, " + resumed + attempt,
        posted.get(posted.size() - 1));
    // Not closed: closing a RunReader closes the cluster's shared client.
    var reader = new RunReader(cluster.client(), Clock.systemUTC());
    var run = reader.get(ns, "prog-resume").orElseThrow();
    String status =
        new RunStateMapper(Duration.ofSeconds(60))
            .map(
                run.observation()
                    .withProgress(reader.progress(run))
                    .withResumed(reader.resumed(run)))
            .description();
    assertEquals("running: step 5/50 (10 %), loss 2.7186, " + resumed + attempt, status);
  }

  @Test
  @DisplayName(
      "a real program that trained nothing, served as node 0's log of a 2-node run that succeeds:"
          + " minGPT-DDP's exit 0 without GPUs (recorded) asks 'no training step was seen — did it"
          + " train?' and stays success")
  void succeededWithoutTraining(KubeCluster cluster) {
    assumeLogsServed(cluster);
    String ns = cluster.newNamespace();
    String tag = "untrained";
    String name = "prog-exit-zero";
    applyRun(cluster, ns, tag, name, "25s", null);
    ControllerProcess c = controller(cluster, tag, ns);
    servedRecording(cluster, ns, name, "exit-zero.log");
    awaitState(name + " ends", StatusRuns.sha(name), "success", c);
    List<String> zero = lines(posts(forge, StatusRuns.sha(name)));
    System.out.println("[ProgressIT] untrained:\n  " + String.join("\n  ", zero));
    assertTrue(
        zero.get(zero.size() - 1)
            .matches(
                "success \\| succeeded in \\d+s; no training step was seen — did it train\\?"
                    + " \\(attempt 1 of 1\\)"),
        zero.toString());
  }

  @Test
  @DisplayName(
      "failStalledAfter (30 s here): a Kueue-admitted run stalled after its first recorded step is"
          + " posted stalled, then failed naming the limit, and stopped: its Workload deactivated,"
          + " Kueue suspends the JobSet and its pods go; the JobSet stays")
  void stalledPastTheLimitIsFailedAndStopped(KubeCluster cluster) {
    assumeLogsServed(cluster);
    assumeTrue(cluster.runs(Component.KUEUE_CONTROLLER), "NOT RUN: Kueue is not in this cluster");
    String ns = cluster.newNamespace();
    String tag = "stallfail";
    String name = "prog-stallfail";
    String sha = StatusRuns.sha(name);
    Manifests manifests = new Manifests(cluster.client());
    for (GenericKubernetesResource o : KueueIT.queueObjects(tag, "8")) {
      manifests.apply(manifests.placed(o, ns));
    }
    applyRun(cluster, ns, tag, name, "600s", tag + "-lq");
    ControllerProcess c =
        controller(
            cluster,
            tag,
            ns,
            new ControllerProcess.Tuning(
                Duration.ofSeconds(60),
                Duration.ofSeconds(2),
                "128m",
                ControllerProcess.PROGRESS_STALL,
                Duration.ofSeconds(30)));
    Eventually.await(
        "running",
        Duration.ofSeconds(90),
        () -> lines(posts(forge, sha)).stream().anyMatch(l -> l.contains("running: 2 of 2 nodes")),
        () -> lines(posts(forge, sha)) + "\n" + c.log());
    Path file = servedLog(cluster, ns, name);
    KwokLogs.append(
        file, Instant.now(), fixture("plain-steps.log").lines().findFirst().orElseThrow());
    awaitState("stalled, then failed", sha, "failure", c);
    List<String> posted = lines(posts(forge, sha));
    System.out.println("[ProgressIT] stalled past the limit:\n  " + String.join("\n  ", posted));
    String attempt = attempt(posted);
    assertEquals(
        List.of(
            "pending | running: 2 of 2 nodes ready" + attempt,
            "pending | running: step 5/50 (10 %), loss 2.7186" + attempt,
            "pending | stalled: no progress for 20s (last: step 5/50)" + attempt,
            "failure | failed: stalled, no progress for 30s (last: step 5/50)" + attempt),
        posted.subList(posted.size() - 4, posted.size()),
        "after a queued post, if Kueue took 15 s or more");
    var workloads =
        cluster
            .client()
            .genericKubernetesResources("kueue.x-k8s.io/v1beta2", "Workload")
            .inNamespace(ns);
    Eventually.await(
        "the Workload deactivated and the pods gone",
        Duration.ofSeconds(90),
        () ->
            workloads.list().getItems().stream()
                    .allMatch(
                        w ->
                            Boolean.FALSE.equals(
                                ((Map<?, ?>) w.getAdditionalProperties().get("spec"))
                                    .get("active")))
                && !workloads.list().getItems().isEmpty()
                && runPods(cluster, ns, name).isEmpty(),
        () -> c.log());
    assertTrue(
        JobSets.api(cluster.client()).inNamespace(ns).withName(name).get() != null,
        "the JobSet stays as git has it");
    assertEquals(posted, lines(posts(forge, sha)), "nothing posted after the failure");
  }

  @Test
  @DisplayName(
      "Accelerate started with python on each of 2 nodes (recorded: Num processes: 1, then its"
          + " steps), served as node 0's log: the success asks 'did it train alone?'")
  void succeededAlone(KubeCluster cluster) {
    assumeLogsServed(cluster);
    String ns = cluster.newNamespace();
    String tag = "alone";
    String name = "prog-alone";
    String sha = StatusRuns.sha(name);
    applyRun(cluster, ns, tag, name, "25s", null);
    ControllerProcess c = controller(cluster, tag, ns);
    servedRecording(cluster, ns, name, "accelerate-alone.log");
    awaitState(name + " ends", sha, "success", c);
    List<String> alone = lines(posts(forge, sha));
    assertTrue(
        alone
            .get(alone.size() - 1)
            .matches(
                "success \\| succeeded in \\d+s; rank 0 printed world size 1, not 2 — did it train"
                    + " alone\\? \\(attempt 1 of 1\\)"),
        alone.toString());
  }
}
