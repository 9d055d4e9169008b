package dev.trainyard.compiler.runtime;

import java.util.Objects;

/**
 * A runtime's per-node resource defaults, merged under the user's {@code resources:}.
 *
 * @param gpus GPUs per node (count)
 * @param cpu Kubernetes CPU quantity ({@code "8"}, {@code "500m"})
 * @param memory Kubernetes memory quantity ({@code "32Gi"})
 * @param launcherCpu CPU of a launcher pod that runs no ranks
 * @param launcherMemory memory of a launcher pod that runs no ranks
 */
public record RuntimeResources(
    int gpus, String cpu, String memory, String launcherCpu, String launcherMemory) {
  public RuntimeResources {
    Objects.requireNonNull(cpu, "cpu");
    Objects.requireNonNull(memory, "memory");
    Objects.requireNonNull(launcherCpu, "launcherCpu");
    Objects.requireNonNull(launcherMemory, "launcherMemory");
  }
}
