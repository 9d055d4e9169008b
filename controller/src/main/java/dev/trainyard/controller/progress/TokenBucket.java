package dev.trainyard.controller.progress;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * A token bucket: at most {@code burst} takes at once, refilled at {@code perSecond} takes a
 * second. Thread-safe; time from an injected nanosecond clock ({@link System#nanoTime} in
 * production), so tests step it.
 *
 * <pre>
 * TokenBucket b = new TokenBucket(20, 2, System::nanoTime);   // 20 at once, then 2 a second
 * if (!b.tryTake()) answer 429 with Retry-After: b.wait().toSeconds()
 * </pre>
 */
public final class TokenBucket {

  private static final double NANOS = 1e9;
  private final double burst;
  private final double perSecond;
  private final LongSupplier nanoTime;
  private double tokens;
  private long last;

  /**
   * A full bucket.
   *
   * @param burst takes allowed at once, at least 1
   * @param perSecond takes added per second, above 0
   * @throws IllegalArgumentException for a burst below 1 or a rate not above 0
   */
  public TokenBucket(int burst, double perSecond, LongSupplier nanoTime) {
    if (burst < 1 || !(perSecond > 0)) {
      throw new IllegalArgumentException(
          "a token bucket needs burst >= 1 and a rate > 0, got " + burst + ", " + perSecond);
    }
    this.burst = burst;
    this.perSecond = perSecond;
    this.nanoTime = nanoTime;
    this.tokens = burst;
    this.last = nanoTime.getAsLong();
  }

  /** Takes one token if there is one; false (nothing taken) when the bucket is empty. */
  public synchronized boolean tryTake() {
    refill();
    if (tokens < 1) {
      return false;
    }
    tokens -= 1;
    return true;
  }

  /** How long until the next token, zero when one is there now (rounded up to whole ms). */
  public synchronized Duration untilNext() {
    refill();
    if (tokens >= 1) {
      return Duration.ZERO;
    }
    // A hair below the next whole millisecond is that millisecond (float rounding of the refill).
    return Duration.ofMillis((long) Math.ceil((1 - tokens) / perSecond * 1000 - 1e-6));
  }

  private void refill() {
    long now = nanoTime.getAsLong();
    tokens = Math.min(burst, tokens + (now - last) / NANOS * perSecond);
    last = now;
  }
}
