package dev.trainyard.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Fake kwok nodes: {@value #CPU_NODES} CPU-only nodes and {@value #GPU_NODES} nodes with
 * {@value #GPUS_PER_NODE} {@code nvidia.com/gpu} each. Every node has 32 cpu, 256Gi memory, 110 pods.
 * kwok (started with {@code --manage-all-nodes}) heartbeats them and runs their pods through its stages.
 */
final class FakeNodes {

    static final int CPU_NODES = 2;
    static final int GPU_NODES = 2;
    static final int GPUS_PER_NODE = 8;
    static final String GPU = "nvidia.com/gpu";

    private FakeNodes() {
    }

    static void createAndAwaitReady(KubernetesClient client, ClusterProcess kwok) {
        for (int i = 0; i < CPU_NODES; i++) {
            client.resource(node("kwok-cpu-" + i, 0)).create();
        }
        for (int i = 0; i < GPU_NODES; i++) {
            client.resource(node("kwok-gpu-" + i, GPUS_PER_NODE)).create();
        }
        Eventually.await((CPU_NODES + GPU_NODES) + " kwok nodes Ready", LocalCluster.READY_TIMEOUT, () -> {
            kwok.requireAlive();
            List<Node> nodes = client.nodes().withLabel("type", "kwok").list().getItems();
            return nodes.size() == CPU_NODES + GPU_NODES && nodes.stream().allMatch(FakeNodes::ready);
        });
    }

    static boolean ready(Node node) {
        return node.getStatus() != null && node.getStatus().getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    private static Node node(String name, int gpus) {
        Map<String, Quantity> capacity = new LinkedHashMap<>();
        capacity.put("cpu", new Quantity("32"));
        capacity.put("memory", new Quantity("256Gi"));
        capacity.put("pods", new Quantity("110"));
        if (gpus > 0) {
            capacity.put(GPU, new Quantity(Integer.toString(gpus)));
        }
        return new NodeBuilder()
                .withNewMetadata().withName(name)
                .addToLabels("type", "kwok").addToLabels("kubernetes.io/hostname", name)
                .addToLabels("kubernetes.io/os", "linux").addToLabels("kubernetes.io/arch", "amd64")
                .addToAnnotations("kwok.x-k8s.io/node", "fake")
                .endMetadata()
                .withNewStatus().withCapacity(capacity).withAllocatable(capacity).endStatus()
                .build();
    }
}
