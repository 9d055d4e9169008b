package dev.trainyard.compiler.local;

import java.util.List;
import java.util.Optional;

/**
 * What {@code trainyard run --local} starts: one process per node of the compiled JobSet.
 *
 * @param runName the compiled run's name, e.g. {@code pytorch-ddp-3975cd}
 * @param framework the runtime's framework annotation ({@code torch}, {@code jax}, {@code plain})
 * @param commit the full source commit SHA the pods clone
 * @param nodes the node processes, in completion-index order
 * @param expectedWorld the processes the train.yaml promises ({@code nodes × procsPerNode}, from
 *     the compiled {@code PET_NNODES}/{@code PET_NPROC_PER_NODE} or {@code NNODES}; for MPI the
 *     ranks mpirun starts)
 * @param mpi for an MPI runtime: the launcher's local mpirun; {@link #nodes} then holds the one
 *     launcher process
 */
public record LocalPlan(
    String runName,
    String framework,
    String commit,
    List<LocalNode> nodes,
    int expectedWorld,
    Optional<MpiLaunch> mpi) {
  public LocalPlan {
    nodes = List.copyOf(nodes);
  }

  /** One process per node, no MPI launcher. */
  public LocalPlan(
      String runName, String framework, String commit, List<LocalNode> nodes, int expectedWorld) {
    this(runName, framework, commit, nodes, expectedWorld, Optional.empty());
  }
}
