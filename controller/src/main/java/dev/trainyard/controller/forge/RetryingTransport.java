package dev.trainyard.controller.forge;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Optional;
import javax.net.ssl.SSLException;

/**
 * Sends a forge call under a {@link RetryPolicy} and the forge's {@link ForgeGate}, and never waits
 * long: the reconciler's one worker serves every forge, so a forge that is limited or down must not
 * hold up the others.
 *
 * <ul>
 *   <li>Gate closed: nothing is sent; the call fails at once with the gate's kind and the time
 *       left.
 *   <li>2xx: the answer; the gate opens.
 *   <li>A rate limit: 429; or 403 carrying {@code Retry-After}, {@code X-RateLimit-Remaining: 0},
 *       or a body that says "rate limit" (GitHub's secondary limit can be a bare 403 whose message
 *       is "You have exceeded a secondary rate limit", with no header: docs.github.com
 *       "Troubleshooting the REST API"; hub4j/github-api#1805) or "abuse detection" (its older
 *       wording). No wait in the call: RATE_LIMITED with the wait ({@code Retry-After} seconds or
 *       HTTP date; else until {@code X-RateLimit-Reset}; else 60 s doubling per limit in a row),
 *       and the gate closes for it. Never "the token lacks permission".
 *   <li>5xx, a refused or reset connection: tried again in the call after 1 s, 2 s; then
 *       UNAVAILABLE and the gate closes (1 s doubling per failing call in a row, at most 5 min).
 *   <li>A timeout: UNAVAILABLE at once (another attempt would hold the worker for another timeout),
 *       gate closed.
 *   <li>A TLS failure: UNAVAILABLE at once, and the message says it is TLS and how a private CA is
 *       trusted.
 *   <li>401, and a 403 that is no limit: PERMISSION at once; any other non-2xx: REJECTED with the
 *       forge's words.
 * </ul>
 *
 * Every wait goes through the injected {@link Sleeper} and every deadline through the injected
 * {@link Clock}.
 */
public final class RetryingTransport {

  /** Where the deploy docs say how to trust a forge's private CA. */
  static final String CA_HINT =
      "if a private CA signed the forge's certificate, give the controller a trust store"
          + " holding it (-Djavax.net.ssl.trustStore; controller/deploy/README.md, \"A forge with a private CA\")";

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

  /** The clock this transport measures limits and back-off on: JWTs are issued on it too. */
  Clock clock() {
    return clock;
  }

  /**
   * The 2xx answer to {@code call} for forge {@code kind} (the metrics label) behind {@code gate}.
   */
  public HttpAnswer send(String kind, ForgeGate gate, HttpCall call) throws ForgeException {
    if (gate.closed(clock.instant()).isPresent()) {
      throw gate.refusal(call.describe(), clock.instant());
    }
    String last = "no attempt";
    int lastStatus = 0;
    String reason = "connection";
    for (int attempt = 1; attempt <= policy.maxAttempts(); attempt++) {
      HttpAnswer answer;
      try {
        answer = transport.send(call);
      } catch (IOException e) {
        lastStatus = 0;
        if (tls(e)) {
          throw unavailable(
              kind,
              gate,
              call,
              "tls",
              0,
              "TLS with " + call.uri().getHost() + " failed (" + rootMessage(e) + "); " + CA_HINT);
        }
        if (e instanceof SocketTimeoutException) {
          throw unavailable(kind, gate, call, "timeout", 0, "no answer within the request timeout");
        }
        last = "no response: " + e.getClass().getSimpleName();
        reason = "connection";
        pauseBefore(attempt, kind, reason, call);
        continue;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ForgeException(
            ForgeException.Kind.UNAVAILABLE, 0, call.describe() + ": interrupted");
      }
      if (answer.ok()) {
        gate.opened();
        return answer;
      }
      lastStatus = answer.status();
      last = "HTTP " + lastStatus;
      if (rateLimited(answer)) {
        throw limited(kind, gate, call, answer);
      }
      if (answer.status() < 500) {
        throw refused(call, answer);
      }
      reason = "5xx";
      pauseBefore(attempt, kind, reason, call);
    }
    throw unavailable(
        kind,
        gate,
        call,
        reason,
        lastStatus,
        "gave up after " + policy.maxAttempts() + " attempts (" + last + ")");
  }

  /** The back-off before attempt {@code attempt + 1}, when there is one. */
  private void pauseBefore(int attempt, String kind, String reason, HttpCall call)
      throws ForgeException {
    if (attempt < policy.maxAttempts()) {
      events.retried(kind, reason);
      pause(call, policy.backoff(attempt));
    }
  }

  /**
   * Whether {@code a} is a rate limit (see the class comment), as opposed to a permission error.
   */
  static boolean rateLimited(HttpAnswer a) {
    if (a.status() == 429) {
      return true;
    }
    if (a.status() != 403) {
      return false;
    }
    String body = a.body().toLowerCase(Locale.ROOT);
    return a.header("retry-after").isPresent()
        || a.header("x-ratelimit-remaining").map("0"::equals).orElse(false)
        || body.contains("rate limit")
        || body.contains("abuse detection");
  }

  private ForgeException limited(String kind, ForgeGate gate, HttpCall call, HttpAnswer a) {
    Optional<Duration> told = limitWait(a);
    Instant now = clock.instant();
    Duration d = gate.limited(now, told, policy);
    events.retried(kind, "rate-limit");
    String said =
        a.header("retry-after")
            .map(v -> "Retry-After " + v)
            .orElse(
                told.isPresent()
                    ? "X-RateLimit-Reset " + a.header("x-ratelimit-reset").orElse("")
                    : "no wait named, " + Excerpt.of(a.body()));
    return new ForgeException(
        ForgeException.Kind.RATE_LIMITED,
        a.status(),
        call.describe()
            + ": HTTP "
            + a.status()
            + " rate limit ("
            + said
            + "); no call to "
            + gate.name()
            + " until "
            + now.plus(d)
            + " ("
            + d.toSeconds()
            + " s), other forges go on",
        d,
        true);
  }

  private ForgeException unavailable(
      String kind, ForgeGate gate, HttpCall call, String reason, int status, String what) {
    Duration d = gate.unavailable(clock.instant(), policy);
    events.retried(kind, reason);
    return new ForgeException(
        ForgeException.Kind.UNAVAILABLE,
        status,
        call.describe()
            + ": "
            + what
            + "; no call to "
            + gate.name()
            + " for "
            + d.toSeconds()
            + " s",
        d,
        true);
  }

  private static ForgeException refused(HttpCall call, HttpAnswer a) {
    if (a.status() == 401) {
      return new ForgeException(
          ForgeException.Kind.PERMISSION,
          401,
          call.describe()
              + ": HTTP 401, the token"
              + " is invalid or expired (update the token Secret: the controller re-reads it and retries)");
    }
    if (a.status() == 403) {
      return new ForgeException(
          ForgeException.Kind.PERMISSION,
          403,
          call.describe()
              + ": HTTP 403, the token"
              + " lacks permission (GitHub: push access; GitLab: api scope; Gitea: write:repository): "
              + Excerpt.of(a.body()));
    }
    return new ForgeException(
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
      return retryAfter(retryAfter.get());
    }
    boolean exhausted = a.header("x-ratelimit-remaining").map("0"::equals).orElse(false);
    Optional<String> reset = a.header("x-ratelimit-reset");
    if (exhausted && reset.isPresent()) {
      try {
        Instant at = Instant.ofEpochSecond(Long.parseLong(reset.get()));
        return Optional.of(
            max(Duration.ZERO, Duration.between(clock.instant(), at)).plusSeconds(1));
      } catch (NumberFormatException e) {
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  /** Seconds or an HTTP date; empty when garbled (then the silent-limit back-off applies). */
  private Optional<Duration> retryAfter(String value) {
    try {
      return Optional.of(Duration.ofSeconds(Math.max(0, Long.parseLong(value))));
    } catch (NumberFormatException notSeconds) {
      try {
        Instant at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
        return Optional.of(max(Duration.ZERO, Duration.between(clock.instant(), at)));
      } catch (DateTimeParseException notDate) {
        return Optional.empty();
      }
    }
  }

  /** Whether {@code e} or a cause is a TLS failure (handshake, certificate path, protocol). */
  static boolean tls(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SSLException) {
        return true;
      }
    }
    return false;
  }

  /**
   * The innermost message of {@code e}'s causes, one line (the JDK's TLS messages hold no secret).
   */
  static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    return Excerpt.of(m);
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
