package dev.trainyard.controller;

import static dev.trainyard.controller.LiveApiServer.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.controller.state.RunObservation;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The informers on a real API server: which objects are runs, how pods and Workloads are found by
 * their run, what changes enqueue, what a resync enqueues, and readiness.
 */
class ClusterWatchTest {

  static final Instant NOW = Instant.parse("2026-12-01T09:00:00Z");
  final Set<RunKey> changed = ConcurrentHashMap.newKeySet();
  final Set<RunKey> resynced = ConcurrentHashMap.newKeySet();

  ClusterWatch watch(Duration resync) {
    return new ClusterWatch(
        LiveApiServer.client(),
        resync,
        Clock.fixed(NOW, ZoneOffset.UTC),
        changed::add,
        resynced::add);
  }

  @Test
  @DisplayName(
      "a JobSet with a source commit is a run: its pods (by jobset-name label) and its Workload (by owner) are observed with it; other objects are not runs")
  void runsWithPodsAndWorkloads() {
    String ns = LiveApiServer.namespace("watch");
    GenericKubernetesResource run = LiveApiServer.jobSet(ns, "llama", 2, true);
    LiveApiServer.jobSet(ns, "plain", 1, false);
    LiveApiServer.pod(ns, "llama", 0, 0);
    LiveApiServer.pod(ns, "llama", 1, 0);
    LiveApiServer.pod(ns, "other", 0, 0);
    LiveApiServer.workload(run, "team-q");
    RunKey key = new RunKey(ns, "llama");
    try (ClusterWatch w = watch(Duration.ofMinutes(10))) {
      assertTrue(w.watchesWorkloads(), "the Kueue CRDs are installed: Workloads are watched");
      w.start();
      await("informers synced", w::synced);
      await(
          "the run is observed with 2 pods and its Workload",
          () ->
              w.observe(key)
                  .filter(o -> o.pods().size() == 2 && o.workload().isPresent())
                  .isPresent());
      RunObservation o = w.observe(key).orElseThrow();
      assertEquals("llama", o.jobSet().name());
      assertEquals(2, o.jobSet().expectedPods());
      assertEquals(NOW, o.now(), "the injected clock");
      assertEquals(
          List.of("llama-node-0-0-a0", "llama-node-0-1-a0"),
          o.pods().stream().map(p -> p.name()).sorted().toList());
      assertTrue(changed.contains(key), changed.toString());
      assertEquals("run-llama", w.provenance(key).orElseThrow().run());
      assertEquals(LiveApiServer.COMMIT, w.provenance(key).orElseThrow().sourceCommit());
      assertTrue(w.observe(new RunKey(ns, "plain")).isPresent(), "cached, though not a run");
      assertTrue(
          w.provenance(new RunKey(ns, "plain")).isEmpty(), "no source commit: no provenance");
      assertTrue(w.observe(new RunKey(ns, "gone")).isEmpty());
      assertTrue(w.provenance(new RunKey(ns, "gone")).isEmpty());
      assertEquals(
          List.of(key),
          w.runs().stream().filter(k -> k.namespace().equals(ns)).toList(),
          "only the JobSet with a source commit is a run");
      assertFalse(
          changed.contains(new RunKey(ns, "plain")),
          "a JobSet without provenance is never enqueued");
      assertTrue(
          changed.contains(new RunKey(ns, "other")), "a pod enqueues its JobSet's key, run or not");
    }
  }

  @Test
  @DisplayName(
      "cached() counts each informer's objects: every JobSet, the pods with a jobset-name label, every Workload")
  void cachedCounts() {
    KubernetesClient c = LiveApiServer.client();
    String ns = LiveApiServer.namespace("count");
    LiveApiServer.workload(LiveApiServer.jobSet(ns, "a", 1, true), "q");
    LiveApiServer.pod(ns, "a", 0, 0);
    LiveApiServer.localQueue(ns, "q");
    c.pods()
        .inNamespace(ns)
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName("unlabelled")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("c")
                .withImage("x")
                .endContainer()
                .endSpec()
                .build())
        .create();
    try (ClusterWatch w = watch(Duration.ofMinutes(10))) {
      w.start();
      await("informers synced", w::synced);
      await(
          "cache counts equal the listed counts",
          Duration.ofSeconds(30),
          () -> w.cached().equals(listed(c)),
          () -> w.cached() + " vs " + listed(c));
    }
  }

  static Map<String, Integer> listed(KubernetesClient c) {
    return Map.of(
        "jobsets",
        c.genericKubernetesResources(ClusterWatch.JOBSET_API, "JobSet")
            .inAnyNamespace()
            .list()
            .getItems()
            .size(),
        "pods",
        c.pods().inAnyNamespace().withLabel(Snapshots.JOBSET_NAME).list().getItems().size(),
        "workloads",
        c.genericKubernetesResources(ClusterWatch.WORKLOAD_API, "Workload")
            .inAnyNamespace()
            .list()
            .getItems()
            .size(),
        "localqueues",
        c.genericKubernetesResources(ClusterWatch.WORKLOAD_API, "LocalQueue")
            .inAnyNamespace()
            .list()
            .getItems()
            .size());
  }

  @Test
  @DisplayName(
      "a run's Workload counts its LocalQueue as there once the LocalQueue informer has it, in the run's namespace only")
  void localQueueSeen() {
    String ns = LiveApiServer.namespace("lq");
    GenericKubernetesResource js =
        LiveApiServer.queued(LiveApiServer.jobSet(ns, "a", 1, true), "team-lq");
    LiveApiServer.workload(js, "team-lq");
    LiveApiServer.localQueue(LiveApiServer.namespace("lq-other"), "team-lq");
    RunKey key = new RunKey(ns, "a");
    try (ClusterWatch w = watch(Duration.ofMinutes(10))) {
      w.start();
      await("informers synced", w::synced);
      await("the Workload cached", () -> w.observe(key).orElseThrow().workload().isPresent());
      assertFalse(
          w.observe(key).orElseThrow().workload().orElseThrow().localQueueExists(),
          "a LocalQueue of that name in another namespace is not the run's");
      LiveApiServer.localQueue(ns, "team-lq");
      await(
          "the LocalQueue seen",
          () -> w.observe(key).orElseThrow().workload().orElseThrow().localQueueExists());
    }
  }

  @Test
  @DisplayName(
      "a changed pod or JobSet enqueues the run as a change, a deleted JobSet too (then it is no longer observed); a resync enqueues it in the background lane")
  void changesAndResyncs() {
    String ns = LiveApiServer.namespace("events");
    GenericKubernetesResource js = LiveApiServer.jobSet(ns, "r", 1, true);
    RunKey key = new RunKey(ns, "r");
    try (ClusterWatch w = watch(Duration.ofSeconds(1))) {
      w.start();
      await("the add", () -> changed.contains(key));
      await("a resync, unchanged", () -> resynced.contains(key));
      changed.clear();
      Pod p = LiveApiServer.pod(ns, "r", 0, 0);
      await("the pod's add", () -> changed.contains(key));
      changed.clear();
      LiveApiServer.client()
          .pods()
          .resource(p)
          .edit(
              x -> {
                x.getMetadata().getLabels().put("touched", "yes");
                return x;
              });
      await("the pod's update", () -> changed.contains(key));
      await("the cached pod is the updated one", () -> w.observe(key).isPresent());
      changed.clear();
      LiveApiServer.condition(js, "Completed", "AllJobsCompleted");
      await("the JobSet's status update", () -> changed.contains(key));
      changed.clear();
      assertTrue(w.deleted(key).isEmpty(), "not deleted while it is cached");
      LiveApiServer.client().resource(js).withGracePeriod(0).delete();
      await("the delete", () -> changed.contains(key) && w.observe(key).isEmpty());
      RunSource.DeletedRun d = w.deleted(key).orElseThrow();
      assertEquals("run-r", d.provenance().run(), "the final object carries the provenance");
      assertEquals("r", d.last().jobSet().name());
      assertEquals(1, d.last().pods().size(), "the pods still cached with it");
      w.forget(key);
      assertTrue(w.deleted(key).isEmpty(), "forgotten once settled");
      LiveApiServer.jobSet(ns, "r", 1, true);
      await("re-created", () -> w.observe(key).isPresent());
      LiveApiServer.client()
          .resource(
              LiveApiServer.client()
                  .genericKubernetesResources(ClusterWatch.JOBSET_API, "JobSet")
                  .inNamespace(ns)
                  .withName("r")
                  .get())
          .withGracePeriod(0)
          .delete();
      await("deleted again", () -> w.deleted(key).isPresent());
      LiveApiServer.jobSet(ns, "r", 1, true);
      await(
          "an add clears what was gone",
          () -> w.observe(key).isPresent() && w.deleted(key).isEmpty());
    }
  }

  @TempDir Path dir;

  @Test
  @DisplayName(
      "logTail keeps the newest lines within the byte budget (a recorded 96 KB tqdm line, then the script's last line): the last line is read, as the error line of a failed run must be; a log that cannot be read is empty")
  void logTailKeepsTheNewest() throws Exception {
    String ns = LiveApiServer.namespace("tail");
    String log = RunReaderLiveTest.recorded("tqdm-long.log");
    try (LiveKubelet kubelet = LiveKubelet.start("kubelet-" + ns, dir);
        ClusterWatch w = watch(Duration.ofMinutes(10))) {
      Pod pod = LiveApiServer.pod(ns, "bar", 0, 0, kubelet.node());
      kubelet.log(ns, pod.getMetadata().getName(), log, NOW);
      RunKey key = new RunKey(ns, "bar");
      String container = pod.getSpec().getContainers().get(0).getName();
      String tail =
          w.logTail(key, pod.getMetadata().getName(), container, 200, 64 * 1024).orElseThrow();
      assertTrue(
          tail.endsWith("\nfinal loss 0.0000\n"), tail.substring(Math.max(0, tail.length() - 100)));
      assertTrue(tail.contains("1500/1500"), "the bar's last redraw");
      assertTrue(tail.length() <= 64 * 1024);
      assertEquals(Optional.empty(), w.logTail(key, "no-such-pod", container, 200, 64 * 1024));
    }
  }

  @Test
  @DisplayName("closed, the informers stop: a JobSet created afterwards is never enqueued")
  void closeStops() throws InterruptedException {
    String ns = LiveApiServer.namespace("closed");
    ClusterWatch w = watch(Duration.ofMinutes(10));
    w.start();
    await("informers synced", w::synced);
    w.close();
    LiveApiServer.jobSet(ns, "late", 1, true);
    // A negative can only be checked over a window: 2 s is many watch round trips on loopback.
    Thread.sleep(2000);
    assertFalse(changed.contains(new RunKey(ns, "late")), changed.toString());
    assertTrue(w.observe(new RunKey(ns, "late")).isEmpty());
  }

  @Test
  @DisplayName("not synced before start: /readyz stays 503 until every informer has listed")
  void notSyncedBeforeStart() {
    try (ClusterWatch w = watch(Duration.ofMinutes(10))) {
      assertFalse(w.synced());
    }
  }
}
