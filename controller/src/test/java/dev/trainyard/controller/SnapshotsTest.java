package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.controller.state.ContainerSnapshot;
import dev.trainyard.controller.state.JobSetSnapshot;
import dev.trainyard.controller.state.JobSnapshot;
import dev.trainyard.controller.state.PodSnapshot;
import dev.trainyard.controller.state.UserSettings;
import dev.trainyard.controller.state.WorkloadSnapshot;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class SnapshotsTest {

  static final String JOBSET =
      """
            apiVersion: jobset.x-k8s.io/v1alpha2
            kind: JobSet
            metadata:
              name: llama-ft-7f3a9c
              namespace: team-a
              creationTimestamp: "2026-12-01T08:00:00Z"
              labels: {kueue.x-k8s.io/queue-name: gpu}
            spec:
              suspend: true
              failurePolicy: {maxRestarts: 3}
              replicatedJobs:
              - name: launcher
                template: {spec: {template: {metadata: {annotations: {trainyard.dev/runs-ranks: "false"}}}}}
              - name: node
                replicas: 2
                template: {spec: {parallelism: 4, completions: 4}}
              - name: partial
                template: {spec: {parallelism: 4, completions: 2}}
            status:
              restarts: 1
              conditions:
              - {type: Suspended, status: "True", reason: SuspendedJobs, message: m,
                 lastTransitionTime: "2026-12-01T08:00:05Z"}
            """;

  static final String POD =
      """
            apiVersion: v1
            kind: Pod
            metadata:
              name: llama-ft-7f3a9c-node-0-0
              namespace: team-a
              labels: {jobset.sigs.k8s.io/restart-attempt: "1", jobset.sigs.k8s.io/jobset-name: llama-ft-7f3a9c}
              deletionTimestamp: "2026-12-01T08:03:00Z"
            spec:
              nodeName: kwok-gpu-0
              initContainers: [{name: git-clone, image: alpine/git:2.47}]
              containers: [{name: node, image: ghcr.io/acme/train:1}, {name: sidecar, image: busybox}]
            status:
              phase: Failed
              reason: Evicted
              startTime: "2026-12-01T08:01:00Z"
              conditions:
              - {type: Ready, status: "True"}
              - {type: DisruptionTarget, status: "True", reason: EvictionByEvictionAPI}
              initContainerStatuses:
              - {name: git-clone, image: alpine/git:2.47, imageID: x, ready: false, restartCount: 0,
                 state: {terminated: {exitCode: 0, reason: Completed}}}
              containerStatuses:
              - {name: node, image: other, imageID: x, ready: false, restartCount: 0,
                 state: {waiting: {reason: ImagePullBackOff, message: back-off}}}
              - {name: sidecar, image: docker.io/library/busybox:latest, imageID: x, ready: true, restartCount: 0,
                 state: {running: {}}}
            """;

  static final String WORKLOAD =
      """
            apiVersion: kueue.x-k8s.io/v1beta2
            kind: Workload
            metadata:
              name: jobset-llama-ft-7f3a9c-1b2c3
              namespace: team-a
              ownerReferences:
              - {apiVersion: jobset.x-k8s.io/v1alpha2, kind: JobSet, name: llama-ft-7f3a9c, uid: u1}
            status:
              admission: {clusterQueue: gpu-cq}
              conditions:
              - {type: QuotaReserved, status: "False", reason: Pending, message: "insufficient quota"}
            """;

  @Test
  @DisplayName(
      "a JobSet: suspend, restarts, maxRestarts, LocalQueue, conditions, pods = Σ replicas × min(parallelism, completions), nodes = pods less the runs-ranks \"false\" launcher")
  void jobSet() {
    JobSetSnapshot js =
        Snapshots.jobSet(Serialization.unmarshal(JOBSET, GenericKubernetesResource.class));
    assertEquals("team-a", js.namespace());
    assertEquals("llama-ft-7f3a9c", js.name());
    assertEquals(Instant.parse("2026-12-01T08:00:00Z"), js.created());
    assertTrue(js.suspended());
    assertEquals(1 + 8 + 2, js.expectedPods());
    assertEquals(8 + 2, js.expectedNodes());
    assertEquals(1, js.restarts());
    assertEquals(3, js.maxRestarts());
    assertEquals("gpu", js.localQueue());
    assertEquals(1, js.conditions().size());
    assertTrue(js.conditions().get(0).isTrue());
    assertEquals("SuspendedJobs", js.conditions().get(0).reason());
    assertEquals(Instant.parse("2026-12-01T08:00:05Z"), js.conditions().get(0).since());
  }

  @Test
  @DisplayName("a bare JobSet reads as unsuspended, no restarts, maxRestarts 0, no queue, no pods")
  void bareJobSet() {
    JobSetSnapshot js =
        Snapshots.jobSet(
            Serialization.unmarshal(
                "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: x, namespace: n}\n",
                GenericKubernetesResource.class));
    assertFalse(js.suspended());
    assertEquals(0, js.expectedPods());
    assertEquals(0, js.expectedNodes());
    assertEquals(0, js.restarts());
    assertEquals(0, js.maxRestarts());
    assertEquals("", js.localQueue());
    assertNull(js.created());
  }

  @Test
  @DisplayName(
      "a pod: node, phase, reason, attempt label, Ready, deletion, start time, container states with spec images")
  void pod() {
    PodSnapshot p = Snapshots.pod(Serialization.unmarshal(POD, Pod.class));
    assertEquals("kwok-gpu-0", p.node());
    assertEquals("Failed", p.phase());
    assertEquals("Evicted", p.reason());
    assertEquals(1, p.attempt());
    assertTrue(p.ready());
    assertTrue(p.deleting());
    assertEquals(Instant.parse("2026-12-01T08:01:00Z"), p.started());
    assertEquals(ContainerSnapshot.Status.TERMINATED, p.initContainers().get(0).status());
    assertEquals(0, p.initContainers().get(0).exitCode());
    ContainerSnapshot node = p.containers().get(0);
    assertEquals(ContainerSnapshot.Status.WAITING, node.status());
    assertEquals("ImagePullBackOff", node.reason());
    assertEquals("back-off", node.message());
    assertEquals("ghcr.io/acme/train:1", node.image(), "the image asked for, not the one reported");
    assertEquals(ContainerSnapshot.Status.RUNNING, p.containers().get(1).status());
    assertEquals(
        "busybox", p.containers().get(1).image(), "matched to its own spec container by name");
    assertEquals("EvictionByEvictionAPI", p.conditions().get(1).reason());
    assertTrue(p.runsRanks(), "a pod without the runs-ranks annotation is a node");
  }

  @Test
  @DisplayName(
      "a pod annotated trainyard.dev/runs-ranks: \"false\" (the MPI launcher) is no node; any other value is one")
  void launcherPod() {
    Pod pod = Serialization.unmarshal(POD, Pod.class);
    pod.getMetadata().setAnnotations(Map.of("trainyard.dev/runs-ranks", "false"));
    assertFalse(Snapshots.pod(pod).runsRanks());
    pod.getMetadata().setAnnotations(Map.of("trainyard.dev/runs-ranks", "true"));
    assertTrue(Snapshots.pod(pod).runsRanks());
    pod.getMetadata().setAnnotations(null);
    assertTrue(Snapshots.pod(pod).runsRanks());
  }

  @Test
  @DisplayName("a pod with no status yet is Pending, unscheduled, attempt 0, with no containers")
  void barePod() {
    PodSnapshot p =
        Snapshots.pod(
            Serialization.unmarshal("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n", Pod.class));
    assertEquals("Pending", p.phase());
    assertEquals("", p.node());
    assertEquals(0, p.attempt());
    assertFalse(p.ready());
    assertTrue(p.containers().isEmpty());
  }

  @Test
  @DisplayName(
      "fields a client may leave null (labels, status lists, spec, container lists) read as empty, never fail")
  void explicitNulls() {
    Pod pod = Serialization.unmarshal(POD, Pod.class);
    pod.getMetadata().setLabels(null);
    pod.getStatus().setConditions(null);
    pod.getStatus().setContainerStatuses(null);
    pod.getSpec().setInitContainers(null);
    PodSnapshot p = Snapshots.pod(pod);
    assertEquals(0, p.attempt());
    assertTrue(p.conditions().isEmpty());
    assertTrue(p.containers().isEmpty());
    assertEquals("", p.initContainers().get(0).image(), "no spec to take the image from");
    pod.setSpec(null);
    assertEquals("", Snapshots.pod(pod).node());
    GenericKubernetesResource js = Serialization.unmarshal(JOBSET, GenericKubernetesResource.class);
    js.getMetadata().setLabels(null);
    assertEquals("", Snapshots.jobSet(js).localQueue());
    assertNull(Snapshots.time("  "));
    assertNull(Snapshots.time(null));
    assertEquals(7, Snapshots.integer(null, 7));
    assertEquals(3, Snapshots.integer(" 3".strip(), 7));
  }

  @Test
  @DisplayName("a Workload: its ClusterQueue and conditions; its owner JobSet is the run key")
  void workload() {
    GenericKubernetesResource w =
        Serialization.unmarshal(WORKLOAD, GenericKubernetesResource.class);
    WorkloadSnapshot s = Snapshots.workload(w);
    assertEquals("gpu-cq", s.clusterQueue());
    assertFalse(s.conditions().get(0).isTrue());
    assertEquals("insufficient quota", s.conditions().get(0).message());
    assertEquals(new RunKey("team-a", "llama-ft-7f3a9c"), RunKeys.owner(w).orElseThrow());
    GenericKubernetesResource orphan =
        Serialization.unmarshal(
            "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w, namespace: n}\n",
            GenericKubernetesResource.class);
    assertTrue(RunKeys.owner(orphan).isEmpty());
    assertEquals("", Snapshots.workload(orphan).clusterQueue());
  }

  static final String USER_JOBSET =
      """
            apiVersion: jobset.x-k8s.io/v1alpha2
            kind: JobSet
            metadata:
              name: r
              namespace: team-a
              annotations: {trainyard.dev/image: "ghcr.io/acme/t:1", trainyard.dev/image-source: train.yaml}
            spec:
              replicatedJobs:
              - name: launcher
                template: {spec: {activeDeadlineSeconds: 600}}
              - name: node
                template: {spec: {activeDeadlineSeconds: 86400}}
            """;

  static final String INACTIVE_WORKLOAD =
      """
            apiVersion: kueue.x-k8s.io/v1beta2
            kind: Workload
            metadata: {name: w, namespace: team-a}
            spec: {active: false, queueName: gpu}
            status:
              conditions:
              - {type: Evicted, status: "True", reason: DeactivatedDueToRequeuingLimitExceeded,
                 message: "The workload is deactivated due to exceeding the maximum number of re-queuing retries"}
            """;

  @Test
  @DisplayName(
      "what train.yaml set: the image when image-source says train.yaml, the timeout from activeDeadlineSeconds (the longest)")
  void userSettings() {
    JobSetSnapshot js =
        Snapshots.jobSet(Serialization.unmarshal(USER_JOBSET, GenericKubernetesResource.class));
    assertEquals(new UserSettings("ghcr.io/acme/t:1", Duration.ofHours(24)), js.settings());
    JobSetSnapshot runtime =
        Snapshots.jobSet(
            Serialization.unmarshal(
                USER_JOBSET.replace(", trainyard.dev/image-source: train.yaml", ""),
                GenericKubernetesResource.class));
    assertEquals(
        new UserSettings("", Duration.ofHours(24)),
        runtime.settings(),
        "the runtime's image is not the user's");
    assertEquals(
        UserSettings.NONE,
        Snapshots.jobSet(Serialization.unmarshal(JOBSET, GenericKubernetesResource.class))
            .settings());
    GenericKubernetesResource pruned =
        CachePruning.jobSet(Serialization.unmarshal(USER_JOBSET, GenericKubernetesResource.class));
    assertEquals(js, Snapshots.jobSet(pruned), "the cache keeps the deadline and the annotations");
  }

  @Test
  @DisplayName(
      "processes per node: the compiled torch JobSet's PET_NPROC_PER_NODE (golden torch-minimal:"
          + " 4), kept by the cache; an MPI JobSet (golden example-mlx-mnist) has none: 0")
  void processesPerNode() throws Exception {
    Path golden = Path.of("..", "golden");
    GenericKubernetesResource torch =
        Serialization.unmarshal(
            Files.readString(
                golden.resolve(
                    "torch-minimal/expected/clusters/local/default/torch-minimal-4e0a62/"
                        + "jobset-torch-minimal-4e0a62.yaml")),
            GenericKubernetesResource.class);
    assertEquals(4, Snapshots.jobSet(torch).settings().processesPerNode());
    assertEquals(4, Snapshots.jobSet(CachePruning.jobSet(torch)).settings().processesPerNode());
    GenericKubernetesResource mpi =
        Serialization.unmarshal(
            Files.readString(
                golden.resolve(
                    "example-mlx-mnist/expected/clusters/local/ml/example-mlx-mnist-578ffe/"
                        + "jobset-example-mlx-mnist-578ffe.yaml")),
            GenericKubernetesResource.class);
    assertEquals(0, Snapshots.jobSet(mpi).settings().processesPerNode());
    assertEquals(3, Snapshots.jobSet(mpi).expectedNodes());
  }

  @Test
  @DisplayName(
      "a Workload's spec.active: false is read (and kept by the cache); absent is Kueue's default, true")
  void workloadActive() {
    GenericKubernetesResource w =
        Serialization.unmarshal(INACTIVE_WORKLOAD, GenericKubernetesResource.class);
    assertFalse(Snapshots.workload(w).active());
    assertFalse(Snapshots.workload(CachePruning.workload(w)).active());
    assertTrue(
        Snapshots.workload(Serialization.unmarshal(WORKLOAD, GenericKubernetesResource.class))
            .active());
    assertFalse(
        Serialization.asYaml(CachePruning.workload(w)).contains("queueName"),
        "only spec.active is kept");
  }

  @Test
  @DisplayName("a Job's status.failedIndexes and a terminated container's finishedAt are read")
  void failedIndexesAndFinish() {
    Job job =
        Serialization.unmarshal(
            """
                apiVersion: batch/v1
                kind: Job
                metadata: {name: r-node-0, namespace: team-a}
                status:
                  failedIndexes: "1,3"
                  conditions:
                  - {type: Failed, status: "True", reason: FailedIndexes, message: Job has failed indexes}
                """,
            Job.class);
    JobSnapshot j = Snapshots.job(job);
    assertEquals("1,3", j.failedIndexes());
    assertEquals("FailedIndexes", j.conditions().get(0).reason());
    assertEquals(
        "",
        Snapshots.job(
                Serialization.unmarshal(
                    "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\n", Job.class))
            .failedIndexes());
    Pod pod =
        Serialization.unmarshal(
            POD.replace(
                "state: {terminated: {exitCode: 0, reason: Completed}}",
                "state: {terminated: {exitCode: 0, reason: Completed, finishedAt: \"2026-12-01T08:02:00Z\"}}"),
            Pod.class);
    assertEquals(
        Instant.parse("2026-12-01T08:02:00Z"),
        Snapshots.pod(pod).initContainers().get(0).finishedAt());
  }

  @Test
  @DisplayName("numbers and times that do not parse read as their defaults")
  void lenient() {
    assertEquals(4, Snapshots.integer("x", 4));
    assertEquals(7, Snapshots.integer("7", 4));
    assertEquals(4, Snapshots.integer(null, 4));
    assertNull(Snapshots.time("yesterday"));
    assertNull(Snapshots.time(" "));
    assertEquals(Map.of(), Snapshots.map("not a map"));
  }
}
