package dev.trainyard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node lost without an eviction, through the real controllers (kube-controller-manager's node
 * lifecycle, taint eviction and PodGC controllers, the Job and JobSet controllers) and kwok.
 *
 * <p>Unreachable, then deleted: this module's kwok stages ({@code
 * kwok/node-unreachable-stages.yaml}) turn the node {@value #UNREACHABLE}'s Ready condition
 * Unknown, as when its kubelet stops posting; the node lifecycle controller taints it {@code
 * node.kubernetes.io/unreachable:NoExecute}; once the pods' default toleration ends
 * (DefaultTolerationSeconds: 300 s, 5 s in this harness's API server) the taint manager adds {@code
 * DisruptionTarget} reason {@code DeletionByTaintManager} and deletes them, and with no kubelet
 * they stay Running. A Job with a podFailurePolicy counts a pod only once it is terminal, so
 * nothing restarts until the Node is deleted (as a cloud provider's node lifecycle controller
 * deletes the Node of a VM that is gone, or an administrator does): PodGC then finds the pods bound
 * to a missing node (a pass every 20 s, 40 s of quarantine, so 40 to 80 s after the deletion;
 * kubernetes v1.36 {@code pkg/controller/podgc/gc_controller.go}), sets phase Failed with {@code
 * DisruptionTarget} reason {@code DeletionByPodGC} and force-deletes them, and the compiled policy
 * restarts the run, counted against {@code retries}. A NoExecute taint on a node whose kubelet
 * still runs (kwok ends the deleted pods as a kubelet does) restarts the runs at once.
 *
 * <p>Two compiled examples run side by side on two nodes of the test's own (tainted, so no other
 * test's pods land there): {@code examples/pytorch-ddp} (2 node pods, one per node; its checkpoint
 * claim bound to a static PV by the real PV controller) and {@code examples/infra-check} (MPI: the
 * 3 node pods on the node that is lost, the launcher on the node that stays). The surviving torch
 * rank and the MPI launcher keep running, as their compiled scripts do after a failure while a peer
 * does not answer (render {@code ExitGrace}: a 600 s wait, read from the compiled scripts, which
 * must outlast the restart; PeerExitTest, LauncherGraceTest and MpiNodeLossHostsIT run the
 * scripts): a survivor that exited at once would fail the run on its exit code (issue #19's
 * FailJob).
 */
@ExtendWith(KubeClusterExtension.class)
class NodeLossIT {

  static final String POOL = "trainyard.dev/it-pool";

  /**
   * The one node name this module's kwok stages make unreachable ({@code
   * kwok/node-unreachable-stages.yaml}).
   */
  static final String UNREACHABLE = "kwok-unreachable";

  /**
   * How long the test watches the unreachable node's deleted pods stay Running without a restart.
   */
  static final Duration UNREACHABLE_HELD = Duration.ofSeconds(5);

  /**
   * PodGC's worst case (up to 20 s to notice, 40 s quarantine, up to 20 s to the next pass) plus
   * the controllers.
   */
  static final Duration PODGC_TIMEOUT = Duration.ofSeconds(150);

  @Test
  @DisplayName(
      "an unreachable node (Ready=Unknown, taint manager: DeletionByTaintManager) restarts nothing while its pods stay Running; once its Node is deleted (PodGC: DeletionByPodGC) the torch and the MPI run restart, each counted against retries")
  void unreachableNodeRestartsTorchAndMpiRunsOnceDeleted(KubeCluster cluster, @TempDir Path temp) {
    String namespace = cluster.newNamespace();
    String kept = "kept-" + namespace;
    Map<String, String> disruptions = new ConcurrentHashMap<>();
    try (Watch watch =
        cluster.client().pods().inNamespace(namespace).watch(disruptionReasons(disruptions))) {
      Runs runs = Runs.start(cluster, namespace, temp, UNREACHABLE, kept, false);
      Edits.edit(
          cluster.client().nodes().withName(UNREACHABLE),
          node -> {
            node.getMetadata().getLabels().put("trainyard.dev/kwok-node", "unreachable");
            return node;
          });
      Instant unreachable = Instant.now();
      Eventually.await(
          "the taint manager deleting the unreachable node's 4 pods",
          RunPods.TIMEOUT,
          () -> count(disruptions, "DeletionByTaintManager") == 1 + MpiFailurePolicyIT.NODE_PODS,
          () -> disruptions.toString());
      System.out.println(
          "NodeLossIT: the taint manager deleted the pods "
              + Duration.between(unreachable, Instant.now()).toSeconds()
              + " s after the node turned unreachable");
      assertTrue(
          cluster.client().nodes().withName(UNREACHABLE).get().getSpec().getTaints().stream()
              .anyMatch(
                  t ->
                      "node.kubernetes.io/unreachable".equals(t.getKey())
                          && "NoExecute".equals(t.getEffect())),
          "the node lifecycle controller tainted the node unreachable");
      Eventually.sleep(UNREACHABLE_HELD);
      assertNoRestartYet(runs, cluster, namespace);

      cluster.client().nodes().withName(UNREACHABLE).delete();
      Duration took = runs.awaitBothRestarted(cluster, namespace, PODGC_TIMEOUT, disruptions);
      Duration launcherWaits = MpiFailurePolicyIT.launcherDisruptedWait(runs.infraCheck());
      Duration survivorWaits = survivorSilentPeerWait(runs.torch().get());
      System.out.println(
          "NodeLossIT: both runs restarted "
              + took.toSeconds()
              + " s after the Node was deleted (launch.sh waits "
              + launcherWaits.toSeconds()
              + " s and a torch survivor "
              + survivorWaits.toSeconds()
              + " s when a peer does not answer, "
              + MpiFailurePolicyIT.launcherGrace(runs.infraCheck()).toSeconds()
              + " s when one refuses); disruption conditions seen: "
              + disruptions);
      assertTrue(
          took.compareTo(launcherWaits) < 0 && took.compareTo(survivorWaits) < 0,
          "the restarts must come before the scripts' wait for a lost node ends");
      assertEquals(
          1 + MpiFailurePolicyIT.NODE_PODS,
          count(disruptions, "DeletionByPodGC"),
          "PodGC failed the lost node's pods (1 torch, 3 MPI) with DisruptionTarget/DeletionByPodGC: "
              + disruptions);
    } finally {
      cleanUp(cluster, namespace, UNREACHABLE, kept);
    }
  }

  /**
   * The compiled torch pods' wait after a failure while a peer does not answer ({@code grace=N;
   * why="$host:P does not answer}).
   */
  static Duration survivorSilentPeerWait(GenericKubernetesResource torchJobSet) {
    String command = Serialization.asJson(torchJobSet.getAdditionalProperties().get("spec"));
    Matcher m =
        Pattern.compile("grace=(\\d+); why=\\\\\"\\$host:\\d+ does not answer").matcher(command);
    assertTrue(m.find(), "no silent-peer wait in the torch pods' command");
    return Duration.ofSeconds(Long.parseLong(m.group(1)));
  }

  /**
   * While the unreachable node's pods are deleted but Running, neither run has restarted or failed.
   */
  static void assertNoRestartYet(Runs runs, KubeCluster cluster, String namespace) {
    for (GenericKubernetesResource jobSet : List.of(runs.torch().get(), runs.mpi().get())) {
      assertEquals(
          0,
          JobSets.restarts(jobSet),
          "no restart while the pods are not terminal; " + JobSets.describe(jobSet));
      assertFalse(JobSets.hasCondition(jobSet, "Failed"), JobSets.describe(jobSet));
    }
    List<Pod> stuck =
        cluster.client().pods().inNamespace(namespace).list().getItems().stream()
            .filter(p -> UNREACHABLE.equals(p.getSpec().getNodeName()))
            .toList();
    assertTrue(
        stuck.size() == 1 + MpiFailurePolicyIT.NODE_PODS
            && stuck.stream()
                .allMatch(
                    p ->
                        "Running".equals(p.getStatus().getPhase())
                            && p.getMetadata().getDeletionTimestamp() != null),
        "the unreachable node's pods stay Running, being deleted: "
            + stuck.stream()
                .map(p -> p.getMetadata().getName() + " " + p.getStatus().getPhase())
                .toList());
  }

  static long count(Map<String, String> disruptions, String reason) {
    return disruptions.values().stream().filter(reason::equals).count();
  }

  @Test
  @DisplayName(
      "a NoExecute taint the pods do not tolerate (taint manager: DisruptionTarget/DeletionByTaintManager) restarts the torch and the MPI run on that node, each counted against retries")
  void noExecuteTaintRestartsTorchAndMpiRuns(KubeCluster cluster, @TempDir Path temp) {
    String namespace = cluster.newNamespace();
    String drained = "drained-" + namespace;
    String kept = "kept-" + namespace;
    Map<String, String> disruptions = new ConcurrentHashMap<>();
    try (Watch watch =
        cluster.client().pods().inNamespace(namespace).watch(disruptionReasons(disruptions))) {
      Runs runs = Runs.start(cluster, namespace, temp, drained, kept, true);
      Edits.edit(
          cluster.client().nodes().withName(drained),
          node -> {
            node.getSpec()
                .getTaints()
                .add(
                    new TaintBuilder()
                        .withKey("trainyard.dev/it-drain")
                        .withValue(namespace)
                        .withEffect("NoExecute")
                        .build());
            return node;
          });
      Duration took = runs.awaitBothRestarted(cluster, namespace, RunPods.TIMEOUT, disruptions);
      System.out.println(
          "NodeLossIT: both runs restarted "
              + took.toMillis()
              + " ms after the NoExecute taint; "
              + disruptions);
      assertEquals(
          1 + MpiFailurePolicyIT.NODE_PODS,
          count(disruptions, "DeletionByTaintManager"),
          "the tainted node's pods (1 torch, 3 MPI) each got DisruptionTarget/DeletionByTaintManager: "
              + disruptions);
    } finally {
      cleanUp(cluster, namespace, drained, kept);
    }
  }

  /**
   * The two compiled runs in this test's pool of nodes {@code lost} and {@code kept}, running;
   * {@code survivor} is the torch pod on {@code kept}.
   */
  record Runs(
      Resource<GenericKubernetesResource> torch,
      Resource<GenericKubernetesResource> mpi,
      CompiledExample infraCheck,
      Pod survivor) {

    /**
     * With {@code kubelet} false, deleted pods are not ended as a kubelet ends them ({@link
     * RunPods#heldWithoutKubelet}).
     */
    static Runs start(
        KubeCluster cluster,
        String namespace,
        Path temp,
        String lost,
        String kept,
        boolean kubelet) {
      long t0 = System.nanoTime();
      FakeNodes.createTainted(cluster.client(), lost, POOL, namespace);
      FakeNodes.createTainted(cluster.client(), kept, POOL, namespace);
      long nodes = System.nanoTime();
      CompiledExample torchExample = CompiledExample.compile("pytorch-ddp", temp.resolve("torch"));
      String claimName = checkpointClaim(torchExample);
      bindSnapshotClaim(cluster, namespace, claimName);
      long claim = System.nanoTime();
      var torch = startTorch(cluster, namespace, torchExample, kubelet);
      awaitBound(cluster, namespace, claimName);
      CompiledExample infraCheck =
          CompiledExample.compile(MpiFailurePolicyIT.EXAMPLE, temp.resolve("mpi"));
      var mpi = startMpi(cluster, namespace, infraCheck, lost, kept, kubelet);
      long applied = System.nanoTime();
      String mpiName = mpi.get().getMetadata().getName();
      List<Pod> torchPods =
          RunPods.running(cluster, namespace, torch.get().getMetadata().getName(), "node", 0, 2);
      RunPods.running(cluster, namespace, mpiName, "node", 0, MpiFailurePolicyIT.NODE_PODS);
      RunPods.running(cluster, namespace, mpiName, "launcher", 0, 1);
      Pod survivor =
          torchPods.stream()
              .filter(p -> kept.equals(p.getSpec().getNodeName()))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no torch pod on " + kept));
      System.out.printf(
          "NodeLossIT: set-up ms: nodes Ready %d, PVC Bound %d, compiled and applied %d, pods running %d%n",
          (nodes - t0) / 1_000_000,
          (claim - nodes) / 1_000_000,
          (applied - claim) / 1_000_000,
          (System.nanoTime() - applied) / 1_000_000);
      return new Runs(torch, mpi, infraCheck, survivor);
    }

    /**
     * Waits until both runs restarted once, counted, and not Failed, the surviving torch rank still
     * running (its script waits while its peer is silent); returns the time that took.
     */
    Duration awaitBothRestarted(
        KubeCluster cluster, String namespace, Duration timeout, Map<String, String> disruptions) {
      Instant start = Instant.now();
      Eventually.await(
          "both runs restarted",
          timeout,
          () -> JobSets.restarts(torch.get()) >= 1 && JobSets.restarts(mpi.get()) >= 1,
          () ->
              "torch "
                  + JobSets.describe(torch.get())
                  + "; mpi "
                  + JobSets.describe(mpi.get())
                  + "; disruptions "
                  + disruptions);
      Duration took = Duration.between(start, Instant.now());
      assertRestartedOnce(torch.get());
      assertRestartedOnce(mpi.get());
      return took;
    }
  }

  static void cleanUp(KubeCluster cluster, String namespace, String... nodes) {
    for (String node : nodes) {
      cluster.client().nodes().withName(node).delete();
    }
    cluster.client().persistentVolumes().withName(snapshotVolume(namespace)).delete();
  }

  static void assertRestartedOnce(GenericKubernetesResource jobSet) {
    assertEquals(1, JobSets.restarts(jobSet), JobSets.describe(jobSet));
    assertEquals(
        1,
        JobSets.restartsCountTowardsMax(jobSet),
        "the node loss must count against retries; " + JobSets.describe(jobSet));
    assertFalse(
        JobSets.hasCondition(jobSet, "Failed"),
        "a node loss must not fail the run; " + JobSets.describe(jobSet));
  }

  /** pytorch-ddp, its 2 pods in this test's pool, one per node. */
  static Resource<GenericKubernetesResource> startTorch(
      KubeCluster cluster, String namespace, CompiledExample torch, boolean kubelet) {
    GenericKubernetesResource jobSet =
        kubelet ? RunPods.held(torch) : RunPods.heldWithoutKubelet(torch);
    JobSets.tolerate(jobSet, POOL, namespace);
    JobSets.pinPods(jobSet, "node", POOL, namespace);
    JobSets.spreadPods(jobSet, "node", "trainyard.dev/run", jobSet.getMetadata().getName());
    return RunPods.apply(cluster, namespace, torch, jobSet);
  }

  /** infra-check, its node pods on {@code lost}, its launcher on {@code kept}. */
  static Resource<GenericKubernetesResource> startMpi(
      KubeCluster cluster,
      String namespace,
      CompiledExample mpi,
      String lost,
      String kept,
      boolean kubelet) {
    GenericKubernetesResource jobSet =
        kubelet ? RunPods.held(mpi) : RunPods.heldWithoutKubelet(mpi);
    JobSets.tolerate(jobSet, POOL, namespace);
    JobSets.pinPods(jobSet, "node", "kubernetes.io/hostname", lost);
    JobSets.pinPods(jobSet, "launcher", "kubernetes.io/hostname", kept);
    return RunPods.apply(cluster, namespace, mpi, jobSet);
  }

  /**
   * The name of pytorch-ddp's checkpoint claim ({@code checkpoint:} on the default platform: a
   * ReadWriteOnce claim per job, {@code <job>-<6 hex>}), which the run's companions create.
   */
  static String checkpointClaim(CompiledExample torch) {
    return torch
        .companions()
        .filter(o -> "PersistentVolumeClaim".equals(o.getKind()))
        .map(o -> o.getMetadata().getName())
        .findFirst()
        .orElseThrow(() -> new AssertionError("pytorch-ddp compiles no checkpoint claim"));
  }

  /**
   * A static hostPath PV of its own, pre-bound to pytorch-ddp's checkpoint claim {@code claim} (no
   * provisioner here), which the PV controller binds once the run's companions create the claim.
   */
  static void bindSnapshotClaim(KubeCluster cluster, String namespace, String claim) {
    PersistentVolume volume =
        new PersistentVolumeBuilder()
            .withNewMetadata()
            .withName(snapshotVolume(namespace))
            .endMetadata()
            .withNewSpec()
            .withCapacity(Map.of("storage", new Quantity("10Gi")))
            .withAccessModes("ReadWriteOnce")
            .withStorageClassName("")
            .withNewHostPath()
            .withPath("/tmp/" + namespace)
            .endHostPath()
            .withNewClaimRef()
            .withNamespace(namespace)
            .withName(claim)
            .endClaimRef()
            .endSpec()
            .build();
    cluster.client().resource(volume).create();
  }

  /** Waits until the run's checkpoint claim {@code claim} is Bound to its PV. */
  static void awaitBound(KubeCluster cluster, String namespace, String claim) {
    var stored = cluster.client().persistentVolumeClaims().inNamespace(namespace).withName(claim);
    Eventually.await(
        "PVC " + claim + " Bound",
        RunPods.TIMEOUT,
        () -> stored.get() != null && "Bound".equals(stored.get().getStatus().getPhase()));
  }

  static String snapshotVolume(String namespace) {
    return "ddp-snapshots-" + namespace;
  }

  /**
   * Records each {@code DisruptionTarget} reason a pod shows, keyed "pod reason", as the pods pass
   * (PodGC deletes them soon after).
   */
  static Watcher<Pod> disruptionReasons(Map<String, String> reasons) {
    return new Watcher<>() {
      @Override
      public void eventReceived(Action action, Pod pod) {
        if (pod.getStatus() == null) {
          return;
        }
        pod.getStatus().getConditions().stream()
            .filter(c -> "DisruptionTarget".equals(c.getType()) && "True".equals(c.getStatus()))
            .forEach(
                c ->
                    reasons.putIfAbsent(
                        pod.getMetadata().getName() + " " + c.getReason(), c.getReason()));
      }

      @Override
      public void onClose(WatcherException cause) {
        // The try-with-resources closes it; a broken watch shows as missing reasons in the
        // assertion.
      }
    };
  }
}
