package dev.trainyard.controller.forge;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * Sends a forge call under a {@link RetryPolicy}: 5xx and no-response (timeout, refused) are
 * retried with back-off; 429, and 403 carrying {@code Retry-After} or {@code X-RateLimit-Remaining:
 * 0}, wait as told ({@code Retry-After} seconds or HTTP date, else until {@code X-RateLimit-Reset}
 * epoch seconds); a bare 403 and 401 throw PERMISSION at once; other non-2xx throw REJECTED. Every
 * wait goes through the injected {@link Sleeper} and {@link Clock}.
 */
public final class RetryingTransport {

  private final Transport transport;
  private final RetryPolicy policy;
  private final Clock clock;
  private final Sleeper sleeper;
  private final ForgeEvents events;

  public RetryingTransport(
      Transport transport, RetryPolicy policy, Clock clock, Sleeper sleeper, ForgeEvents events) {
    this.transport = transport;
    this.policy = policy;
    this.clock = clock;
    this.sleeper = sleeper;
    this.events = events;
  }

  /** The 2xx answer to {@code call} for forge {@code kind}. */
  public HttpAnswer send(String kind, HttpCall call) throws ForgeException {
    String last = "no attempt";
    int lastStatus = 0;
    for (int attempt = 1; attempt <= policy.maxAttempts(); attempt++) {
      Optional<HttpAnswer> answer = attempt(call);
      Pause pause;
      if (answer.isEmpty()) {
        last = "no response";
        lastStatus = 0;
        pause = new Pause(policy.backoff(attempt), "timeout");
      } else if (answer.get().ok()) {
        return answer.get();
      } else {
        lastStatus = answer.get().status();
        last = "HTTP " + lastStatus;
        pause = pauseAfter(call, answer.get(), attempt);
      }
      if (attempt < policy.maxAttempts()) {
        events.retried(kind, pause.reason());
        pause(call, pause.delay());
      }
    }
    throw new ForgeException(
        ForgeException.Kind.UNAVAILABLE,
        lastStatus,
        call.describe() + ": gave up after " + policy.maxAttempts() + " attempts (" + last + ")");
  }

  /** A wait before the next attempt, and why ("5xx", "timeout", "rate-limit"). */
  private record Pause(Duration delay, String reason) {}

  /** The pause after the non-2xx answer {@code a}, or the exception ending the call. */
  private Pause pauseAfter(HttpCall call, HttpAnswer a, int attempt) throws ForgeException {
    Optional<Duration> limited = limitWait(a);
    if (a.status() == 429 || (a.status() == 403 && limited.isPresent())) {
      Duration d = limited.orElse(max(policy.minLimitWait(), policy.backoff(attempt)));
      if (d.compareTo(policy.maxWait()) > 0) {
        throw new ForgeException(
            ForgeException.Kind.UNAVAILABLE,
            a.status(),
            call.describe()
                + ": rate limited for "
                + d.toSeconds()
                + " s, more than "
                + policy.maxWait().toSeconds()
                + " s");
      }
      return new Pause(d, "rate-limit");
    }
    if (a.status() >= 500) {
      return new Pause(policy.backoff(attempt), "5xx");
    }
    if (a.status() == 401) {
      throw new ForgeException(
          ForgeException.Kind.PERMISSION,
          401,
          call.describe()
              + ": HTTP 401, the token is"
              + " invalid or expired (update the token Secret: the controller re-reads it and retries)");
    }
    if (a.status() == 403) {
      throw new ForgeException(
          ForgeException.Kind.PERMISSION,
          403,
          call.describe()
              + ": HTTP 403, the token lacks"
              + " permission (GitHub: push access; GitLab: api scope; Gitea: write:repository)");
    }
    throw new ForgeException(
        ForgeException.Kind.REJECTED,
        a.status(),
        call.describe() + ": HTTP " + a.status() + " " + Excerpt.of(a.body()));
  }

  /**
   * Retry-After (seconds or HTTP date), else the time until X-RateLimit-Reset when remaining is 0.
   */
  Optional<Duration> limitWait(HttpAnswer a) {
    Optional<String> retryAfter = a.header("retry-after");
    if (retryAfter.isPresent()) {
      return Optional.of(retryAfter(retryAfter.get()));
    }
    boolean exhausted = a.header("x-ratelimit-remaining").map("0"::equals).orElse(false);
    Optional<String> reset = a.header("x-ratelimit-reset");
    if (exhausted && reset.isPresent()) {
      try {
        Instant at = Instant.ofEpochSecond(Long.parseLong(reset.get()));
        return Optional.of(
            max(Duration.ZERO, Duration.between(clock.instant(), at)).plusSeconds(1));
      } catch (NumberFormatException e) {
        return Optional.of(policy.minLimitWait());
      }
    }
    return Optional.empty();
  }

  private Duration retryAfter(String value) {
    try {
      return Duration.ofSeconds(Math.max(0, Long.parseLong(value)));
    } catch (NumberFormatException notSeconds) {
      try {
        Instant at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
        return max(Duration.ZERO, Duration.between(clock.instant(), at));
      } catch (DateTimeParseException notDate) {
        return policy.minLimitWait();
      }
    }
  }

  private Optional<HttpAnswer> attempt(HttpCall call) throws ForgeException {
    try {
      return Optional.of(transport.send(call));
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ForgeException(
          ForgeException.Kind.UNAVAILABLE, 0, call.describe() + ": interrupted");
    }
  }

  private void pause(HttpCall call, Duration d) throws ForgeException {
    try {
      sleeper.sleep(d);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ForgeException(
          ForgeException.Kind.UNAVAILABLE, 0, call.describe() + ": interrupted");
    }
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }
}
