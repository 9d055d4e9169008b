package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.trainyard.controller.LiveApiServer;
import dev.trainyard.controller.LiveKubelet;
import io.fabric8.kubernetes.api.model.Pod;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code trainyard logs} run in-process against a real API server ({@link LiveApiServer}). A bare
 * API server has no kubelet: a pod not bound to a node has an empty log, a log of a pod bound to a
 * Node whose kubelet port is closed is the API server's 5xx, and {@link LiveKubelet} serves a
 * recorded log for pods on its node, as a kubelet would.
 */
class LogsCommandLiveTest {

  static MainTest.Run logs(String... args) {
    return MainTest.run(StatusCommandLiveTest.withKubeconfig("logs", args));
  }

  @Test
  @DisplayName("--node with --all, a negative --node or a --timeout that is no duration: exit 2")
  void usage() {
    MainTest.Run both = logs("r", "--all", "--node", "1");
    assertEquals(2, both.exit());
    assertEquals(
        List.of(
            "trainyard: --node and --all exclude each other",
            "Try 'trainyard logs --help' for more information."),
        both.err().lines().toList());
    MainTest.Run negative = logs("r", "--node", "-1");
    assertEquals(2, negative.exit());
    assertEquals(
        List.of(
            "trainyard: --node must be a node index, 0 or more, got -1",
            "Try 'trainyard logs --help' for more information."),
        negative.err().lines().toList());
    MainTest.Run timeout = logs("r", "--timeout", "soon");
    assertEquals(2, timeout.exit());
    assertEquals(
        List.of(
            "trainyard: --timeout 'soon' is not a duration like 500ms, 90s, 10m, 1h or 1h30m (at most 36500d)",
            "Try 'trainyard logs --help' for more information."),
        timeout.err().lines().toList());
  }

  @Test
  @DisplayName(
      "a run that is not there: exit 1 naming the namespace (the context's default without -n) and how to list the runs")
  void notFound() {
    MainTest.Run r = logs("nope");
    assertEquals(1, r.exit());
    assertEquals("", r.out());
    assertEquals(
        List.of(
            "trainyard logs: run \"nope\" not found in namespace \"default\"",
            "  hint: list the runs with `trainyard status -n default`"),
        r.err().lines().toList());
  }

  @Test
  @DisplayName(
      "node 0 by default (as --node 0), one node with --node, each line prefixed by its node; a pod on no node says so; exit 0")
  void choosesThePod() {
    String ns = LiveApiServer.namespace("logs");
    StatusCommandLiveTest.running(ns, "eps");
    MainTest.Run zero = logs("eps", "-n", ns);
    assertEquals(0, zero.exit(), zero.err());
    assertEquals("", zero.err());
    assertEquals(
        "[node-0] (no logs yet: pod eps-node-0-0-a0 is not scheduled on a node)\n", zero.out());
    MainTest.Run first = logs("eps", "-n", ns, "--node", "0");
    assertEquals(0, first.exit(), first.err());
    assertEquals(zero.out(), first.out());
    MainTest.Run one = logs("eps", "-n", ns, "--node", "1");
    assertEquals(0, one.exit(), one.err());
    assertEquals(
        "[node-1] (no logs yet: pod eps-node-0-1-a0 is not scheduled on a node)\n", one.out());
    MainTest.Run all = logs("eps", "-n", ns, "--all");
    assertEquals(0, all.exit(), all.err());
    assertEquals(
        "[node-0] (no logs yet: pod eps-node-0-0-a0 is not scheduled on a node)\n"
            + "[node-1] (no logs yet: pod eps-node-0-1-a0 is not scheduled on a node)\n",
        all.out());
  }

  @Test
  @DisplayName(
      "--node N the run lacks: exit 1 naming the nodes it has, or that it has no node pods yet")
  void noSuchNode() {
    String ns = LiveApiServer.namespace("nonode");
    StatusCommandLiveTest.running(ns, "eps");
    LiveApiServer.jobSet(ns, "zeta", 1, true);
    MainTest.Run five = logs("eps", "-n", ns, "--node", "5");
    assertEquals(1, five.exit());
    assertEquals("", five.out());
    assertEquals(
        List.of("trainyard logs: run \"eps\" has no node 5; the run has nodes 0–1"),
        five.err().lines().toList());
    MainTest.Run none = logs("zeta", "-n", ns, "--node", "3");
    assertEquals(1, none.exit());
    assertEquals(
        List.of("trainyard logs: run \"zeta\" has no node 3 (no node pods yet)"),
        none.err().lines().toList());
  }

  @Test
  @DisplayName(
      "a run whose current attempt has no pod (it ended, or none was created): exit 1 with a hint; -f of an ended run does not wait")
  void noPod() {
    String ns = LiveApiServer.namespace("nopod");
    StatusCommandLiveTest.succeeded(ns, "beta");
    for (String[] args :
        new String[][] {{"beta", "-n", ns}, {"beta", "-n", ns, "-f", "--timeout", "1m"}}) {
      MainTest.Run r = logs(args);
      assertEquals(1, r.exit(), r.err());
      assertEquals(
          List.of(
              "trainyard logs: run \"beta\" has no pod in its current attempt",
              "  hint: `trainyard status beta` shows whether it has started"),
          r.err().lines().toList());
    }
  }

  @Test
  @DisplayName(
      "a pod not started (Pending): exit 1 saying so without -f; with --all its line is printed instead")
  void notStarted() {
    String ns = LiveApiServer.namespace("pending");
    StatusCommandLiveTest.starting(ns, "delta");
    MainTest.Run r = logs("delta", "-n", ns);
    assertEquals(1, r.exit());
    assertEquals("", r.out());
    assertEquals(
        List.of(
            "trainyard logs: node-0 has not started (Pending)",
            "  hint: `trainyard status delta` shows what it waits for; `logs -f` waits for it"),
        r.err().lines().toList());
    MainTest.Run all = logs("delta", "-n", ns, "--all");
    assertEquals(0, all.exit(), all.err());
    assertEquals(
        "[node-0] (no logs yet: pod delta-node-0-0-a0 is not scheduled on a node)\n", all.out());
  }

  @Test
  @DisplayName(
      "-f waits for the pod to start or the pods to be created, one line saying so, and exits 1 when --timeout passes first")
  void followWaitsThenTimesOut() {
    String ns = LiveApiServer.namespace("wait");
    StatusCommandLiveTest.starting(ns, "delta");
    LiveApiServer.jobSet(ns, "zeta", 1, true);
    MainTest.Run pending = logs("delta", "-n", ns, "-f", "--timeout", "1500ms");
    assertEquals(1, pending.exit());
    assertEquals(
        List.of(
            "trainyard logs: waiting for node-0 to start (Pending) (up to --timeout 1500ms)",
            "trainyard logs: node-0 has not started (Pending) after --timeout 1500ms",
            "  hint: `trainyard status delta` shows what it waits for; `logs -f` waits for it"),
        pending.err().lines().toList());
    MainTest.Run none = logs("zeta", "-n", ns, "-f", "--timeout", "1500ms");
    assertEquals(1, none.exit());
    assertEquals(
        List.of(
            "trainyard logs: waiting for the run's pods to be created (up to --timeout 1500ms)",
            "trainyard logs: the run has not started after --timeout 1500ms",
            "  hint: `trainyard status zeta` shows what it waits for; `logs -f` waits for it"),
        none.err().lines().toList());
  }

  @Test
  @DisplayName(
      "-f of a run whose pod starts while it waits: the waiting line once, then the pod's log; exit 0")
  void followWaitsForTheStart() throws Exception {
    String ns = LiveApiServer.namespace("start");
    LiveApiServer.jobSet(ns, "late", 1, true);
    CompletableFuture<MainTest.Run> r =
        CompletableFuture.supplyAsync(() -> logs("late", "-n", ns, "-f", "--timeout", "1m"));
    Thread.sleep(1500);
    Pod pod = LiveApiServer.pod(ns, "late", 0, 0);
    Thread.sleep(1500);
    LiveApiServer.running(pod, StatusCommandLiveTest.STARTED);
    MainTest.Run done = r.get(60, TimeUnit.SECONDS);
    assertEquals(0, done.exit(), done.err());
    assertEquals(
        "trainyard logs: waiting for the run's pods to be created (up to --timeout 1m)\n",
        done.err());
    assertEquals(
        "[node-0] (no logs yet: pod late-node-0-0-a0 is not scheduled on a node)\n", done.out());
  }

  @Test
  @DisplayName(
      "a log the API server cannot fetch (the node's kubelet does not answer): the pod's line, then exit 3 naming the node and why")
  void kubeletDoesNotAnswer() {
    String ns = LiveApiServer.namespace("kubelet");
    // A Node as the kubelet registers it, with nothing listening on its kubelet port.
    LiveApiServer.node("gone-" + ns, 1);
    LiveApiServer.jobSet(ns, "eta", 1, true);
    LiveApiServer.running(
        LiveApiServer.pod(ns, "eta", 0, 0, "gone-" + ns), StatusCommandLiveTest.STARTED);
    MainTest.Run r = logs("eta", "-n", ns);
    assertEquals(Main.EXIT_ENVIRONMENT, r.exit(), r.err());
    String why =
        "Get \"https://127.0.0.1:1/containerLogs/"
            + ns
            + "/eta-node-0-0-a0/main\": dial tcp 127.0.0.1:1: connect: connection refused";
    assertEquals("[node-0] (no logs: " + why + ")\n", r.out());
    assertEquals(
        List.of(
            "trainyard logs: cannot read the logs of node-0: " + why,
            "  hint: the node's kubelet or the API server did not answer; try again, or ask your platform team"),
        r.err().lines().toList());
  }

  @TempDir Path dir;

  @Test
  @DisplayName(
      "rank 0's log as the kubelet serves it (a recorded trainer log), each line prefixed [node-0]; -f prints the same and ends when the stream ends; exit 0")
  void printsTheLog() throws Exception {
    String ns = LiveApiServer.namespace("served");
    try (LiveKubelet kubelet = LiveKubelet.start("kubelet-" + ns, dir.resolve("certs"))) {
      StatusCommandLiveTest.runningWithLog(
          ns,
          "fresh",
          kubelet,
          StatusCommandLiveTest.recorded("plain-steps.log"),
          Instant.parse(StatusCommandLiveTest.STARTED));
      String expected =
          StatusCommandLiveTest.recorded("plain-steps.log")
              .lines()
              .map(l -> "[node-0] " + l + "\n")
              .collect(Collectors.joining());
      MainTest.Run once = logs("fresh", "-n", ns);
      assertEquals(0, once.exit(), once.err());
      assertEquals("", once.err());
      assertEquals(expected, once.out());
      MainTest.Run followed = logs("fresh", "-n", ns, "-f", "--timeout", "1m");
      assertEquals(0, followed.exit(), followed.err());
      assertEquals("", followed.err());
      assertEquals(expected, followed.out());
    }
  }

  @Test
  @DisplayName(
      "--node N of a run whose only pod is its MPI launcher: exit 1, no node pods yet (the launcher is no node)")
  void launcherIsNoNode() {
    String ns = LiveApiServer.namespace("launcher");
    LiveApiServer.jobSet(ns, "mpi", 1, true);
    Pod pod = LiveApiServer.pod(ns, "mpi", 0, 0);
    LiveApiServer.client()
        .pods()
        .resource(pod)
        .edit(
            p -> {
              p.getMetadata().getLabels().put("jobset.sigs.k8s.io/replicatedjob-name", "launcher");
              return p;
            });
    MainTest.Run r = logs("mpi", "-n", ns, "--node", "2");
    assertEquals(1, r.exit(), r.err());
    assertEquals(
        List.of("trainyard logs: run \"mpi\" has no node 2 (no node pods yet)"),
        r.err().lines().toList());
  }
}
