package dev.trainyard.controller.forge;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * One forge endpoint's gate (each client holds one, so one per {@code status.forges} entry and
 * token): closed while that forge asked to wait (a rate limit) or after it stopped answering, so
 * every other run's call to it fails at once without a request ({@link ForgeException#sent()}
 * false) and is requeued for when the gate opens, while runs on other forges post as usual. A 2xx
 * answer opens it and resets the counts the back-offs grow with. Thread-safe.
 */
public final class ForgeGate {

  private final String name;
  private Instant openAt = Instant.MIN;
  private ForgeException.Kind kind = ForgeException.Kind.UNAVAILABLE;
  private String why = "";
  private int limits;
  private int failures;

  /**
   * @param name the forge as messages name it, e.g. {@code github at api.github.com}
   */
  public ForgeGate(String name) {
    this.name = name;
  }

  public String name() {
    return name;
  }

  /** How long the gate stays closed after {@code now}; empty when it is open. */
  public synchronized Optional<Duration> closed(Instant now) {
    return now.isBefore(openAt) ? Optional.of(Duration.between(now, openAt)) : Optional.empty();
  }

  /** The refusal for a call while closed: the gate's kind, nothing sent, the time left. */
  synchronized ForgeException refusal(String call, Instant now) {
    Duration left = Duration.between(now, openAt);
    return new ForgeException(
        kind, 0, call + ": not sent, " + name + " " + why + " until " + openAt, left, false);
  }

  /**
   * A rate limit: closed for {@code told} (at most the policy's longest), else for the policy's
   * silent-limit back-off of this limit's place in a row; returns how long.
   */
  synchronized Duration limited(Instant now, Optional<Duration> told, RetryPolicy policy) {
    limits++;
    Duration d = told.map(policy::limitWait).orElseGet(() -> policy.limitBackoff(limits));
    close(now, d, ForgeException.Kind.RATE_LIMITED, "is rate limited");
    return d;
  }

  /**
   * A call that found the forge unavailable: closed for the policy's back-off of this failure's
   * place in a row.
   */
  synchronized Duration unavailable(Instant now, RetryPolicy policy) {
    failures++;
    Duration d = policy.backoff(failures);
    close(now, d, ForgeException.Kind.UNAVAILABLE, "was unavailable");
    return d;
  }

  /** A 2xx answer: open, and the next limit or failure starts its back-off afresh. */
  synchronized void opened() {
    limits = 0;
    failures = 0;
    openAt = Instant.MIN;
  }

  private void close(Instant now, Duration d, ForgeException.Kind k, String reason) {
    openAt = now.plus(d);
    kind = k;
    why = reason;
  }
}
