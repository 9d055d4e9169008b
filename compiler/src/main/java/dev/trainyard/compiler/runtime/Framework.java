package dev.trainyard.compiler.runtime;

import java.util.Locale;
import java.util.Optional;

/**
 * How a runtime starts its processes. The value picks the Java plugin that renders the framework's
 * behaviour (env, hostfile, SSH, launcher), like Kubeflow Trainer's ML policies.
 */
public enum Framework {
  /** torchrun on every node; {@code PET_*} env (torch {@code distributed/run.py}). */
  TORCH,
  /** Open MPI: one launcher runs {@code mpirun} over SSH to the node pods. */
  MPI,
  /** DeepSpeed started under {@code mpirun}; ranks discovered from {@code OMPI_COMM_WORLD_*}. */
  DEEPSPEED,
  /** MLX started under {@code mpirun}; {@code mx.distributed.init()} picks MPI up. */
  MLX,
  /**
   * JAX: one process per pod, {@code jax.distributed.initialize()} with Kubernetes auto-detection.
   */
  JAX,
  /** One process per node with the neutral env only. */
  PLAIN;

  /** True for the frameworks that start ranks with {@code mpirun} from a launcher pod. */
  public boolean usesMpi() {
    return this == MPI || this == DEEPSPEED || this == MLX;
  }

  /** The lower-case name used in runtime definitions. */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses {@code torch}, {@code mpi}, … ; empty for anything else. */
  public static Optional<Framework> parse(String text) {
    for (Framework f : values()) {
      if (f.id().equals(text)) {
        return Optional.of(f);
      }
    }
    return Optional.empty();
  }
}
