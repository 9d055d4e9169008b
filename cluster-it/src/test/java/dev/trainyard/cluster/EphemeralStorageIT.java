package dev.trainyard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.LimitRange;
import io.fabric8.kubernetes.api.model.LimitRangeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Node disk (platform.yaml {@code ephemeralStorage}) as the real kube-apiserver and kube-scheduler
 * see it, on each compiled pod template (a server-side dry run, as {@link PodSecurityIT} does). A
 * LimitRange of type {@code Pod} with {@code min} (or {@code max}) on ephemeral-storage refuses a
 * pod without a request (limit): "No request is specified" (plugin/pkg/admission/limitranger,
 * PodLimitFunc; the pod's value is the larger of its init containers' and its containers' sum, so
 * the code-sync init container counts too); it admits the compiled pods. A {@code Container}
 * LimitRange fills a missing value from its defaults (core/v1 SetDefaults_LimitRangeItem derives
 * them from min and max), so there the compiled values only have to lie inside min and max. The
 * scheduler places a compiled pod by its request (the torch golden runs to Completed in {@link
 * JobSetLifecycleIT}) and leaves one asking for more disk than any kwok node has ({@link
 * FakeNodes#EPHEMERAL_STORAGE}) Pending.
 */
@ExtendWith(KubeClusterExtension.class)
class EphemeralStorageIT {
  static final String DISK = "ephemeral-storage";
  static final Duration WITHIN = Duration.ofSeconds(60);

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"torch-minimal", "mpi-separate-launcher"})
  @DisplayName(
      "a Pod LimitRange with min ephemeral-storage admits every compiled pod of the embedded platform (10Gi requests)")
  void podMinAdmitsRequests(String golden, KubeCluster cluster) {
    String namespace = limitRangeNamespace(cluster, "Pod", Map.of("min", "1Gi"));
    List<Pod> pods = PodSecurityIT.pods(golden);
    assertFalse(pods.isEmpty(), golden);
    for (Pod pod : pods) {
      cluster.client().pods().inNamespace(namespace).resource(pod).dryRun().create();
    }
  }

  @Test
  @DisplayName(
      "the same LimitRange refuses the pod once its containers' requests are removed: No request is specified")
  void podMinRefusesPodWithoutRequest(KubeCluster cluster) {
    String namespace = limitRangeNamespace(cluster, "Pod", Map.of("min", "1Gi"));
    Pod pod = PodSecurityIT.pods("torch-minimal").get(0);
    // The pod's request is the larger of the init container's and the containers' sum, so the
    // code-sync init container's request alone would still meet min.
    node(pod).getResources().getRequests().remove(DISK);
    pod.getSpec().getInitContainers().get(0).getResources().getRequests().remove(DISK);
    String message = refused(cluster, namespace, pod).toLowerCase(Locale.ROOT);
    assertTrue(
        message.contains("minimum " + DISK + " usage per pod is 1gi")
            && message.contains("no request is specified"),
        message);
  }

  @Test
  @DisplayName(
      "a Pod LimitRange with max admits the example platform's pods (limit 200Gi) and refuses the embedded platform's (no limit)")
  void podMaxNeedsPlatformLimit(KubeCluster cluster) {
    String namespace = limitRangeNamespace(cluster, "Pod", Map.of("max", "500Gi"));
    for (Pod pod : PodSecurityIT.pods("example-hf-trainer")) {
      cluster.client().pods().inNamespace(namespace).resource(pod).dryRun().create();
    }
    String message =
        refused(cluster, namespace, PodSecurityIT.pods("torch-minimal").get(0))
            .toLowerCase(Locale.ROOT);
    assertTrue(
        message.contains("maximum " + DISK + " usage per pod is 500gi")
            && message.contains("no limit is specified"),
        message);
  }

  @Test
  @DisplayName(
      "a Container LimitRange min 1Gi / max 500Gi admits the compiled pods and keeps their values; min 20Gi refuses the 10Gi request")
  void limitRangeBounds(KubeCluster cluster) {
    String namespace =
        limitRangeNamespace(cluster, "Container", Map.of("min", "1Gi", "max", "500Gi"));
    for (Pod pod : PodSecurityIT.pods("example-hf-trainer")) {
      Pod admitted = cluster.client().pods().inNamespace(namespace).resource(pod).dryRun().create();
      for (Container c : admitted.getSpec().getInitContainers()) {
        assertEquals("200Gi", c.getResources().getLimits().get(DISK).toString(), c.getName());
      }
      assertEquals("50Gi", node(admitted).getResources().getRequests().get(DISK).toString());
    }
    String strict =
        limitRangeNamespace(cluster, "Container", Map.of("min", "20Gi", "max", "500Gi"));
    String message =
        refused(cluster, strict, PodSecurityIT.pods("torch-minimal").get(0))
            .toLowerCase(Locale.ROOT);
    assertTrue(
        message.contains("minimum " + DISK + " usage per container is 20gi, but request is 10gi"),
        message);
  }

  @Test
  @DisplayName(
      "the scheduler counts the request: a compiled pod asking for more disk than any node has stays Pending, Insufficient ephemeral-storage")
  void schedulerCountsRequest(KubeCluster cluster) {
    String namespace = cluster.newNamespace();
    Pod pod = PodSecurityIT.pods("torch-minimal").get(0);
    assertEquals("10Gi", node(pod).getResources().getRequests().get(DISK).toString());
    node(pod).getResources().getRequests().put(DISK, new Quantity("2Ti"));
    var created = cluster.client().pods().inNamespace(namespace).resource(pod).create();
    var handle =
        cluster.client().pods().inNamespace(namespace).withName(created.getMetadata().getName());
    Eventually.await(
        "PodScheduled=False naming ephemeral-storage",
        WITHIN,
        () ->
            unscheduled(handle.get())
                .map(c -> c.getMessage().contains("Insufficient " + DISK))
                .orElse(false),
        () -> String.valueOf(handle.get().getStatus()));
  }

  private static Optional<PodCondition> unscheduled(Pod pod) {
    return pod.getStatus().getConditions().stream()
        .filter(c -> "PodScheduled".equals(c.getType()) && "False".equals(c.getStatus()))
        .findFirst();
  }

  private static String refused(KubeCluster cluster, String namespace, Pod pod) {
    KubernetesClientException e =
        assertThrows(
            KubernetesClientException.class,
            () -> cluster.client().pods().inNamespace(namespace).resource(pod).dryRun().create());
    assertEquals(403, e.getCode(), e.getMessage());
    return e.getMessage();
  }

  private static Container node(Pod pod) {
    return pod.getSpec().getContainers().get(0);
  }

  /** A new namespace with a LimitRange of {@code type} whose {@code bounds} are min and/or max. */
  private static String limitRangeNamespace(
      KubeCluster cluster, String type, Map<String, String> bounds) {
    String namespace = cluster.newNamespace();
    LimitRange lr =
        new LimitRangeBuilder()
            .withNewMetadata()
            .withName("disk")
            .withNamespace(namespace)
            .endMetadata()
            .withNewSpec()
            .addNewLimit()
            .withType(type)
            .withMin(bound(bounds, "min"))
            .withMax(bound(bounds, "max"))
            .endLimit()
            .endSpec()
            .build();
    cluster.client().resource(lr).create();
    return namespace;
  }

  private static Map<String, Quantity> bound(Map<String, String> bounds, String which) {
    return bounds.containsKey(which) ? Map.of(DISK, new Quantity(bounds.get(which))) : null;
  }
}
