package dev.trainyard.controller;

import java.util.function.BooleanSupplier;

/**
 * Whether this replica leads, and what a change of leadership does. Starting: the reconciler
 * forgets what it knew ({@code reset}: the new leader reads the forge before posting), the replica
 * leads, the metric says so, then every cached run is enqueued ({@code enqueueAll}). Stopping: the
 * worker stops posting at once and, when leadership was held and the controller is not closing,
 * {@code onLost} runs (the process exits in production, as controller-runtime does, so a stale
 * leader never posts).
 */
final class Leadership {

  private final Runnable reset;
  private final Runnable enqueueAll;
  private final Runnable onLost;
  private final BooleanSupplier closing;
  private final ControllerMetrics metrics;
  private volatile boolean leading;

  Leadership(
      Runnable reset,
      Runnable enqueueAll,
      Runnable onLost,
      BooleanSupplier closing,
      ControllerMetrics metrics) {
    this.reset = reset;
    this.enqueueAll = enqueueAll;
    this.onLost = onLost;
    this.closing = closing;
    this.metrics = metrics;
  }

  void start() {
    reset.run();
    leading = true;
    metrics.leader(true);
    enqueueAll.run();
  }

  void stop() {
    boolean was = leading;
    leading = false;
    metrics.leader(false);
    if (was && !closing.getAsBoolean()) {
      onLost.run();
    }
  }

  boolean leading() {
    return leading;
  }
}
