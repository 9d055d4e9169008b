package dev.trainyard.compiler.cases;

/**
 * A platform.yaml with two LocalQueues in namespace {@code default}: {@code team-a} (cpu, memory
 * and GPUs) and {@code cpu-only}, whose ClusterQueue covers only {@code cpu} and {@code memory}
 * (kueue#4848).
 */
final class TwoQueues {
  static final String PLATFORM =
      """
      apiVersion: trainyard.dev/v1
      kind: Platform
      defaultRuntime: torch
      clusters:
        - name: local
          domain: cluster.local
      namespaces:
        - name: default
          cluster: local
          sources: ["*"]
          defaultQueue: team-a
      gpu:
        resourceName: nvidia.com/gpu
        types: {}
      codeSync:
        image: registry.k8s.io/git-sync/git-sync:v4.4.2
      secrets:
        policy: plain
        allowPlain: true
      queues:
        resourceFlavors:
          - name: default-flavor
        clusterQueues:
          - name: team-a
            namespaces: [default]
            flavors:
              - name: default-flavor
                quota: {cpu: "64", memory: 256Gi, nvidia.com/gpu: "8"}
          - name: cpu-only
            namespaces: [default]
            flavors:
              - name: default-flavor
                quota: {cpu: "64", memory: 256Gi}
        localQueues:
          - name: team-a
            namespace: default
            clusterQueue: team-a
          - name: cpu-only
            namespace: default
            clusterQueue: cpu-only
      """;

  private TwoQueues() {}
}
