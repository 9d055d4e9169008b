package dev.trainyard.controller;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Leader election on a coordination.k8s.io/v1 Lease with fabric8's LeaderElector, so only one replica
 * posts commit statuses. Timings as client-go's defaults scaled by the caller: the Lease lasts
 * {@code leaseDuration}, the leader renews within {@code renewDeadline}, candidates retry every
 * {@code retryPeriod}. The Lease is released on close, so a clean stop hands over at once.
 */
public final class LeaseElection implements AutoCloseable {

    /** Lease coordinates and timings. */
    public record Settings(String namespace, String leaseName, String identity, Duration leaseDuration,
            Duration renewDeadline, Duration retryPeriod) {
    }

    private final CompletableFuture<?> running;

    /** Starts campaigning; {@code onStart} and {@code onStop} run on fabric8's threads. */
    public LeaseElection(KubernetesClient client, Settings s, Runnable onStart, Runnable onStop) {
        running = client.leaderElector().withConfig(new LeaderElectionConfigBuilder()
                .withName(s.leaseName())
                .withLock(new LeaseLock(s.namespace(), s.leaseName(), s.identity()))
                .withLeaseDuration(s.leaseDuration()).withRenewDeadline(s.renewDeadline())
                .withRetryPeriod(s.retryPeriod())
                .withReleaseOnCancel(true)
                .withLeaderCallbacks(new LeaderCallbacks(onStart, onStop, leader -> { }))
                .build()).build().start();
    }

    @Override
    public void close() {
        running.cancel(true);
    }
}
