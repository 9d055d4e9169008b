package dev.trainyard.gitops.preview;

import java.math.BigDecimal;
import java.util.Optional;

/**
 * GPUs the added and changed runs ask of one LocalQueue, next to its ClusterQueue's nominal quota.
 *
 * @param namespace the LocalQueue's namespace
 * @param queue the LocalQueue
 * @param clusterQueue the ClusterQueue it points at, empty when platform.yaml has no such
 *     LocalQueue
 * @param runs how many runs ask
 * @param gpus GPUs asked, summed over those runs
 * @param quota nominal GPU quota summed over the ClusterQueue's flavors; empty when it does not
 *     cover GPUs
 * @param cohort the ClusterQueue's cohort, from which it may borrow
 */
public record QueueTotal(
    String namespace,
    String queue,
    Optional<String> clusterQueue,
    int runs,
    BigDecimal gpus,
    Optional<BigDecimal> quota,
    Optional<String> cohort) {
  /**
   * Whether the runs together ask for more GPUs than the nominal quota (or any GPUs of a queue
   * without).
   */
  public boolean over() {
    return gpus.signum() > 0 && quota.map(q -> gpus.compareTo(q) > 0).orElse(true);
  }
}
