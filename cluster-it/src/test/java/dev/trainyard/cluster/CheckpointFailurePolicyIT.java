package dev.trainyard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue #21 on the real controllers (JobSet, Job, PV binder, scheduler, kwok as kubelet): the
 * compiled JobSet of golden {@code checkpoint-ddp-shared} (2 nodes, {@code recoverOnExitCodes: [75,
 * 76]}, its claim bound to a PersistentVolume) restarts when a pod exits 75 (kwok's {@code
 * trainyard-pod-recover} stage) and counts it against retries, never as the user's failure; an exit
 * 1 in the next attempt still fails the run at once. Pods of the next attempt start only after
 * every pod of the last one is gone ({@code BlockingRecreate}).
 */
@ExtendWith(KubeClusterExtension.class)
class CheckpointFailurePolicyIT {
  static final String GOLDEN = "checkpoint-ddp-shared";

  @Test
  @DisplayName(
      "compiled checkpoint run: exit 75 (a recover code) restarts the run (RestartOnRecoverExitCode, counted), the claim stays bound; exit 1 then fails it as the user's")
  void recoverExitRestarts(KubeCluster cluster) {
    String namespace = cluster.newNamespace();
    Manifests manifests = new Manifests(cluster.client());
    List<GenericKubernetesResource> tree =
        manifests.loadTree(JobSetLifecycleIT.goldenRun(GOLDEN).getParent());
    GenericKubernetesResource claim =
        tree.stream()
            .filter(o -> "PersistentVolumeClaim".equals(o.getKind()))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no claim in golden " + GOLDEN));
    bindVolume(cluster, namespace, claim);
    manifests.apply(manifests.placed(claim, namespace));
    String claimName = claim.getMetadata().getName();
    Eventually.await(
        "claim " + claimName + " Bound",
        FailurePolicyIT.FAIL_TIMEOUT,
        () ->
            "Bound"
                .equals(
                    cluster
                        .client()
                        .persistentVolumeClaims()
                        .inNamespace(namespace)
                        .withName(claimName)
                        .get()
                        .getStatus()
                        .getPhase()));
    GenericKubernetesResource jobSet =
        tree.stream().filter(o -> "JobSet".equals(o.getKind())).findFirst().orElseThrow();
    JobSets.unqueue(jobSet);
    JobSets.labelPods(jobSet, "trainyard.dev/kwok-outcome", "slow");
    JobSets.labelPods(jobSet, "trainyard.dev/kwok-on-delete", "fail");
    JobSets.annotatePods(jobSet, "trainyard.dev/kwok-run-for", FailurePolicyIT.RUN_FOR);
    var stored = FailurePolicyIT.apply(cluster, namespace, jobSet);
    String name = stored.get().getMetadata().getName();

    List<Pod> first = FailurePolicyIT.runningPods(cluster, namespace, name, 0);
    relabel(cluster, namespace, first.get(1), "recover");
    // The Job's failure message lives until the restart deletes the Job: read it on the way.
    String[] message = {"(none)"};
    Eventually.await(
        "JobSet " + name + " restarted once",
        FailurePolicyIT.FAIL_TIMEOUT,
        () -> {
          String m = FailurePolicyIT.jobFailure(cluster, namespace, name);
          if (!m.equals("(none)")) {
            message[0] = m;
          }
          return JobSets.restarts(stored.get()) == 1;
        },
        () -> JobSets.describe(stored.get()));
    assertFalse(JobSets.hasCondition(stored.get(), "Failed"), JobSets.describe(stored.get()));
    assertEquals(1, JobSets.restartsCountTowardsMax(stored.get()), JobSets.describe(stored.get()));

    List<Pod> second = FailurePolicyIT.runningPods(cluster, namespace, name, 1);
    assertEquals(
        "1",
        second.get(0).getMetadata().getLabels().get("jobset.sigs.k8s.io/restart-attempt"),
        "TRAINYARD_ATTEMPT's label");
    assertTrue(
        cluster
            .client()
            .pods()
            .inNamespace(namespace)
            .withLabel(JobSets.NAME_LABEL, name)
            .list()
            .getItems()
            .stream()
            .noneMatch(
                p ->
                    "0"
                        .equals(
                            p.getMetadata().getLabels().get("jobset.sigs.k8s.io/restart-attempt"))),
        "BlockingRecreate: no pod of attempt 0 is left beside attempt 1");
    FailurePolicyIT.endWithExitCode1(cluster, namespace, second.get(0));
    FailurePolicyIT.awaitFailed(stored);
    GenericKubernetesResource failed = stored.get();
    assertEquals(1, JobSets.restarts(failed), JobSets.describe(failed));
    assertEquals(
        "FailJobSetFailurePolicyAction",
        JobSets.conditionReason(failed, "Failed"),
        JobSets.describe(failed));
    System.out.println("CheckpointFailurePolicyIT: the recover exit's Job message: " + message[0]);
    assertTrue(
        message[0].contains(
            "/"
                + first.get(1).getMetadata().getName()
                + " failed with exit code 75 matching FailJob rule at index 1"),
        message[0]);
    assertEquals(
        "Bound",
        cluster
            .client()
            .persistentVolumeClaims()
            .inNamespace(namespace)
            .withName(claimName)
            .get()
            .getStatus()
            .getPhase(),
        "the checkpoint claim outlives the attempts");
  }

  /**
   * A StorageClass of the claim's name with no provisioner, and a PersistentVolume pre-bound to the
   * claim (claimRef), so the PV controller binds it as it would an NFS volume a platform made.
   */
  private static void bindVolume(
      KubeCluster cluster, String namespace, GenericKubernetesResource claim) {
    @SuppressWarnings("unchecked")
    Map<String, Object> spec = (Map<String, Object>) claim.getAdditionalProperties().get("spec");
    String storageClass = (String) spec.get("storageClassName");
    if (cluster.client().storage().v1().storageClasses().withName(storageClass).get() == null) {
      cluster
          .client()
          .storage()
          .v1()
          .storageClasses()
          .resource(
              new StorageClassBuilder()
                  .withNewMetadata()
                  .withName(storageClass)
                  .endMetadata()
                  .withProvisioner("kubernetes.io/no-provisioner")
                  .withVolumeBindingMode("Immediate")
                  .build())
          .create();
    }
    cluster
        .client()
        .persistentVolumes()
        .resource(
            new PersistentVolumeBuilder()
                .withNewMetadata()
                .withName(namespace + "-" + claim.getMetadata().getName())
                .endMetadata()
                .withNewSpec()
                .withCapacity(Map.of("storage", new Quantity("200Gi")))
                .withAccessModes("ReadWriteMany")
                .withStorageClassName(storageClass)
                .withNewNfs()
                .withServer("10.0.0.1")
                .withPath("/exports/checkpoints")
                .endNfs()
                .withNewClaimRef()
                .withNamespace(namespace)
                .withName(claim.getMetadata().getName())
                .endClaimRef()
                .endSpec()
                .build())
        .create();
  }

  private static void relabel(KubeCluster cluster, String namespace, Pod pod, String outcome) {
    Edits.edit(
        cluster.client().pods().inNamespace(namespace).withName(pod.getMetadata().getName()),
        p -> {
          p.getMetadata().getLabels().put("trainyard.dev/kwok-outcome", outcome);
          return p;
        });
  }
}
