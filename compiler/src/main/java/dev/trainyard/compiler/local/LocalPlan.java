package dev.trainyard.compiler.local;

import java.util.List;

/**
 * What {@code trainyard run --local} starts: one process per node of the compiled JobSet.
 *
 * @param runName the compiled run's name, e.g. {@code pytorch-ddp-3975cd}
 * @param framework the runtime's framework annotation ({@code torch}, {@code jax}, {@code plain})
 * @param commit the full source commit SHA the pods clone
 * @param nodes the node processes, in completion-index order
 * @param expectedWorld the processes the train.yaml promises ({@code nodes × procsPerNode}, from
 *     the compiled {@code PET_NNODES}/{@code PET_NPROC_PER_NODE} or {@code NNODES})
 */
public record LocalPlan(
    String runName, String framework, String commit, List<LocalNode> nodes, int expectedWorld) {
  public LocalPlan {
    nodes = List.copyOf(nodes);
  }
}
