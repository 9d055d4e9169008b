package dev.trainyard.controller;

import dev.trainyard.controller.progress.TokenBucket;
import dev.trainyard.controller.state.Progress;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The last progress each run's own pods pushed ({@link Progress.Source#PUSH}, Kubeflow Trainer's
 * KEP-2779 {@code trainerStatus}; {@link ProgressEndpoint}), and each run's push budget: a token
 * bucket of {@link #BURST} pushes refilled at {@link #PER_SECOND} a second. Thread-safe: the
 * endpoint's threads write, the reconciler reads ({@link #latest}); the reconciler drops a run's
 * entry when the run is gone ({@link #forget}).
 *
 * <p>The budget: Kubeflow's SDK and Hugging Face callback send at most one push per 5 s per
 * process, but the SDK's {@code update_trainjob_status} is not limited to rank 0, so a run of 64
 * nodes × 8 ranks may send ~100 a second; 2 a second with bursts of 20 keeps every rank-0 reporter
 * and refuses the flood (429), which the callers log and skip.
 */
public final class PushedProgress implements RunProgress {

  /** Pushes a run may send at once. */
  public static final int BURST = 20;

  /** Pushes a run's budget regains per second. */
  public static final double PER_SECOND = 2;

  private final ConcurrentHashMap<RunKey, Progress> latest = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<RunKey, TokenBucket> budgets = new ConcurrentHashMap<>();
  private final LongSupplier nanoTime;

  /** On {@link System#nanoTime}. */
  public PushedProgress() {
    this(System::nanoTime);
  }

  /** On {@code nanoTime}, for tests that step time. */
  PushedProgress(LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
  }

  /** Whether {@code key}'s budget allows one more push now (and spends it). */
  public boolean admit(RunKey key) {
    return budget(key).tryTake();
  }

  /** How long until {@code key}'s budget allows the next push. */
  public Duration untilNext(RunKey key) {
    return budget(key).untilNext();
  }

  private TokenBucket budget(RunKey key) {
    return budgets.computeIfAbsent(key, k -> new TokenBucket(BURST, PER_SECOND, nanoTime));
  }

  /**
   * Keeps {@code progress} as {@code key}'s latest unless the kept one is newer ({@link
   * Progress#updatedAt()}: several ranks may push, and a late request must not move a run back).
   *
   * @return whether {@code progress} is now the latest
   */
  public boolean accept(RunKey key, Progress progress) {
    Progress kept =
        latest.merge(
            key, progress, (old, now) -> now.updatedAt().isBefore(old.updatedAt()) ? old : now);
    return kept == progress;
  }

  @Override
  public Optional<Progress> progress(RunKey key) {
    return latest(key);
  }

  /** {@code key}'s latest pushed progress; empty when none came (or the run was forgotten). */
  public Optional<Progress> latest(RunKey key) {
    return Optional.ofNullable(latest.get(key));
  }

  /** Drops {@code key}'s progress and budget: its run is gone. */
  @Override
  public void forget(RunKey key) {
    latest.remove(key);
    budgets.remove(key);
  }

  /** Runs with a pushed progress. */
  public int size() {
    return latest.size();
  }
}
