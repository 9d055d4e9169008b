package dev.trainyard.controller.state;

import java.util.List;

/**
 * The Kueue Workload of a run: the ClusterQueue it was admitted to ("" before admission; from
 * status.admission.clusterQueue), its conditions (QuotaReserved, Admitted, PodsReady, Evicted,
 * Preempted, Requeued, Finished; kueue apis/kueue/v1beta2 workload_types.go) and {@code
 * spec.active} ({@code active}; Kueue defaults it to true and sets it false when it deactivates the
 * Workload, e.g. after {@code waitForPodsReady.requeuingStrategy.backoffLimitCount} evictions; so
 * may a person). {@code localQueueExists}: the LocalQueue the Workload names was in the cluster
 * when it was observed (false: not there, or not looked at, e.g. the reader may not list
 * LocalQueues). Kueue's own words can be older than that: a Workload created before its LocalQueue
 * says "LocalQueue … doesn't exist" (or "ClusterQueue doesn't exist", no name, when the API server
 * had the LocalQueue and Kueue's queue manager not yet) until Kueue's scheduler judges it, and
 * Kueue 0.19 may skip that judgement for a Workload equivalent to one that did not fit
 * (SchedulingEquivalenceHashing, on by default since 0.18; kueue pkg/cache/queue/cluster_queue.go
 * requeueIfNotPresent), which leaves the words there.
 */
public record WorkloadSnapshot(
    String clusterQueue,
    List<ConditionSnapshot> conditions,
    boolean active,
    boolean localQueueExists) {

  public WorkloadSnapshot {
    clusterQueue = clusterQueue == null ? "" : clusterQueue;
    conditions = List.copyOf(conditions);
  }

  /** Its LocalQueue not looked at. */
  public WorkloadSnapshot(String clusterQueue, List<ConditionSnapshot> conditions, boolean active) {
    this(clusterQueue, conditions, active, false);
  }

  /** This snapshot with {@code exists} as whether its LocalQueue was in the cluster. */
  public WorkloadSnapshot withLocalQueueExists(boolean exists) {
    return new WorkloadSnapshot(clusterQueue, conditions, active, exists);
  }

  /** An active Workload. */
  public WorkloadSnapshot(String clusterQueue, List<ConditionSnapshot> conditions) {
    this(clusterQueue, conditions, true);
  }
}
