package dev.trainyard.controller;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A de-duplicating work queue of run keys with client-go's semantics: a key waiting is held once
 * however often it is added; a key added while it is being processed is processed again after
 * {@link #done}, never twice at once; {@link #addAfter} re-adds a key later (retries). Keys from
 * periodic resyncs go to a background lane ({@link #addBackground}) served only when no change
 * waits, so a resync of thousands of unchanged runs never delays the post of a run that changed; a
 * background key that changes is promoted.
 */
public final class WorkQueue implements AutoCloseable {

  private final Deque<RunKey> queue = new ArrayDeque<>();
  private final java.util.LinkedHashSet<RunKey> background = new java.util.LinkedHashSet<>();
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

  /** Adds {@code key} after {@code delay}. */
  public void addAfter(RunKey key, Duration delay) {
    if (!delays.isShutdown()) {
      delays.schedule(() -> add(key), delay.toMillis(), TimeUnit.MILLISECONDS);
    }
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
