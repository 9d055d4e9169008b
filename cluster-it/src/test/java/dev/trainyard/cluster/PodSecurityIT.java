package dev.trainyard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The real kube-apiserver's PodSecurity admission (enforce {@code restricted}, latest version, on a
 * labelled namespace; kubernetes.io "Pod Security Admission") judges the pods the compiled JobSets
 * would create: every pod template of a golden becomes a Pod, created with a server-side dry run.
 * Runtimes that declare {@code podSecurity: restricted} (mpi, deepspeed, mlx) must be admitted; a
 * baseline one (torch, root) must be refused, which shows the check is live.
 */
@ExtendWith(KubeClusterExtension.class)
class PodSecurityIT {

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"example-deepspeed-t5", "example-mlx-mnist", "mpi-separate-launcher"})
  @DisplayName(
      "pods of restricted runtimes are admitted by a namespace that enforces Pod Security restricted")
  void restrictedRuntimesAdmitted(String golden, KubeCluster cluster) {
    String namespace = restrictedNamespace(cluster);
    List<Pod> pods = pods(golden);
    assertFalse(pods.isEmpty(), golden);
    for (Pod pod : pods) {
      cluster.client().pods().inNamespace(namespace).resource(pod).dryRun().create();
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"torch-minimal"})
  @DisplayName("pods of a root (baseline) runtime are refused there, naming runAsNonRoot")
  void baselineRuntimeRefused(String golden, KubeCluster cluster) {
    String namespace = restrictedNamespace(cluster);
    Pod pod = pods(golden).get(0);
    KubernetesClientException e =
        Assertions.assertThrows(
            KubernetesClientException.class,
            () -> cluster.client().pods().inNamespace(namespace).resource(pod).dryRun().create());
    assertEquals(403, e.getCode(), e.getMessage());
    assertTrue(
        e.getMessage().contains("violates PodSecurity \"restricted:latest\"")
            && e.getMessage().contains("runAsNonRoot"),
        e.getMessage());
  }

  static String restrictedNamespace(KubeCluster cluster) {
    String namespace = cluster.newNamespace();
    Edits.edit(
        cluster.client().namespaces().withName(namespace),
        ns -> {
          ns.getMetadata().getLabels().put("pod-security.kubernetes.io/enforce", "restricted");
          ns.getMetadata().getLabels().put("pod-security.kubernetes.io/enforce-version", "latest");
          return ns;
        });
    return namespace;
  }

  /** One Pod per replicated job of the golden's JobSet, from its pod template. */
  @SuppressWarnings("unchecked")
  static List<Pod> pods(String golden) {
    GenericKubernetesResource jobSet =
        new Manifests(null)
            .loadTree(JobSetLifecycleIT.goldenRun(golden)).stream()
                .filter(o -> "JobSet".equals(o.getKind()))
                .findFirst()
                .orElseThrow();
    List<Pod> pods = new ArrayList<>();
    for (Map<String, Object> rjob : JobSets.replicatedJobs(jobSet)) {
      Map<String, Object> template =
          (Map<String, Object>)
              ((Map<String, Object>) ((Map<String, Object>) rjob.get("template")).get("spec"))
                  .get("template");
      Pod pod = new Pod();
      pod.setMetadata(new ObjectMeta());
      pod.getMetadata().setName(jobSet.getMetadata().getName() + "-" + rjob.get("name") + "-0-0");
      pod.setSpec(
          Serialization.unmarshal(Serialization.asJson(template.get("spec")), PodSpec.class));
      pods.add(pod);
    }
    return pods;
  }
}
