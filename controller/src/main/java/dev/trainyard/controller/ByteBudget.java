package dev.trainyard.controller;

import java.time.Clock;
import java.time.Instant;

/**
 * A token bucket of bytes: {@code perSecond} bytes a second, at most one second's worth saved up. A
 * chunk is taken whole or not at all ({@link #take}); {@link #spent} counts what was taken.
 * Thread-safe.
 */
final class ByteBudget {

  private final long perSecond;
  private final Clock clock;
  private double tokens;
  private long lastNanos;
  private long spent;

  ByteBudget(long perSecond, Clock clock) {
    if (perSecond < 1) {
      throw new IllegalArgumentException("a byte budget needs at least 1 byte a second");
    }
    this.perSecond = perSecond;
    this.clock = clock;
    this.tokens = perSecond;
    this.lastNanos = nanos();
  }

  /** Whether {@code bytes} fit the budget now; when they do, they are spent. */
  synchronized boolean take(long bytes) {
    long now = nanos();
    tokens = Math.min(perSecond, tokens + (now - lastNanos) / 1e9 * perSecond);
    lastNanos = now;
    if (bytes > tokens) {
      return false;
    }
    tokens -= bytes;
    spent += bytes;
    return true;
  }

  /** Bytes taken since this budget was made. */
  synchronized long spent() {
    return spent;
  }

  private long nanos() {
    Instant i = clock.instant();
    return i.getEpochSecond() * 1_000_000_000L + i.getNano();
  }
}
