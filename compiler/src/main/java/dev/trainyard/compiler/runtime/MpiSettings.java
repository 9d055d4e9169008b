package dev.trainyard.compiler.runtime;

import java.util.Objects;
import java.util.Optional;

/**
 * The MPI part of a runtime definition.
 *
 * <pre>
 * mpi:
 *   implementation: OpenMPI     # OpenMPI | Intel | MPICH
 *   sshPort: 2222
 *   launcherAsNode: true        # the launcher pod also runs ranks (DeepSpeed, MLX)
 * </pre>
 *
 * @param implementation decides the hostfile line format: Open MPI {@code host slots=N},
 *     Intel/MPICH {@code host:N} (mpi-operator#523)
 * @param sshPort the port sshd listens on in node pods (the readiness probe checks it)
 * @param launcherAsNode the launcher is rank host 0, so {@code nodes: N} makes N−1 node pods
 *     (trainer#3954: never an extra pod for {@code nodes: 1})
 */
public record MpiSettings(MpiImplementation implementation, int sshPort, boolean launcherAsNode) {
  public MpiSettings {
    Objects.requireNonNull(implementation, "implementation");
  }

  /** MPI flavours, by how they read a hostfile. */
  public enum MpiImplementation {
    OPEN_MPI("OpenMPI"),
    INTEL("Intel"),
    MPICH("MPICH");

    private final String id;

    MpiImplementation(String id) {
      this.id = id;
    }

    public String id() {
      return id;
    }

    /** Parses {@code OpenMPI}, {@code Intel}, {@code MPICH}. */
    public static Optional<MpiImplementation> parse(String text) {
      for (MpiImplementation i : values()) {
        if (i.id.equals(text)) {
          return Optional.of(i);
        }
      }
      return Optional.empty();
    }
  }
}
