package dev.trainyard.gitops.preview;

import java.util.List;

/**
 * What a GitOps pull request that changes platform.yaml (or {@code runtimes/}, or the queue
 * folders) does to the queues, as its preview shows it.
 *
 * @param quotas every ClusterQueue nominal quota it changes, by queue and resource
 * @param runs how many run folders the head tree holds (all were judged against both platforms):
 *     queued, running, or finished and not pruned yet; git cannot tell which
 */
public record PlatformChange(List<QuotaChange> quotas, int runs) {
  public PlatformChange {
    quotas = List.copyOf(quotas);
  }
}
