package dev.trainyard.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Fake kwok nodes: {@value #CPU_NODES} CPU-only nodes and {@value #GPU_NODES} nodes with {@value
 * #GPUS_PER_NODE} {@code nvidia.com/gpu} each. Every node has 32 cpu, 256Gi memory, {@value
 * #EPHEMERAL_STORAGE} ephemeral-storage, 110 pods. kwok (started with {@code --manage-all-nodes})
 * heartbeats them and runs their pods through its stages.
 */
final class FakeNodes {

  static final int CPU_NODES = 2;
  static final int GPU_NODES = 2;
  static final int GPUS_PER_NODE = 8;
  static final String GPU = "nvidia.com/gpu";
  static final String EPHEMERAL_STORAGE = "1Ti";

  private FakeNodes() {}

  static void createAndAwaitReady(KubernetesClient client, ClusterProcess kwok) {
    for (int i = 0; i < CPU_NODES; i++) {
      client.resource(node("kwok-cpu-" + i, 0)).create();
    }
    for (int i = 0; i < GPU_NODES; i++) {
      client.resource(node("kwok-gpu-" + i, GPUS_PER_NODE)).create();
    }
    Eventually.await(
        (CPU_NODES + GPU_NODES) + " kwok nodes Ready",
        LocalCluster.READY_TIMEOUT,
        () -> {
          kwok.requireAlive();
          List<Node> nodes = client.nodes().withLabel("type", "kwok").list().getItems();
          return nodes.size() == CPU_NODES + GPU_NODES && nodes.stream().allMatch(FakeNodes::ready);
        });
  }

  /**
   * One more kwok node for a test that loses it: {@value #GPUS_PER_NODE} GPUs, label and NoSchedule
   * taint {@code key=value} (so only pods that tolerate it land there, and other tests' pods never
   * do), no {@code type=kwok} label (the cluster's own nodes keep their count); waits until kwok
   * reports it Ready.
   */
  static Node createTainted(KubernetesClient client, String name, String key, String value) {
    Node node = node(name, GPUS_PER_NODE);
    node.getMetadata().getLabels().remove("type");
    node.getMetadata().getLabels().put(key, value);
    node.setSpec(
        new NodeSpecBuilder()
            .addNewTaint()
            .withKey(key)
            .withValue(value)
            .withEffect("NoSchedule")
            .endTaint()
            .build());
    client.resource(node).create();
    Eventually.await(
        "kwok node " + name + " Ready",
        LocalCluster.READY_TIMEOUT,
        () -> ready(client.nodes().withName(name).get()));
    return client.nodes().withName(name).get();
  }

  static boolean ready(Node node) {
    return node != null
        && node.getStatus() != null
        && node.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static Node node(String name, int gpus) {
    Map<String, Quantity> capacity = new LinkedHashMap<>();
    capacity.put("cpu", new Quantity("32"));
    capacity.put("memory", new Quantity("256Gi"));
    capacity.put("pods", new Quantity("110"));
    // The compiled pods request node disk (platform.yaml ephemeralStorage); a node without it in
    // its allocatable fits none of them (the scheduler's NodeResourcesFit).
    capacity.put("ephemeral-storage", new Quantity(EPHEMERAL_STORAGE));
    if (gpus > 0) {
      capacity.put(GPU, new Quantity(Integer.toString(gpus)));
    }
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .addToLabels("type", "kwok")
        .addToLabels("kubernetes.io/hostname", name)
        .addToLabels("kubernetes.io/os", "linux")
        .addToLabels("kubernetes.io/arch", "amd64")
        .addToAnnotations("kwok.x-k8s.io/node", "fake")
        .endMetadata()
        .withNewStatus()
        .withCapacity(capacity)
        .withAllocatable(capacity)
        .endStatus()
        .build();
  }
}
