package dev.trainyard.controller.forge;

import java.time.Duration;
import java.util.Optional;

/**
 * A forge call that did not succeed. The message names the method, the path and the HTTP status,
 * never a token or a request header.
 */
public final class ForgeException extends Exception {

  private static final long serialVersionUID = 1L;

  /**
   * PERMISSION: 401 or a 403 that is no rate limit; REJECTED: another 4xx; UNAVAILABLE: 5xx, no
   * response, TLS failure or GitLab's 409 (its per-SHA lock), try again later; RATE_LIMITED: the
   * forge said to wait ({@link #retryAfter()}).
   */
  public enum Kind {
    PERMISSION,
    REJECTED,
    UNAVAILABLE,
    RATE_LIMITED
  }

  private final Kind kind;
  private final int httpStatus;
  private final transient Duration retryAfter;
  private final boolean sent;

  /**
   * @param httpStatus the last HTTP status, 0 when no response came (timeout, connection refused)
   */
  public ForgeException(Kind kind, int httpStatus, String message) {
    this(kind, httpStatus, message, null, true);
  }

  /**
   * @param retryAfter how long the forge (or its gate) asks to wait before the next call; null: no
   *     advice
   * @param sent whether a request went out; false when the forge's gate was closed and nothing was
   *     sent
   */
  public ForgeException(
      Kind kind, int httpStatus, String message, Duration retryAfter, boolean sent) {
    super(message);
    this.kind = kind;
    this.httpStatus = httpStatus;
    this.retryAfter = retryAfter;
    this.sent = sent;
  }

  public Kind kind() {
    return kind;
  }

  public int httpStatus() {
    return httpStatus;
  }

  /**
   * How long to wait before this call is worth trying again, when the forge or its gate said so.
   */
  public Optional<Duration> retryAfter() {
    return Optional.ofNullable(retryAfter);
  }

  /**
   * Whether a request reached the forge (false: its gate was closed, nothing was sent, nothing new
   * to log).
   */
  public boolean sent() {
    return sent;
  }

  /**
   * Whether the same call may succeed later without anyone changing anything: UNAVAILABLE or
   * RATE_LIMITED.
   */
  public boolean retryable() {
    return kind == Kind.UNAVAILABLE || kind == Kind.RATE_LIMITED;
  }
}
