package dev.trainyard.controller;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Leader election on a coordination.k8s.io/v1 Lease with fabric8's LeaderElector, so only one
 * replica posts commit statuses. Timings as client-go's defaults scaled by the caller: the Lease
 * lasts {@code leaseDuration}, the leader renews within {@code renewDeadline}, candidates retry
 * every {@code retryPeriod}. The Lease is released on close, so a clean stop hands over at once.
 */
public final class LeaseElection implements AutoCloseable {

  /** Lease coordinates and timings. */
  public record Settings(
      String namespace,
      String leaseName,
      String identity,
      Duration leaseDuration,
      Duration renewDeadline,
      Duration retryPeriod) {

    /**
     * client-go's default proportions (15 s lease, 10 s renew, 2 s retry) for a lease of {@code
     * lease}: renew within 2/3 of it, retry every 1/7 of it plus 100 ms (so a short test lease
     * still retries in steps).
     */
    public static Settings scaled(
        String namespace, String leaseName, String identity, Duration lease) {
      return new Settings(
          namespace,
          leaseName,
          identity,
          lease,
          lease.multipliedBy(2).dividedBy(3),
          lease.dividedBy(7).plusMillis(100));
    }
  }

  private final CompletableFuture<?> running;

  /** Starts campaigning; {@code onStart} and {@code onStop} run on fabric8's threads. */
  public LeaseElection(KubernetesClient client, Settings s, Runnable onStart, Runnable onStop) {
    this(client, s, onStart, onStop, leader -> {});
  }

  /**
   * As above; {@code onNewLeader} receives each leader identity observed (this replica's or
   * another's).
   */
  public LeaseElection(
      KubernetesClient client,
      Settings s,
      Runnable onStart,
      Runnable onStop,
      Consumer<String> onNewLeader) {
    running =
        client
            .leaderElector()
            .withConfig(
                new LeaderElectionConfigBuilder()
                    .withName(s.leaseName())
                    .withLock(new LeaseLock(s.namespace(), s.leaseName(), s.identity()))
                    .withLeaseDuration(s.leaseDuration())
                    .withRenewDeadline(s.renewDeadline())
                    .withRetryPeriod(s.retryPeriod())
                    .withReleaseOnCancel(true)
                    .withLeaderCallbacks(new LeaderCallbacks(onStart, onStop, onNewLeader::accept))
                    .build())
            .build()
            .start();
  }

  @Override
  public void close() {
    running.cancel(true);
  }
}
