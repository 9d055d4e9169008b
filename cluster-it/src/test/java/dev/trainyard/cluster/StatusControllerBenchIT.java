package dev.trainyard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.trainyard.controller.forge.FakeForge;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The controller's benchmark (a measurement, not a timed test; run with {@code
 * -Dtrainyard.bench=true}): {@code trainyard.bench.runs} (default 10,000) JobSets whose {@code
 * spec.managedBy} keeps the JobSet controller away, so this test drives their state by writing
 * their status (Completed) itself; it prints p50/p99 latency from the status write to the fake
 * forge accepting the success, forge posts per transition, and the controller's heap after a full
 * GC with {@code trainyard.bench.cached} (default 100,000) JobSets in its cache (the controller
 * runs with -Xmx of {@code trainyard.bench.heap}, default 512m), each beside issue #24's target:
 * p99 under 1 s, exactly 1 post per transition (asserted), heap under 512 MiB. The JobSets are
 * created by {@code trainyard.bench.writers} (default 4) threads.
 */
@ExtendWith(KubeClusterExtension.class)
class StatusControllerBenchIT {

  static final String MANAGED_BY = "trainyard.dev/bench";

  @Test
  @DisplayName(
      "benchmark: state change → forge latency p50/p99, posts per transition, heap with many JobSets cached")
  void benchmark(KubeCluster cluster) throws Exception {
    assumeTrue(
        Boolean.getBoolean("trainyard.bench"),
        "NOT RUN: benchmark not requested (-Dtrainyard.bench=true)");
    int runs = Integer.getInteger("trainyard.bench.runs", 10_000);
    int cached = Integer.getInteger("trainyard.bench.cached", 100_000);
    String heapLimit = System.getProperty("trainyard.bench.heap", "512m");
    String ns = cluster.newNamespace();
    String tag = "bench";
    var api = JobSets.api(cluster.client()).inNamespace(ns);
    try (FakeForge forge = FakeForge.start();
        ControllerProcess c =
            ControllerProcess.start(
                cluster,
                forge,
                tag,
                ns,
                "bench-0",
                new ControllerProcess.Tuning(
                    Duration.ofHours(1), Duration.ofSeconds(60), heapLimit))) {
      System.out.printf(
          "[bench] load average at start: %s%n", Files.readString(Path.of("/proc/loadavg")).trim());
      Instant t0 = Instant.now();
      create(api, 0, runs, ControllerProcess.host("github", tag));
      System.out.println(
          "[bench] created "
              + runs
              + " JobSets in "
              + Duration.between(t0, Instant.now()).toMillis()
              + " ms");
      Eventually.await(
          runs + " runs posted pending",
          Duration.ofMinutes(30),
          () -> forge.accepted().size() >= runs);
      int requestsBefore = forge.requests();
      Map<String, Instant> changedAt = new HashMap<>();
      for (int i = 0; i < runs; i++) {
        String name = "bench-" + i;
        changedAt.put(StatusRuns.sha(name), Instant.now());
        api.withName(name).editStatus(js -> completed(js));
      }
      Eventually.await(
          runs + " successes", Duration.ofMinutes(30), () -> forge.accepted().size() >= 2 * runs);
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
      long p99 = latencies.get((int) Math.ceil(latencies.size() * 0.99) - 1);
      System.out.printf(
          "[bench] runs %d: success latency p50 %d ms, p99 %d ms (target < 1000 ms: %s), max %d ms%n",
          runs,
          latencies.get(latencies.size() / 2),
          p99,
          p99 < 1000 ? "met" : "MISSED",
          latencies.get(latencies.size() - 1));
      System.out.printf(
          "[bench] posts %d for %d transitions (%.3f per transition, target exactly 1); forge"
              + " requests for the success wave %d%n",
          accepted.size(), 2 * runs, accepted.size() / (2.0 * runs), successRequests);
      assertEquals(2 * runs, accepted.size(), "exactly one post per transition");
      fill(api, runs, cached);
      Eventually.await(
          "controller caches " + cached + " JobSets",
          Duration.ofMinutes(Math.max(30, cached / 1000)),
          () ->
              c.metrics()
                  .contains("trainyard_cached_objects{kind=\"jobsets\"} " + cached + ".0\n"));
      long heap = c.heapAfterGc();
      // -1: /metrics had no trainyard_jvm_heap_used_bytes line, so nothing was measured.
      assertTrue(
          heap > 0,
          () -> "the controller's /metrics gave no heap figure; its log ends:\n" + c.log());
      System.out.printf(
          "[bench] heap after GC with %d JobSets cached: %.1f MiB (target < 512 MiB: %s; -Xmx%s)%n",
          cached, heap / 1048576.0, heap < 512L * 1048576 ? "met" : "MISSED", heapLimit);
      System.out.printf(
          "[bench] load average at end: %s%n", Files.readString(Path.of("/proc/loadavg")).trim());
    }
  }

  /** More JobSets up to {@code cached}, on a host without a forge (cached, never posted). */
  private static void fill(
      NonNamespaceOperation<
              GenericKubernetesResource,
              GenericKubernetesResourceList,
              Resource<GenericKubernetesResource>>
          api,
      int from,
      int cached) {
    Instant t0 = Instant.now();
    create(api, from, cached, "no-forge.test");
    System.out.println(
        "[bench] created "
            + (cached - from)
            + " more JobSets in "
            + Duration.between(t0, Instant.now()).toMillis()
            + " ms");
  }

  /**
   * JobSets bench-{@code from} .. bench-{@code to - 1} on {@code host}, created by {@code
   * trainyard.bench.writers} threads, each taking every n-th index; bounded to a minute per 1,000
   * JobSets and at least 30 minutes (an API server under load creates ~30 a second).
   */
  private static void create(
      NonNamespaceOperation<
              GenericKubernetesResource,
              GenericKubernetesResourceList,
              Resource<GenericKubernetesResource>>
          api,
      int from,
      int to,
      String host) {
    int writers = Integer.getInteger("trainyard.bench.writers", 4);
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int first = from + w;
        done.add(
            pool.submit(
                () -> {
                  for (int i = first; i < to; i += writers) {
                    api.resource(jobSet("bench-" + i, host)).create();
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get(Math.max(30, (to - from) / 1000), TimeUnit.MINUTES);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("creating JobSets " + from + ".." + to, e);
    } finally {
      pool.shutdownNow();
    }
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
    condition.put("lastTransitionTime", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("conditions", List.of(condition));
    status.put("terminalState", "Completed");
    js.getAdditionalProperties().put("status", status);
    return js;
  }
}
