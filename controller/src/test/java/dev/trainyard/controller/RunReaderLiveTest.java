package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code trainyard status}'s list calls against a real API server: which JobSets are runs, their
 * pods and Workloads, namespaces, and finding a run by its run label or JobSet name.
 */
class RunReaderLiveTest {

  static final Instant NOW = Instant.parse("2026-12-01T09:00:00Z");
  @TempDir Path dir;

  RunReader reader(String context) throws Exception {
    return RunReader.connect(
        Optional.of(LiveApiServer.kubeconfig()),
        Optional.ofNullable(context),
        Clock.fixed(NOW, ZoneOffset.UTC));
  }

  @Test
  @DisplayName(
      "list(namespace) gives the runs there, sorted by run, each with its pods and Workload; JobSets without a source commit are not runs")
  void listsRuns() throws Exception {
    String ns = LiveApiServer.namespace("list");
    LiveApiServer.workload(LiveApiServer.jobSet(ns, "zeta", 2, true), "q");
    LiveApiServer.jobSet(ns, "alpha", 1, true);
    LiveApiServer.jobSet(ns, "plain", 1, false);
    LiveApiServer.pod(ns, "zeta", 0, 0);
    LiveApiServer.pod(ns, "zeta", 1, 0);
    LiveApiServer.pod(ns, "alpha", 0, 0);
    try (RunReader r = reader(null)) {
      List<ObservedRun> runs = r.list(ns);
      assertEquals(
          List.of("run-alpha", "run-zeta"), runs.stream().map(x -> x.provenance().run()).toList());
      ObservedRun zeta = runs.get(1);
      assertEquals(2, zeta.observation().pods().size());
      assertTrue(zeta.observation().workload().isPresent(), "its Workload, by owner");
      assertEquals(1, runs.get(0).observation().pods().size());
      assertTrue(runs.get(0).observation().workload().isEmpty());
      assertEquals(NOW, zeta.observation().now());
      assertEquals(
          List.of("zeta-node-0-0-a0", "zeta-node-0-1-a0"),
          r.podsOf(zeta.key()).stream().map(p -> p.getMetadata().getName()).sorted().toList());
      assertEquals("zeta", r.get(ns, "run-zeta").orElseThrow().key().name(), "by run label");
      assertEquals(
          "run-zeta", r.get(ns, "zeta").orElseThrow().provenance().run(), "by JobSet name");
      assertTrue(r.get(ns, "plain").isEmpty(), "not a run");
      assertTrue(r.get(ns, "nope").isEmpty());
    }
  }

  @Test
  @DisplayName(
      "list(null) spans all namespaces, sorted by namespace then run; the kubeconfig context's namespace is the default")
  void allNamespaces() throws Exception {
    String a = LiveApiServer.namespace("all-a");
    String b = LiveApiServer.namespace("all-b");
    LiveApiServer.jobSet(b, "one", 1, true);
    LiveApiServer.workload(LiveApiServer.jobSet(a, "two", 1, true), "q");
    LiveApiServer.pod(a, "two", 0, 0);
    try (RunReader r = reader(null)) {
      List<String> keys =
          r.list(null).stream()
              .map(x -> x.key().cacheKey())
              .filter(k -> k.startsWith(a) || k.startsWith(b))
              .toList();
      assertEquals(List.of(a + "/two", b + "/one"), keys);
      ObservedRun two =
          r.list(null).stream()
              .filter(x -> x.key().namespace().equals(a))
              .findFirst()
              .orElseThrow();
      assertEquals(1, two.observation().pods().size());
      assertTrue(two.observation().workload().isPresent());
      assertEquals(
          "default", r.defaultNamespace(), "the test kubeconfig's context names no namespace");
    }
    Path withNamespace = dir.resolve("kubeconfig");
    Files.writeString(
        withNamespace,
        Files.readString(LiveApiServer.kubeconfig())
            .replace(
                "context: {cluster: local, user: admin}",
                "context: {cluster: local, user: admin, namespace: " + b + "}"));
    try (RunReader r =
        RunReader.connect(Optional.of(withNamespace), Optional.of("local"), Clock.systemUTC())) {
      assertEquals(b, r.defaultNamespace());
      assertEquals(
          List.of("one"), r.list(r.defaultNamespace()).stream().map(x -> x.key().name()).toList());
    }
  }
}
