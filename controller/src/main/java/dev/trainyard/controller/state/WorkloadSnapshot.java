package dev.trainyard.controller.state;

import java.util.List;

/**
 * The Kueue Workload of a run: the ClusterQueue it was admitted to ("" before admission; from
 * status.admission.clusterQueue) and its conditions (QuotaReserved, Admitted, PodsReady, Evicted,
 * Preempted, Requeued, Finished; kueue apis/kueue/v1beta2 workload_types.go).
 */
public record WorkloadSnapshot(String clusterQueue, List<ConditionSnapshot> conditions) {

  public WorkloadSnapshot {
    clusterQueue = clusterQueue == null ? "" : clusterQueue;
    conditions = List.copyOf(conditions);
  }
}
