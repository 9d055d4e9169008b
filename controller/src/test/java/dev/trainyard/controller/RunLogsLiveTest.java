package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code trainyard logs} against a real API server. A bare API server has no kubelet: what is
 * checked is which pods are read (the current attempt; launcher or node 0, one node, or all), that
 * each answer is prefixed by its node, that the API server's refusal is shown instead of a stack
 * trace, and that following ends when the streams end; {@link LiveKubelet} serves recorded trainer
 * logs where a test needs a log (kwok's served logs are in cluster-it's StatusCommandIT).
 */
class RunLogsLiveTest {

  static ObservedRun run(String ns, String name) throws Exception {
    try (RunReader r =
        RunReader.connect(
            Optional.of(LiveApiServer.kubeconfig()), Optional.empty(), Clock.systemUTC())) {
      return r.get(ns, name).orElseThrow();
    }
  }

  static List<String> lines(StringWriter s) {
    return Arrays.stream(s.toString().split("\\R")).filter(l -> !l.isEmpty()).sorted().toList();
  }

  @Test
  @DisplayName(
      "each chosen pod of the current attempt is read once, its answer prefixed by its node: an unscheduled pod says so, a log the API server refuses (its node is unknown) prints the refusal")
  void choosesAndPrefixes() throws Exception {
    String ns = LiveApiServer.namespace("logs");
    LiveApiServer.jobSet(ns, "lg", 2, true);
    LiveApiServer.pod(ns, "lg", 0, 0, "ghost-node");
    LiveApiServer.pod(ns, "lg", 1, 0);
    LiveApiServer.pod(ns, "lg", 0, 1);
    ObservedRun run = run(ns, "lg");
    try (RunReader reader =
        RunReader.connect(
            Optional.of(LiveApiServer.kubeconfig()), Optional.empty(), Clock.systemUTC())) {
      RunLogs logs = new RunLogs(reader, Clock.systemUTC());
      StringWriter all = new StringWriter();
      assertEquals(
          2,
          logs.print(
              run,
              new RunLogs.Selection(true, null),
              false,
              new PrintWriter(all),
              Duration.ofSeconds(20),
              () -> false),
          "attempt 0 only: the attempt-1 pod is not read");
      List<String> out = lines(all);
      assertEquals(2, out.size(), out.toString());
      assertTrue(out.get(0).startsWith("[node-0] (no logs: "), out.toString());
      assertTrue(
          out.get(0).contains("ghost-node"), "the API server names the missing node: " + out);
      assertEquals(
          "[node-1] (no logs yet: pod lg-node-0-1-a0 is not scheduled on a node)", out.get(1));
      assertFalse(all.toString().contains("Exception"), all.toString());

      StringWriter one = new StringWriter();
      assertEquals(
          1,
          logs.print(
              run,
              new RunLogs.Selection(false, 1),
              false,
              new PrintWriter(one),
              Duration.ofSeconds(20),
              () -> false));
      assertEquals(
          List.of("[node-1] (no logs yet: pod lg-node-0-1-a0 is not scheduled on a node)"),
          lines(one));
      assertEquals(
          0,
          logs.print(
              run,
              new RunLogs.Selection(false, 5),
              false,
              new PrintWriter(new StringWriter()),
              Duration.ofSeconds(20),
              () -> false),
          "no node 5");
    }
  }

  @Test
  @DisplayName(
      "following ends as soon as every stream has ended, long before the timeout, and reports the refusal once per pod")
  void followEndsWithTheStreams() throws Exception {
    String ns = LiveApiServer.namespace("follow");
    LiveApiServer.jobSet(ns, "fl", 1, true);
    LiveApiServer.pod(ns, "fl", 0, 0, "ghost-node");
    ObservedRun run = run(ns, "fl");
    try (RunReader reader =
        RunReader.connect(
            Optional.of(LiveApiServer.kubeconfig()), Optional.empty(), Clock.systemUTC())) {
      StringWriter s = new StringWriter();
      long start = System.nanoTime();
      assertEquals(
          1,
          new RunLogs(reader, Clock.systemUTC())
              .print(
                  run,
                  new RunLogs.Selection(false, null),
                  true,
                  new PrintWriter(s),
                  Duration.ofSeconds(60),
                  () -> false));
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      assertTrue(took.compareTo(Duration.ofSeconds(20)) < 0, "took " + took);
      assertEquals(1, lines(s).size(), s.toString());
      assertTrue(lines(s).get(0).startsWith("[node-0] (no logs: "), s.toString());
    }
  }

  @TempDir Path dir;

  static RunReader reader() {
    return RunReader.connect(
        Optional.of(LiveApiServer.kubeconfig()), Optional.empty(), Clock.systemUTC());
  }

  static String prefixed(String prefix, String log) {
    return log.lines().map(l -> prefix + l + "\n").collect(Collectors.joining());
  }

  static String print(RunLogs logs, ObservedRun run, RunLogs.Selection selection, boolean follow) {
    StringWriter s = new StringWriter();
    logs.print(run, selection, follow, new PrintWriter(s), Duration.ofMinutes(1), () -> false);
    return s.toString().replace(System.lineSeparator(), "\n");
  }

  @Test
  @DisplayName(
      "served logs (recorded trainer logs): --all prints node 0's whole log, then node 1's, each line prefixed; -f of one node prints its log and ends with the stream; no failure")
  void servedLogs() throws Exception {
    String ns = LiveApiServer.namespace("served");
    String zero = RunReaderLiveTest.recorded("plain-steps.log");
    String one = RunReaderLiveTest.recorded("world-ddp.log");
    try (LiveKubelet kubelet = LiveKubelet.start("kubelet-" + ns, dir.resolve("certs"));
        RunReader reader = reader()) {
      RunReaderLiveTest.runningWithLogs(ns, "two", kubelet, Instant.now(), zero, one);
      ObservedRun run = run(ns, "two");
      RunLogs logs = new RunLogs(reader, Clock.systemUTC());
      assertEquals(
          prefixed("[node-0] ", zero) + prefixed("[node-1] ", one),
          print(logs, run, new RunLogs.Selection(true, null), false));
      assertEquals(
          prefixed("[node-1] ", one), print(logs, run, new RunLogs.Selection(false, 1), true));
      assertEquals(Optional.empty(), logs.failure());
      assertEquals(List.of("node-0", "node-1"), logs.labels(run));
      assertTrue(logs.hasPods(run, new RunLogs.Selection(false, null)));
      assertFalse(logs.hasPods(run, new RunLogs.Selection(false, 5)), "no node 5");
      assertEquals(Optional.empty(), logs.notStarted(run, new RunLogs.Selection(true, null)));
    }
  }

  @Test
  @DisplayName(
      "a log the API server refuses (unknown node: 4xx) is only its pod's line; one it cannot fetch (the kubelet does not answer: 5xx) is also the failure, naming the node and why, with or without -f")
  void failureIsTheUnansweredRead() throws Exception {
    String ns = LiveApiServer.namespace("unanswered");
    String gone = "gone-" + ns;
    // A Node as the kubelet registers it, with nothing listening on its kubelet port.
    LiveApiServer.node(gone, 1);
    LiveApiServer.jobSet(ns, "eta", 2, true);
    LiveApiServer.running(LiveApiServer.pod(ns, "eta", 0, 0, "ghost-node"), STARTED);
    LiveApiServer.running(LiveApiServer.pod(ns, "eta", 1, 0, gone), STARTED);
    ObservedRun run = run(ns, "eta");
    try (RunReader reader = reader()) {
      for (boolean follow : List.of(false, true)) {
        // -f asks for one byte first (the refusal as an exception, not as log text); the API
        // server quotes that URL ("…/main?limitBytes=1"), the reader sees the same words either
        // way.
        String why =
            "Get \"https://127.0.0.1:1/containerLogs/"
                + ns
                + "/eta-node-0-1-a0/main"
                + "\": dial tcp 127.0.0.1:1: connect: connection refused";
        RunLogs logs = new RunLogs(reader, Clock.systemUTC());
        List<String> out =
            print(logs, run, new RunLogs.Selection(true, null), follow).lines().sorted().toList();
        assertEquals(2, out.size(), out.toString());
        assertTrue(out.get(0).startsWith("[node-0] (no logs: "), out.toString());
        assertTrue(out.get(0).contains("ghost-node"), out.toString());
        assertEquals("[node-1] (no logs: " + why + ")", out.get(1));
        assertEquals(Optional.of("node-1: " + why), logs.failure(), "follow " + follow);
        RunLogs refusedOnly = new RunLogs(reader, Clock.systemUTC());
        print(refusedOnly, run, new RunLogs.Selection(false, 0), follow);
        assertEquals(Optional.empty(), refusedOnly.failure(), "a 4xx is no failure");
      }
    } finally {
      LiveApiServer.client().nodes().withName(gone).delete();
    }
  }

  static final String STARTED = "2026-12-01T08:00:00Z";

  @Test
  @DisplayName(
      "notStarted names the first chosen pod that has not started and why: its container's waiting reason (ImagePullBackOff), else Pending; nothing once every chosen pod runs")
  void notStarted() throws Exception {
    String ns = LiveApiServer.namespace("waiting");
    LiveApiServer.jobSet(ns, "pull", 3, true);
    Pod zero = LiveApiServer.pod(ns, "pull", 0, 0, "n-" + ns);
    LiveApiServer.pod(ns, "pull", 1, 0);
    LiveApiServer.running(LiveApiServer.pod(ns, "pull", 2, 0), STARTED);
    // The waiting state of SnapshotsTest's recorded pod, as the kubelet writes it while pulling.
    Pod now = LiveApiServer.client().pods().resource(zero).get();
    now.setStatus(
        new PodStatusBuilder()
            .withPhase("Pending")
            .addNewContainerStatus()
            .withName("main")
            .withImage("busybox:1.37")
            .withReady(false)
            .withRestartCount(0)
            .withNewState()
            .withNewWaiting()
            .withReason("ImagePullBackOff")
            .withMessage("back-off")
            .endWaiting()
            .endState()
            .endContainerStatus()
            .build());
    LiveApiServer.client().resource(now).updateStatus();
    ObservedRun run = run(ns, "pull");
    try (RunReader reader = reader()) {
      RunLogs logs = new RunLogs(reader, Clock.systemUTC());
      assertEquals(
          Optional.of("node-0 has not started (ImagePullBackOff)"),
          logs.notStarted(run, new RunLogs.Selection(true, null)));
      assertEquals(
          Optional.of("node-1 has not started (Pending)"),
          logs.notStarted(run, new RunLogs.Selection(false, 1)));
      assertEquals(Optional.empty(), logs.notStarted(run, new RunLogs.Selection(false, 2)));
      assertEquals(Optional.empty(), logs.notStarted(run, new RunLogs.Selection(false, 7)));
    }
  }

  /** A clock one second later at each reading: following's grace passes in readings, not waits. */
  static Clock stepping() {
    AtomicLong seconds = new AtomicLong();
    return new Clock() {
      @Override
      public Instant instant() {
        return Instant.parse(STARTED).plusSeconds(seconds.getAndIncrement());
      }

      @Override
      public ZoneId getZone() {
        return ZoneOffset.UTC;
      }

      @Override
      public Clock withZone(ZoneId zone) {
        return this;
      }
    };
  }

  @Test
  @DisplayName(
      "a running container's log: without -f printed at once; -f prints its lines and, once the run ended, stops following the stream the kubelet holds open, with no '(no logs' line and no failure")
  void followStopsAfterTheRunEnded() throws Exception {
    String ns = LiveApiServer.namespace("held");
    String log = RunReaderLiveTest.recorded("plain-steps.log");
    try (LiveKubelet kubelet = LiveKubelet.start("kubelet-" + ns, dir.resolve("certs"));
        RunReader reader = reader()) {
      RunReaderLiveTest.runningWithLogs(ns, "live", kubelet, Instant.now(), log);
      kubelet.running(ns, "live-node-0-0-a0");
      ObservedRun run = run(ns, "live");
      RunLogs logs = new RunLogs(reader, stepping());
      RunLogs.Selection node0 = new RunLogs.Selection(false, 0);
      assertEquals(prefixed("[node-0] ", log), print(logs, run, node0, false));
      StringWriter s = new StringWriter();
      // The run ends once its lines are printed; the stream stays open (at most LiveKubelet.HOLD).
      assertEquals(
          1,
          logs.print(
              run,
              node0,
              true,
              new PrintWriter(s),
              Duration.ofHours(1),
              () -> s.toString().lines().count() == log.lines().count()));
      assertEquals(prefixed("[node-0] ", log), s.toString().replace(System.lineSeparator(), "\n"));
      assertEquals(Optional.empty(), logs.failure());
    }
  }
}
