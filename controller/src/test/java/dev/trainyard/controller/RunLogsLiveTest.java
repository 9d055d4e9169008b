package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@code trainyard logs} against a real API server. A bare API server has no kubelet, so no pod has
 * a log to give: what is checked is which pods are read (the current attempt; launcher or node 0,
 * one node, or all), that each answer is prefixed by its node, that the API server's refusal is
 * shown instead of a stack trace, and that following ends when the streams end (kwok's served logs
 * are in cluster-it's StatusCommandIT).
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
}
