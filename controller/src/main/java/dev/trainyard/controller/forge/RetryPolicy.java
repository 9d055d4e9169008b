package dev.trainyard.controller.forge;

import java.time.Duration;

/**
 * How long a forge call may keep trying: at most {@code maxAttempts} requests; between failed
 * attempts (5xx, timeout) an exponential back-off from {@code firstBackoff} doubling up to {@code
 * maxBackoff}; a limited answer (403/429 with Retry-After or X-RateLimit-Remaining 0) waits as the
 * forge says, but never longer than {@code maxWait} in one go (longer waits give up as UNAVAILABLE
 * and the reconciler requeues). A 429 that says nothing waits at least {@code minLimitWait}
 * (GitHub: "wait at least one minute").
 *
 * <p>Source: GitHub "Rate limits for the REST API" (honour retry-after, else x-ratelimit-reset when
 * remaining is 0, else at least a minute with exponential back-off).
 */
public record RetryPolicy(
    int maxAttempts,
    Duration firstBackoff,
    Duration maxBackoff,
    Duration maxWait,
    Duration minLimitWait) {

  /** 6 attempts, 1 s doubling to 30 s, waits up to 15 min, 60 s for a silent 429. */
  public static RetryPolicy standard() {
    return new RetryPolicy(
        6,
        Duration.ofSeconds(1),
        Duration.ofSeconds(30),
        Duration.ofMinutes(15),
        Duration.ofSeconds(60));
  }

  /** Back-off before attempt {@code attempt + 1}, where {@code attempt} (1-based) just failed. */
  public Duration backoff(int attempt) {
    Duration d = firstBackoff;
    for (int i = 1; i < attempt && d.compareTo(maxBackoff) < 0; i++) {
      d = d.multipliedBy(2);
    }
    return d.compareTo(maxBackoff) > 0 ? maxBackoff : d;
  }
}
