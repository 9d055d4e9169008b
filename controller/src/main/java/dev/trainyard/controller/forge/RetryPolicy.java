package dev.trainyard.controller.forge;

import java.time.Duration;

/**
 * How a forge call is retried without holding up the shared worker. Within one call only a 5xx or a
 * refused or reset connection is tried again, at most {@code maxAttempts} requests with a back-off
 * from {@code firstBackoff} doubling (1 s, 2 s by default: the only waits inside a call).
 * Everything that lasts longer becomes a later retry of the run's key and closes the forge's {@link
 * ForgeGate}: after the n-th call in a row that found the forge unavailable (retries used up, a
 * timeout, a TLS failure) the gate stays closed {@link #backoff backoff(n)}, at most {@code
 * maxBackoff}; a rate limit closes it for as long as the forge says ({@code Retry-After}, else
 * until {@code X-RateLimit-Reset} when remaining is 0) and, when it says nothing (GitHub's
 * secondary limit as a bare 403), for {@code minLimitWait} doubling with each limit in a row; never
 * longer than {@code maxLimitWait}.
 *
 * <p>Source: GitHub "Rate limits for the REST API" and "Troubleshooting the REST API" (403 or 429;
 * honour {@code retry-after}, else {@code x-ratelimit-reset} when {@code x-ratelimit-remaining} is
 * 0, else wait at least one minute and back off exponentially; requests made while limited "may
 * result in the banning of your integration"), as summarised in
 * shared/reference/peers-forges-2026.md section 3.
 */
public record RetryPolicy(
    int maxAttempts,
    Duration firstBackoff,
    Duration maxBackoff,
    Duration minLimitWait,
    Duration maxLimitWait) {

  /**
   * 3 attempts (1 s, 2 s apart), gates of 1 s doubling to 5 min, silent limits 60 s doubling to 1
   * h.
   */
  public static RetryPolicy standard() {
    return new RetryPolicy(
        3,
        Duration.ofSeconds(1),
        Duration.ofMinutes(5),
        Duration.ofSeconds(60),
        Duration.ofHours(1));
  }

  /** {@code firstBackoff} doubled {@code n - 1} times, at most {@code maxBackoff}. */
  public Duration backoff(int n) {
    return doubled(firstBackoff, n, maxBackoff);
  }

  /**
   * The wait after the {@code n}-th rate limit in a row that named no time: {@code minLimitWait}
   * doubled.
   */
  public Duration limitBackoff(int n) {
    return doubled(minLimitWait, n, maxLimitWait);
  }

  /**
   * {@code told} by the forge, at most {@code maxLimitWait} (a garbled header cannot close a gate
   * for days).
   */
  public Duration limitWait(Duration told) {
    return told.compareTo(maxLimitWait) > 0 ? maxLimitWait : told;
  }

  private static Duration doubled(Duration first, int n, Duration max) {
    Duration d = first;
    for (int i = 1; i < n && d.compareTo(max) < 0; i++) {
      d = d.multipliedBy(2);
    }
    return d.compareTo(max) > 0 ? max : d;
  }
}
