package dev.trainyard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.trainyard.controller.forge.FakeForge;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The controller's benchmark (a measurement, not a timed test; run with {@code
 * -Dtrainyard.bench=true}): {@code trainyard.bench.runs} (default 1,000) JobSets whose {@code
 * spec.managedBy} keeps the JobSet controller away, so this test drives their state by writing
 * their status (Completed) itself; it prints p50/p99 latency from the status write to the fake
 * forge accepting the success, forge posts per transition, and the controller's heap after a full
 * GC with {@code trainyard.bench.cached} (default 10,000) JobSets in its cache (the controller runs
 * with -Xmx128m).
 */
@ExtendWith(KubeClusterExtension.class)
class StatusControllerBenchIT {

  static final String MANAGED_BY = "trainyard.dev/bench";

  @Test
  @DisplayName(
      "benchmark: state change → forge latency p50/p99, posts per transition, heap with many JobSets cached")
  void benchmark(KubeCluster cluster) {
    assumeTrue(
        Boolean.getBoolean("trainyard.bench"),
        "NOT RUN: benchmark not requested (-Dtrainyard.bench=true)");
    int runs = Integer.getInteger("trainyard.bench.runs", 1000);
    int cached = Integer.getInteger("trainyard.bench.cached", 10_000);
    String ns = cluster.newNamespace();
    String tag = "bench";
    var api = JobSets.api(cluster.client()).inNamespace(ns);
    try (FakeForge forge = FakeForge.start();
        ControllerProcess c =
            ControllerProcess.start(
                cluster, forge, tag, ns, "bench-0", Duration.ofHours(1), Duration.ofSeconds(60))) {
      Instant t0 = Instant.now();
      for (int i = 0; i < runs; i++) {
        api.resource(jobSet("bench-" + i, ControllerProcess.host("github", tag))).create();
      }
      System.out.println(
          "[bench] created "
              + runs
              + " JobSets in "
              + Duration.between(t0, Instant.now()).toMillis()
              + " ms");
      Eventually.await(
          runs + " runs posted pending",
          Duration.ofMinutes(10),
          () -> forge.accepted().size() >= runs);
      int requestsBefore = forge.requests();
      Map<String, Instant> changedAt = new HashMap<>();
      for (int i = 0; i < runs; i++) {
        String name = "bench-" + i;
        changedAt.put(StatusRuns.sha(name), Instant.now());
        api.withName(name).editStatus(js -> completed(js));
      }
      Eventually.await(
          runs + " successes", Duration.ofMinutes(10), () -> forge.accepted().size() >= 2 * runs);
      Eventually.sleep(Duration.ofSeconds(5));
      List<FakeForge.Accepted> accepted = forge.accepted();
      List<Instant> at = forge.acceptedTimes();
      List<Long> latencies = new ArrayList<>();
      for (int i = 0; i < accepted.size(); i++) {
        if (accepted.get(i).state().equals("success")) {
          latencies.add(
              Duration.between(changedAt.get(accepted.get(i).sha()), at.get(i)).toMillis());
        }
      }
      latencies.sort(Long::compare);
      int successRequests = forge.requests() - requestsBefore;
      System.out.printf(
          "[bench] runs %d: success latency p50 %d ms, p99 %d ms, max %d ms%n",
          runs,
          latencies.get(latencies.size() / 2),
          latencies.get((int) Math.ceil(latencies.size() * 0.99) - 1),
          latencies.get(latencies.size() - 1));
      System.out.printf(
          "[bench] posts %d for %d transitions (%.3f per transition); forge requests for the"
              + " success wave %d%n",
          accepted.size(), 2 * runs, accepted.size() / (2.0 * runs), successRequests);
      assertEquals(2 * runs, accepted.size(), "exactly one post per transition");
      fill(api, runs, cached);
      Eventually.await(
          "controller caches " + cached + " JobSets",
          Duration.ofMinutes(10),
          () -> c.metrics().contains("trainyard_cached_objects{kind=\"jobsets\"} " + cached));
      long heap = c.heapAfterGc();
      System.out.printf(
          "[bench] heap after GC with %d JobSets cached: %.1f MiB%n", cached, heap / 1048576.0);
    }
  }

  /** More JobSets up to {@code cached}, on a host without a forge (cached, never posted). */
  private static void fill(
      io.fabric8.kubernetes.client.dsl.NonNamespaceOperation<
              GenericKubernetesResource,
              io.fabric8.kubernetes.api.model.GenericKubernetesResourceList,
              io.fabric8.kubernetes.client.dsl.Resource<GenericKubernetesResource>>
          api,
      int from,
      int cached) {
    Instant t0 = Instant.now();
    for (int i = from; i < cached; i++) {
      api.resource(jobSet("bench-" + i, "no-forge.test")).create();
    }
    System.out.println(
        "[bench] created "
            + (cached - from)
            + " more JobSets in "
            + Duration.between(t0, Instant.now()).toMillis()
            + " ms");
  }

  static GenericKubernetesResource jobSet(String name, String host) {
    GenericKubernetesResource js =
        StatusRuns.run(name, host, StatusRuns.sha(name), "slow", null, null);
    @SuppressWarnings("unchecked")
    Map<String, Object> spec = (Map<String, Object>) js.getAdditionalProperties().get("spec");
    spec.put("managedBy", MANAGED_BY);
    return js;
  }

  static GenericKubernetesResource completed(GenericKubernetesResource js) {
    Map<String, Object> condition = new LinkedHashMap<>();
    condition.put("type", "Completed");
    condition.put("status", "True");
    condition.put("reason", "AllJobsCompleted");
    condition.put("message", "jobset completed successfully");
    condition.put(
        "lastTransitionTime",
        Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString());
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("conditions", List.of(condition));
    status.put("terminalState", "Completed");
    js.getAdditionalProperties().put("status", status);
    return js;
  }
}
