package dev.trainyard.compiler.spec;

import java.util.Optional;

/**
 * {@code resources:} per node, each field optional (merged over the runtime's defaults).
 *
 * <pre>
 * resources: {gpus: 4, gpuType: H100, cpu: 16, memory: 128Gi, shm: 16Gi}
 * </pre>
 *
 * @param gpus GPUs per node (count, ≥ 0)
 * @param gpuType accelerator model, mapped to node labels by {@code platform.yaml}
 * @param cpu Kubernetes CPU quantity as text ({@code "16"}, {@code "500m"})
 * @param memory Kubernetes memory quantity as text ({@code "128Gi"})
 * @param shm size of the memory-backed {@code /dev/shm} ({@code "16Gi"})
 */
public record ResourceRequest(
    Optional<Integer> gpus,
    Optional<String> gpuType,
    Optional<String> cpu,
    Optional<String> memory,
    Optional<String> shm) {

  public static final ResourceRequest NONE =
      new ResourceRequest(
          Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());
}
