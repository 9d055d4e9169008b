package dev.trainyard.controller;

import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.controller.forge.ForgeEndpoint;
import dev.trainyard.controller.forge.RetryPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything the controller runs with: the forges (source prefix → kind, API root, token) and the
 * status link template from platform.yaml, how long an admitted run may take to start before it is
 * reported stalled, the informer resync period, the per-request timeout and retry policy for forge
 * calls, the longest back-off of a run's key the forge could not take (a rate limit's own wait may
 * be longer), the health/metrics port, the Lease settings (null: no election, this replica always
 * posts), the platform itself (its {@code retention}) and where finished runs are pruned (empty:
 * never).
 */
public record ControllerConfig(
    List<ForgeEndpoint> forges,
    TargetUrl targetUrl,
    Duration stallAfter,
    Duration resync,
    Duration requestTimeout,
    RetryPolicy retry,
    Duration requeueAfter,
    int port,
    LeaseElection.Settings election,
    Platform platform,
    Optional<RunPruning.Settings> prune) {

  public ControllerConfig {
    forges = List.copyOf(forges);
    Objects.requireNonNull(prune, "prune");
  }

  /** A copy with {@code settings} for leader election. */
  public ControllerConfig withElection(LeaseElection.Settings settings) {
    return new ControllerConfig(
        forges,
        targetUrl,
        stallAfter,
        resync,
        requestTimeout,
        retry,
        requeueAfter,
        port,
        settings,
        platform,
        prune);
  }

  /** A copy listening on {@code p}. */
  public ControllerConfig withPort(int p) {
    return new ControllerConfig(
        forges,
        targetUrl,
        stallAfter,
        resync,
        requestTimeout,
        retry,
        requeueAfter,
        p,
        election,
        platform,
        prune);
  }
}
