package dev.trainyard.controller.state;

import java.util.List;

/**
 * The Kueue Workload of a run: the ClusterQueue it was admitted to ("" before admission; from
 * status.admission.clusterQueue), its conditions (QuotaReserved, Admitted, PodsReady, Evicted,
 * Preempted, Requeued, Finished; kueue apis/kueue/v1beta2 workload_types.go) and {@code
 * spec.active} ({@code active}; Kueue defaults it to true and sets it false when it deactivates the
 * Workload, e.g. after {@code waitForPodsReady.requeuingStrategy.backoffLimitCount} evictions; so
 * may a person).
 */
public record WorkloadSnapshot(
    String clusterQueue, List<ConditionSnapshot> conditions, boolean active) {

  public WorkloadSnapshot {
    clusterQueue = clusterQueue == null ? "" : clusterQueue;
    conditions = List.copyOf(conditions);
  }

  /** An active Workload. */
  public WorkloadSnapshot(String clusterQueue, List<ConditionSnapshot> conditions) {
    this(clusterQueue, conditions, true);
  }
}
