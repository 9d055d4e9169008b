package dev.trainyard.controller;

import dev.trainyard.controller.forge.ForgeEndpoint;
import dev.trainyard.controller.forge.RetryPolicy;
import java.time.Duration;
import java.util.List;

/**
 * Everything the controller runs with: the forges (host → kind, API root, token), the status link
 * template, how long an admitted run may take to start before it is reported stalled, the informer
 * resync period, the per-request timeout and retry policy for forge calls, the requeue delay after a
 * forge stayed unavailable, the health/metrics port, and the Lease settings (null: no election, this
 * replica always posts).
 */
public record ControllerConfig(List<ForgeEndpoint> forges, TargetUrl targetUrl, Duration stallAfter,
        Duration resync, Duration requestTimeout, RetryPolicy retry, Duration requeueAfter, int port,
        LeaseElection.Settings election) {

    public ControllerConfig {
        forges = List.copyOf(forges);
    }

    /** A copy with {@code settings} for leader election. */
    public ControllerConfig withElection(LeaseElection.Settings settings) {
        return new ControllerConfig(forges, targetUrl, stallAfter, resync, requestTimeout, retry, requeueAfter, port,
                settings);
    }

    /** A copy listening on {@code p}. */
    public ControllerConfig withPort(int p) {
        return new ControllerConfig(forges, targetUrl, stallAfter, resync, requestTimeout, retry, requeueAfter, p,
                election);
    }
}
