package dev.trainyard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node lost without an eviction, through the real controllers: the test deletes a kwok Node that pods run
 * on, as a cloud provider's node lifecycle controller deletes the Node of a VM that is gone. kube-controller-manager's
 * PodGC then finds the pods bound to a missing node (it looks every 20 s and waits 40 s of quarantine,
 * kubernetes v1.36 {@code pkg/controller/podgc/gc_controller.go}), sets phase Failed with condition
 * {@code DisruptionTarget} reason {@code DeletionByPodGC} and force-deletes them. The Job controller records
 * the failure (its finalizer holds the pod) and the compiled policy must restart the run, counted against
 * {@code retries}.
 *
 * <p>Two compiled examples run side by side on two nodes of this test's own (tainted, so no other test's pods
 * land there): {@code examples/pytorch-ddp} (2 node pods, one per node; its PVC bound to a static PV by the
 * real PV controller) and {@code examples/infra-check} (MPI: the 3 node pods on the node that is lost, the
 * launcher on the node that stays). The torch rank that survives exits 1 at once, as a rank that lost its
 * peer does; the MPI launcher keeps running. One node loss serves both, as PodGC's timers dominate the time.
 */
@ExtendWith(KubeClusterExtension.class)
class NodeLossIT {

    static final String POOL = "trainyard.dev/it-pool";
    /** PodGC's worst case (20 s period + 40 s quarantine) plus the Job and JobSet controllers' reaction. */
    static final Duration PODGC_TIMEOUT = Duration.ofSeconds(120);

    @Test
    @DisplayName("a node deleted without an eviction (PodGC: DisruptionTarget/DeletionByPodGC) restarts the torch and the MPI run on it, each counted against retries")
    void deletedNodeRestartsTorchAndMpiRuns(KubeCluster cluster, @TempDir Path temp) {
        String namespace = cluster.newNamespace();
        String lost = "lost-" + namespace;
        String kept = "kept-" + namespace;
        FakeNodes.createTainted(cluster.client(), lost, POOL, namespace);
        FakeNodes.createTainted(cluster.client(), kept, POOL, namespace);
        Map<String, String> disruptions = new ConcurrentHashMap<>();
        try (Watch watch = cluster.client().pods().inNamespace(namespace).watch(disruptionReasons(disruptions))) {
            bindSnapshotClaim(cluster, namespace);
            var torch = startTorch(cluster, namespace, temp.resolve("torch"));
            var mpi = startMpi(cluster, namespace, temp.resolve("mpi"), lost, kept);
            String torchName = torch.get().getMetadata().getName();
            String mpiName = mpi.get().getMetadata().getName();
            List<Pod> torchPods = RunPods.running(cluster, namespace, torchName, "node", 0, 2);
            RunPods.running(cluster, namespace, mpiName, "node", 0, MpiFailurePolicyIT.NODE_PODS);
            RunPods.running(cluster, namespace, mpiName, "launcher", 0, 1);
            Pod survivor = torchPods.stream().filter(p -> kept.equals(p.getSpec().getNodeName())).findFirst().orElseThrow();

            cluster.client().nodes().withName(lost).delete();
            Instant deleted = Instant.now();
            assertTrue(RunPods.exit1UnlessGone(cluster, namespace, survivor), "the surviving torch rank's pod is gone");
            Eventually.await("both runs restarted after node " + lost + " was deleted", PODGC_TIMEOUT,
                    () -> JobSets.restarts(torch.get()) >= 1 && JobSets.restarts(mpi.get()) >= 1,
                    () -> "torch " + JobSets.describe(torch.get()) + "; mpi " + JobSets.describe(mpi.get()) + "; disruptions " + disruptions);
            System.out.println("NodeLossIT: both runs restarted " + Duration.between(deleted, Instant.now()).toSeconds()
                    + " s after the Node was deleted; disruption conditions seen: " + disruptions);

            assertRestartedOnce(torch.get());
            assertRestartedOnce(mpi.get());
            assertEquals(2 + MpiFailurePolicyIT.NODE_PODS - 1, disruptions.values().stream().filter("DeletionByPodGC"::equals).count(),
                    "the lost node's pods (1 torch, 3 MPI) each got DisruptionTarget/DeletionByPodGC: " + disruptions);
        } finally {
            cluster.client().nodes().withName(lost).delete();
            cluster.client().nodes().withName(kept).delete();
            cluster.client().persistentVolumes().withName(snapshotVolume(namespace)).delete();
        }
    }

    static void assertRestartedOnce(GenericKubernetesResource jobSet) {
        assertEquals(1, JobSets.restarts(jobSet), JobSets.describe(jobSet));
        assertEquals(1, JobSets.restartsCountTowardsMax(jobSet), "the node loss must count against retries; " + JobSets.describe(jobSet));
        assertFalse(JobSets.hasCondition(jobSet, "Failed"), "a node loss must not fail the run; " + JobSets.describe(jobSet));
    }

    /** pytorch-ddp, its 2 pods in this test's pool, one per node. */
    static io.fabric8.kubernetes.client.dsl.Resource<GenericKubernetesResource> startTorch(KubeCluster cluster, String namespace, Path dir) {
        CompiledExample torch = CompiledExample.compile("pytorch-ddp", dir);
        GenericKubernetesResource jobSet = RunPods.held(torch);
        JobSets.tolerate(jobSet, POOL, namespace);
        JobSets.pinPods(jobSet, "node", POOL, namespace);
        JobSets.spreadPods(jobSet, "node", "trainyard.dev/run", jobSet.getMetadata().getName());
        return RunPods.apply(cluster, namespace, torch, jobSet);
    }

    /** infra-check, its node pods on {@code lost}, its launcher on {@code kept}. */
    static io.fabric8.kubernetes.client.dsl.Resource<GenericKubernetesResource> startMpi(KubeCluster cluster, String namespace, Path dir,
            String lost, String kept) {
        CompiledExample mpi = CompiledExample.compile(MpiFailurePolicyIT.EXAMPLE, dir);
        GenericKubernetesResource jobSet = RunPods.held(mpi);
        JobSets.tolerate(jobSet, POOL, namespace);
        JobSets.pinPods(jobSet, "node", "kubernetes.io/hostname", lost);
        JobSets.pinPods(jobSet, "launcher", "kubernetes.io/hostname", kept);
        return RunPods.apply(cluster, namespace, mpi, jobSet);
    }

    /** pytorch-ddp's {@code ddp-snapshots} claim, bound by the PV controller to a static hostPath PV of its own. */
    static void bindSnapshotClaim(KubeCluster cluster, String namespace) {
        PersistentVolume volume = new PersistentVolumeBuilder().withNewMetadata().withName(snapshotVolume(namespace)).endMetadata()
                .withNewSpec().withCapacity(Map.of("storage", new Quantity("1Gi"))).withAccessModes("ReadWriteMany")
                .withStorageClassName("").withNewHostPath().withPath("/tmp/" + namespace).endHostPath()
                .withNewClaimRef().withNamespace(namespace).withName("ddp-snapshots").endClaimRef().endSpec().build();
        cluster.client().resource(volume).create();
        PersistentVolumeClaim claim = new PersistentVolumeClaimBuilder().withNewMetadata().withName("ddp-snapshots").endMetadata()
                .withNewSpec().withAccessModes("ReadWriteMany").withStorageClassName("").withVolumeName(snapshotVolume(namespace))
                .withNewResources().withRequests(Map.of("storage", new Quantity("1Gi"))).endResources().endSpec().build();
        cluster.client().resource(claim).inNamespace(namespace).create();
        var stored = cluster.client().persistentVolumeClaims().inNamespace(namespace).withName("ddp-snapshots");
        Eventually.await("PVC ddp-snapshots Bound", RunPods.TIMEOUT, () -> "Bound".equals(stored.get().getStatus().getPhase()));
    }

    static String snapshotVolume(String namespace) {
        return "ddp-snapshots-" + namespace;
    }

    /** Records each pod's {@code DisruptionTarget} reason by pod name, as the pods pass (PodGC deletes them soon after). */
    static Watcher<Pod> disruptionReasons(Map<String, String> reasons) {
        return new Watcher<>() {
            @Override
            public void eventReceived(Action action, Pod pod) {
                if (pod.getStatus() == null) {
                    return;
                }
                pod.getStatus().getConditions().stream()
                        .filter(c -> "DisruptionTarget".equals(c.getType()) && "True".equals(c.getStatus()))
                        .forEach(c -> reasons.putIfAbsent(pod.getMetadata().getName(), c.getReason()));
            }

            @Override
            public void onClose(WatcherException cause) {
                // The try-with-resources closes it; a broken watch shows as missing reasons in the assertion.
            }
        };
    }
}
