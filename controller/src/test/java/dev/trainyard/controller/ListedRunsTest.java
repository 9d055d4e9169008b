package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Run keys of JobSets, pods and Workloads; informer events; runs assembled from list calls. */
class ListedRunsTest {

  static final Instant NOW = Instant.parse("2026-12-01T09:00:00Z");

  static GenericKubernetesResource jobSet(String ns, String name, String run, boolean commit) {
    return Serialization.unmarshal(
        """
                apiVersion: jobset.x-k8s.io/v1alpha2
                kind: JobSet
                metadata:
                  name: %s
                  namespace: %s
                  resourceVersion: "1"
                  labels: {trainyard.dev/run: %s}
                  annotations: {%s}
                spec: {replicatedJobs: [{name: node, replicas: 1, template: {spec: {parallelism: 2, completions: 2}}}]}
                """
            .formatted(
                name,
                ns,
                run,
                commit ? "trainyard.dev/source-commit: abc, trainyard.dev/cluster: prod" : ""),
        GenericKubernetesResource.class);
  }

  static Pod pod(String ns, String name, String jobSet) {
    return Serialization.unmarshal(
        """
                apiVersion: v1
                kind: Pod
                metadata: {name: %s, namespace: %s, resourceVersion: "7"%s}
                spec: {nodeName: kwok-0, containers: [{name: node, image: i}]}
                status: {phase: Running}
                """
            .formatted(
                name,
                ns,
                jobSet == null ? "" : ", labels: {jobset.sigs.k8s.io/jobset-name: " + jobSet + "}"),
        Pod.class);
  }

  static GenericKubernetesResource workload(
      String ns, String name, String ownerKind, String ownerApi, String owner) {
    return Serialization.unmarshal(
        """
                apiVersion: kueue.x-k8s.io/v1beta2
                kind: Workload
                metadata:
                  name: %s
                  namespace: %s
                  ownerReferences: [{apiVersion: %s, kind: %s, name: %s, uid: u}]
                status: {admission: {clusterQueue: cq-%s}}
                """
            .formatted(name, ns, ownerApi, ownerKind, owner, name),
        GenericKubernetesResource.class);
  }

  @Test
  @DisplayName(
      "a JobSet is a run only with a source commit; a pod is its JobSet label's; a Workload its JobSet owner's")
  void keys() {
    assertEquals(
        Optional.of(new RunKey("a", "js-1")), RunKeys.ofJobSet(jobSet("a", "js-1", "r1", true)));
    assertTrue(RunKeys.ofJobSet(jobSet("a", "js-1", "r1", false)).isEmpty());
    assertTrue(RunKeys.hasCommit(jobSet("a", "js-1", "r1", true)));
    assertEquals(Optional.of(new RunKey("a", "js-1")), RunKeys.ofPod(pod("a", "p", "js-1")));
    assertTrue(RunKeys.ofPod(pod("a", "p", null)).isEmpty());
    assertEquals(
        Optional.of(new RunKey("a", "js-1")),
        RunKeys.owner(workload("a", "w", "JobSet", "jobset.x-k8s.io/v1alpha2", "js-1")));
    assertTrue(RunKeys.owner(workload("a", "w", "Job", "batch/v1", "js-1")).isEmpty());
    assertTrue(RunKeys.owner(workload("a", "w", "JobSet", "example.com/v1", "js-1")).isEmpty());
  }

  @Test
  @DisplayName(
      "informer events enqueue the run key: add, delete and a new resource version as changes, the same version as a resync; no key, no call")
  void events() {
    List<String> calls = new ArrayList<>();
    RunEvents<HasMetadata> h =
        new RunEvents<>(
            RunKeys::ofPod,
            k -> calls.add("changed " + k.cacheKey()),
            k -> calls.add("resynced " + k.cacheKey()));
    Pod v7 = pod("a", "p", "js-1");
    Pod v8 = pod("a", "p", "js-1");
    v8.getMetadata().setResourceVersion("8");
    h.onAdd(v7);
    h.onUpdate(v7, v8);
    h.onUpdate(v8, v8);
    h.onDelete(v8, false);
    h.onAdd(pod("a", "q", null));
    h.onUpdate(pod("a", "q", null), pod("a", "q", null));
    h.onDelete(pod("a", "q", null), true);
    assertEquals(
        List.of("changed a/js-1", "changed a/js-1", "resynced a/js-1", "changed a/js-1"), calls);
  }

  @Test
  @DisplayName(
      "a delete hands the final object to gone before the key is enqueued; an add says nothing is gone (null)")
  void goneOnDelete() {
    List<String> calls = new ArrayList<>();
    RunEvents<HasMetadata> h =
        new RunEvents<>(
            RunKeys::ofPod,
            k -> calls.add("changed " + k.cacheKey()),
            k -> calls.add("resynced " + k.cacheKey()),
            (k, o) ->
                calls.add(
                    "gone "
                        + k.cacheKey()
                        + " "
                        + (o == null ? "null" : o.getMetadata().getName())));
    Pod p = pod("a", "p", "js-1");
    h.onAdd(p);
    h.onDelete(p, true);
    h.onDelete(pod("a", "q", null), false);
    assertEquals(
        List.of("gone a/js-1 null", "changed a/js-1", "gone a/js-1 p", "changed a/js-1"), calls);
  }

  @Test
  @DisplayName(
      "listed runs: JobSets with a commit, sorted by namespace then run; each with its own pods and owned Workload, seen at now")
  void assemble() {
    List<GenericKubernetesResource> jobSets =
        List.of(
            jobSet("b", "js-b", "zeta", true),
            jobSet("a", "js-2", "yak", true),
            jobSet("a", "js-1", "xray", true),
            jobSet("a", "plain", "plain", false));
    List<Pod> pods =
        List.of(
            pod("a", "p1", "js-1"),
            pod("a", "p2", "js-1"),
            pod("a", "p3", "js-2"),
            pod("b", "p4", "js-b"),
            pod("b", "p5", "js-1"),
            pod("a", "stray", null));
    List<GenericKubernetesResource> workloads =
        List.of(
            workload("a", "w1", "JobSet", "jobset.x-k8s.io/v1alpha2", "js-1"),
            workload("a", "w1b", "JobSet", "jobset.x-k8s.io/v1alpha2", "js-1"),
            workload("a", "w9", "Job", "batch/v1", "js-2"));
    List<ObservedRun> runs = ListedRuns.assemble(jobSets, pods, workloads, q -> false, NOW);
    assertEquals(
        List.of("a/xray", "a/yak", "b/zeta"),
        runs.stream().map(r -> r.key().namespace() + "/" + r.provenance().run()).toList());
    ObservedRun xray = runs.get(0);
    assertEquals(new RunKey("a", "js-1"), xray.key());
    assertEquals("prod", xray.provenance().cluster());
    assertEquals(
        List.of("p1", "p2"), xray.observation().pods().stream().map(p -> p.name()).toList());
    assertEquals(
        "cq-w1",
        xray.observation().workload().orElseThrow().clusterQueue(),
        "the first owned Workload");
    assertEquals(NOW, xray.observation().now());
    assertEquals(2, xray.observation().jobSet().expectedPods());
    assertEquals(
        List.of("p3"), runs.get(1).observation().pods().stream().map(p -> p.name()).toList());
    assertTrue(
        runs.get(1).observation().workload().isEmpty(),
        "a Workload owned by a Job is not the run's");
    assertEquals(
        List.of("p4"),
        runs.get(2).observation().pods().stream().map(p -> p.name()).toList(),
        "pods are per namespace");
    assertTrue(ListedRuns.assemble(List.of(), pods, workloads, q -> false, NOW).isEmpty());
  }

  @Test
  @DisplayName(
      "an observation takes the first owned Workload not being deleted (Kueue re-creates one after an eviction)")
  void deletingWorkload() {
    GenericKubernetesResource old =
        workload("a", "w-old", "JobSet", "jobset.x-k8s.io/v1alpha2", "js-1");
    old.getMetadata().setDeletionTimestamp("2026-12-01T08:59:00Z");
    GenericKubernetesResource fresh =
        workload("a", "w-new", "JobSet", "jobset.x-k8s.io/v1alpha2", "js-1");
    var o =
        ListedRuns.observation(
            jobSet("a", "js-1", "r", true),
            List.of(pod("a", "p1", "js-1")),
            List.of(old, fresh),
            q -> false,
            NOW);
    assertEquals("cq-w-new", o.workload().orElseThrow().clusterQueue());
    assertEquals(List.of("p1"), o.pods().stream().map(p -> p.name()).toList());
    assertTrue(
        ListedRuns.observation(
                jobSet("a", "js-1", "r", true), List.of(), List.of(old), q -> false, NOW)
            .workload()
            .isEmpty());
    assertEquals(
        "cq-w-new",
        ListedRuns.assemble(
                List.of(jobSet("a", "js-1", "r", true)),
                List.of(),
                List.of(old, fresh),
                q -> false,
                NOW)
            .get(0)
            .observation()
            .workload()
            .orElseThrow()
            .clusterQueue(),
        "status and the controller agree");
  }

  @Test
  @DisplayName(
      "a Workload's LocalQueue counts as there only when the JobSet names one and the reader saw it in the JobSet's namespace")
  void localQueueSeen() {
    GenericKubernetesResource queued = jobSet("a", "js-1", "r", true);
    queued.getMetadata().getLabels().put("kueue.x-k8s.io/queue-name", "team-lq");
    GenericKubernetesResource owned =
        workload("a", "w1", "JobSet", "jobset.x-k8s.io/v1alpha2", "js-1");
    List<String> asked = new ArrayList<>();
    Predicate<String> seen =
        k -> {
          asked.add(k);
          return k.equals("a/team-lq");
        };
    assertTrue(
        ListedRuns.observation(queued, List.of(), List.of(owned), seen, NOW)
            .workload()
            .orElseThrow()
            .localQueueExists());
    assertEquals(List.of("a/team-lq"), asked);
    GenericKubernetesResource elsewhere = jobSet("b", "js-1", "r", true);
    elsewhere.getMetadata().getLabels().put("kueue.x-k8s.io/queue-name", "team-lq");
    assertFalse(
        ListedRuns.observation(elsewhere, List.of(), List.of(owned), seen, NOW)
            .workload()
            .orElseThrow()
            .localQueueExists(),
        "a LocalQueue of the same name in another namespace is not the run's");
    asked.clear();
    assertFalse(
        ListedRuns.observation(
                jobSet("a", "js-1", "r", true), List.of(), List.of(owned), k -> true, NOW)
            .workload()
            .orElseThrow()
            .localQueueExists(),
        "a JobSet without a queue-name label has no LocalQueue");
    assertTrue(
        ListedRuns.assemble(List.of(queued), List.of(), List.of(owned), seen, NOW)
            .get(0)
            .observation()
            .workload()
            .orElseThrow()
            .localQueueExists(),
        "status and the controller agree");
  }
}
