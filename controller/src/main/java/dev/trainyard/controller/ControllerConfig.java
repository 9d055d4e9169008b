package dev.trainyard.controller;

import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.controller.forge.ForgeEndpoint;
import dev.trainyard.controller.forge.RetryPolicy;
import java.nio.file.Path;
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
 * posts), the platform itself (its {@code retention}), where finished runs are pruned (empty:
 * never) and where the progress endpoint listens when platform.yaml enables {@code progressPush}.
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
    Optional<RunPruning.Settings> prune,
    ProgressSettings progress) {

  /**
   * The progress endpoint ({@link ProgressEndpoint}): its port and the folder of its {@code
   * tls.crt} and {@code tls.key} (a mounted {@code kubernetes.io/tls} Secret).
   */
  public record ProgressSettings(int port, Path tls) {
    /** The shipped manifests' settings. */
    public static final ProgressSettings DEFAULT =
        new ProgressSettings(8443, Path.of("/var/run/secrets/trainyard/progress-tls"));
  }

  public ControllerConfig {
    forges = List.copyOf(forges);
    Objects.requireNonNull(prune, "prune");
    Objects.requireNonNull(progress, "progress");
  }

  /** With the default progress endpoint settings. */
  public ControllerConfig(
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
    this(
        forges,
        targetUrl,
        stallAfter,
        resync,
        requestTimeout,
        retry,
        requeueAfter,
        port,
        election,
        platform,
        prune,
        ProgressSettings.DEFAULT);
  }

  /** Whether platform.yaml asks for the progress endpoint. */
  public boolean pushesProgress() {
    return platform != null && platform.progressPush().enabled();
  }

  /** A copy whose progress endpoint uses {@code settings}. */
  public ControllerConfig withProgress(ProgressSettings settings) {
    return new ControllerConfig(
        forges,
        targetUrl,
        stallAfter,
        resync,
        requestTimeout,
        retry,
        requeueAfter,
        port,
        election,
        platform,
        prune,
        settings);
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
        prune,
        progress);
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
        prune,
        progress);
  }
}
