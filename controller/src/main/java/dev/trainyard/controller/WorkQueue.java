package dev.trainyard.controller;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A de-duplicating work queue of run keys with client-go's semantics: a key waiting is held once
 * however often it is added; a key added while it is being processed is processed again after
 * {@link #done}, never twice at once; {@link #addAfter} re-adds a key later (retries). Keys from
 * periodic resyncs go to a background lane ({@link #addBackground}) served only when no change
 * waits, so a resync of thousands of unchanged runs never delays the post of a run that changed; a
 * background key that changes is promoted.
 *
 * <p>Retries back off per key, as client-go's rate-limited queue does: {@link #addRateLimited}
 * re-adds a key after {@code firstRetry} doubling with each retry in a row, at most {@code
 * maxRetry}, never sooner than the wait a forge named (a rate limit's reset); {@link #forget} ends
 * the series when the key went through. Of several delayed adds of one key only the earliest is
 * kept waiting.
 */
public final class WorkQueue implements AutoCloseable {

  private final Deque<RunKey> queue = new ArrayDeque<>();
  private final LinkedHashSet<RunKey> background = new LinkedHashSet<>();
  private final Set<RunKey> dirty = new HashSet<>();
  private final Set<RunKey> processing = new HashSet<>();
  private final ScheduledExecutorService delays =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "trainyard-queue-delays");
            t.setDaemon(true);
            return t;
          });
  private boolean closed;
  private final Duration firstRetry;
  private final Duration maxRetry;

  /** Retries in a row per key, for its back-off. */
  private final Map<RunKey, Integer> retries = new HashMap<>();

  /** The earliest delayed add waiting per key (System.nanoTime deadline). */
  private final Map<RunKey, Long> delayedUntil = new HashMap<>();

  /** Retries back off from 1 s to 5 min. */
  public WorkQueue() {
    this(Duration.ofSeconds(1), Duration.ofMinutes(5));
  }

  /**
   * Retries back off from {@code firstRetry} (at most {@code maxRetry}) doubling up to {@code
   * maxRetry}.
   */
  public WorkQueue(Duration firstRetry, Duration maxRetry) {
    this.firstRetry = firstRetry.compareTo(maxRetry) > 0 ? maxRetry : firstRetry;
    this.maxRetry = maxRetry;
  }

  /** Adds {@code key} unless it already waits. */
  public synchronized void add(RunKey key) {
    if (!closed && background.remove(key)) {
      // No take waits while the background lane held the key: moving it between lanes wakes no one.
      queue.addLast(key);
      return;
    }
    if (closed || !dirty.add(key)) {
      return;
    }
    if (!processing.contains(key)) {
      queue.addLast(key);
      notifyAll();
    }
  }

  /** Adds {@code key} to the background lane unless it already waits in either lane. */
  public synchronized void addBackground(RunKey key) {
    if (closed || !dirty.add(key)) {
      return;
    }
    if (!processing.contains(key)) {
      background.add(key);
      notifyAll();
    }
  }

  /** Adds {@code key} after {@code delay}, unless an add of it at or before then already waits. */
  public void addAfter(RunKey key, Duration delay) {
    long at = System.nanoTime() + delay.toNanos();
    synchronized (this) {
      Long earlier = delayedUntil.get(key);
      if (closed || earlier != null && earlier - at <= 0) {
        return;
      }
      delayedUntil.put(key, at);
    }
    try {
      delays.schedule(
          () -> {
            synchronized (this) {
              delayedUntil.remove(key, at);
            }
            add(key);
          },
          delay.toMillis(),
          TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException closing) {
      // close() raced this add: nothing will be taken any more.
    }
  }

  /**
   * Re-adds {@code key} after its next back-off ({@code firstRetry} doubled per retry in a row, at
   * most {@code maxRetry}) or after {@code atLeast}, whichever is later; returns the delay.
   */
  public Duration addRateLimited(RunKey key, Duration atLeast) {
    int n;
    synchronized (this) {
      n = retries.merge(key, 1, Integer::sum);
    }
    Duration backoff = firstRetry;
    for (int i = 1; i < n && backoff.compareTo(maxRetry) < 0; i++) {
      backoff = backoff.multipliedBy(2);
    }
    backoff = backoff.compareTo(maxRetry) > 0 ? maxRetry : backoff;
    Duration delay = atLeast.compareTo(backoff) > 0 ? atLeast : backoff;
    addAfter(key, delay);
    return delay;
  }

  /** Ends {@code key}'s retries in a row: its next retry starts again at {@code firstRetry}. */
  public synchronized void forget(RunKey key) {
    retries.remove(key);
  }

  /** Retries in a row of {@code key} so far. */
  public synchronized int retries(RunKey key) {
    return retries.getOrDefault(key, 0);
  }

  /**
   * The next key, marked as processing; null when none came within {@code timeout} or the queue
   * closed.
   */
  public synchronized RunKey take(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (queue.isEmpty() && background.isEmpty() && !closed) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return null;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    RunKey key = queue.pollFirst();
    if (key == null && !background.isEmpty() && !closed) {
      key = background.iterator().next();
      background.remove(key);
    }
    if (key != null) {
      dirty.remove(key);
      processing.add(key);
    }
    return key;
  }

  /** Ends processing of {@code key}; if it was added meanwhile it waits again. */
  public synchronized void done(RunKey key) {
    processing.remove(key);
    if (dirty.contains(key) && !background.contains(key)) {
      queue.addLast(key);
      notifyAll();
    }
  }

  /** Keys waiting, both lanes. */
  public synchronized int depth() {
    return queue.size() + background.size();
  }

  @Override
  public synchronized void close() {
    closed = true;
    delays.shutdownNow();
    notifyAll();
  }
}
