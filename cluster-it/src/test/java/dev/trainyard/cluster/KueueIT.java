package dev.trainyard.cluster;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Kueue v1beta2 objects against the real Kueue CRDs (always), and admission by the real Kueue
 * controller when {@code bin/kueue} was built: a JobSet labelled {@code kueue.x-k8s.io/queue-name}
 * is created suspended by Kueue's webhook and unsuspended once its Workload fits the ClusterQueue's
 * nominal quota (kueue pkg/controller/jobs/jobset). Each test uses its own flavor, ClusterQueue
 * (namespaceSelector {}) and LocalQueue.
 */
@ExtendWith(KubeClusterExtension.class)
class KueueIT {

  static final Duration ADMIT_TIMEOUT = Duration.ofSeconds(90);
  static final Duration STAYS_QUEUED = Duration.ofSeconds(15);

  @Test
  @DisplayName(
      "ResourceFlavor, ClusterQueue (namespaceSelector {}) and LocalQueue pass a server-side dry run")
  void queueObjectsPassDryRun(KubeCluster cluster) {
    Manifests manifests = new Manifests(cluster.client());
    String namespace = cluster.newNamespace();
    for (GenericKubernetesResource object : queueObjects("dry-run", "1")) {
      GenericKubernetesResource result = manifests.dryRunApply(manifests.placed(object, namespace));
      assertTrue(
          result.getMetadata().getName().startsWith("dry-run"), result.getMetadata().getName());
    }
  }

  @Test
  @DisplayName("a queued JobSet that fits the ClusterQueue's quota is admitted (unsuspended)")
  void fittingJobSetIsAdmitted(KubeCluster cluster) {
    assumeTrue(
        cluster.runs(Component.KUEUE_CONTROLLER),
        "NOT RUN: Kueue controller not built (see VERSIONS)");
    var jobSet = submitQueued(cluster, "fits", "4");
    Eventually.await(
        "JobSet admitted (spec.suspend=false)",
        ADMIT_TIMEOUT,
        () -> !JobSets.suspended(jobSet.get()),
        () -> JobSets.describe(jobSet.get()));
  }

  @Test
  @DisplayName("a queued JobSet that exceeds the ClusterQueue's quota stays suspended")
  void oversizedJobSetStaysSuspended(KubeCluster cluster) {
    assumeTrue(
        cluster.runs(Component.KUEUE_CONTROLLER),
        "NOT RUN: Kueue controller not built (see VERSIONS)");
    var jobSet = submitQueued(cluster, "too-big", "100m");
    Eventually.await(
        "Kueue suspends the JobSet", ADMIT_TIMEOUT, () -> JobSets.suspended(jobSet.get()));
    Eventually.sleep(STAYS_QUEUED);
    assertTrue(
        JobSets.suspended(jobSet.get()),
        "still suspended after "
            + STAYS_QUEUED.toSeconds()
            + "s; "
            + JobSets.describe(jobSet.get()));
  }

  /** Queue objects with quota {@code cpuQuota}, then a 2-pod JobSet asking 200m cpu each. */
  private static Resource<GenericKubernetesResource> submitQueued(
      KubeCluster cluster, String prefix, String cpuQuota) {
    Manifests manifests = new Manifests(cluster.client());
    String namespace = cluster.newNamespace();
    for (GenericKubernetesResource object : queueObjects(prefix, cpuQuota)) {
      manifests.apply(manifests.placed(object, namespace));
    }
    GenericKubernetesResource jobSet = JobSets.minimal(prefix + "-run", "node", 1, 2);
    jobSet
        .getMetadata()
        .setLabels(new HashMap<>(Map.of("kueue.x-k8s.io/queue-name", prefix + "-lq")));
    manifests.apply(manifests.placed(jobSet, namespace));
    return JobSets.api(cluster.client()).inNamespace(namespace).withName(prefix + "-run");
  }

  /** {@code manifests/queues.yaml} renamed with {@code prefix} and given {@code cpuQuota}. */
  static List<GenericKubernetesResource> queueObjects(String prefix, String cpuQuota) {
    return Manifests.parse(
        ClusterBootstrap.resource("manifests/queues.yaml")
            .replace("PREFIX", prefix)
            .replace("CPU_QUOTA", cpuQuota));
  }
}
