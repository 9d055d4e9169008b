package dev.trainyard.controller;

import java.time.Duration;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * The one worker: takes run keys from the {@link WorkQueue} and reconciles each while this replica
 * leads (a follower takes keys and drops them: the leader's queue has them). A RETRY outcome, or an
 * exception (a bug or a cache surprise must not kill the only worker), puts the key back after its
 * back-off ({@link WorkQueue#addRateLimited}: 1 s doubling per retry in a row), never before the
 * wait the forge named ({@code retryAfter}: a rate limit's reset, a closed forge gate). A HELD key
 * (a start step not posted yet) comes back once, at the time the reconciler named, without
 * back-off; any other outcome ends the key's retries. The worker itself never waits for a forge: a
 * limited or unavailable forge costs its own runs a requeue, and the next key, perhaps on another
 * forge, is served at once. Every reconcile's outcome and latency go to the metrics.
 */
final class ReconcileWorker implements Runnable {

  /** When a HELD key comes back if the reconciler named no time. */
  static final Duration HELD_AGAIN = Duration.ofSeconds(1);

  /** How long one take waits, so a closed worker notices within this. */
  static final Duration TAKE = Duration.ofMillis(500);

  private static final System.Logger LOG = System.getLogger(ReconcileWorker.class.getName());
  private final WorkQueue queue;
  private final Function<RunKey, Reconciler.Outcome> reconcile;
  private final Function<RunKey, Optional<Duration>> retryAfter;
  private final BooleanSupplier leading;
  private final BooleanSupplier closed;
  private final ControllerMetrics metrics;

  /**
   * @param retryAfter after a RETRY, how long the forge asked that key to wait; after a HELD, how
   *     long until its step may be posted (read once; empty: no advice)
   */
  ReconcileWorker(
      WorkQueue queue,
      Function<RunKey, Reconciler.Outcome> reconcile,
      Function<RunKey, Optional<Duration>> retryAfter,
      BooleanSupplier leading,
      BooleanSupplier closed,
      ControllerMetrics metrics) {
    this.queue = queue;
    this.reconcile = reconcile;
    this.retryAfter = retryAfter;
    this.leading = leading;
    this.closed = closed;
    this.metrics = metrics;
  }

  @Override
  public void run() {
    while (!closed.getAsBoolean()) {
      RunKey key;
      try {
        key = queue.take(TAKE);
      } catch (InterruptedException e) {
        return;
      }
      if (key != null) {
        handle(key);
      }
    }
  }

  /** One key: reconciled when leading, always marked done. */
  void handle(RunKey key) {
    try {
      if (leading.getAsBoolean()) {
        reconcileOnce(key);
      } else {
        queue.forget(key);
      }
    } finally {
      queue.done(key);
    }
  }

  private void reconcileOnce(RunKey key) {
    long t0 = System.nanoTime();
    Reconciler.Outcome outcome;
    try {
      outcome = reconcile.apply(key);
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.ERROR, "reconcile of " + key.cacheKey() + " failed", e);
      outcome = Reconciler.Outcome.RETRY;
    }
    metrics.reconciled(outcome, Duration.ofNanos(System.nanoTime() - t0));
    if (outcome == Reconciler.Outcome.RETRY) {
      queue.addRateLimited(key, retryAfter.apply(key).orElse(Duration.ZERO));
    } else if (outcome == Reconciler.Outcome.HELD) {
      queue.forget(key);
      queue.addAfter(key, retryAfter.apply(key).orElse(HELD_AGAIN));
    } else {
      queue.forget(key);
    }
  }
}
