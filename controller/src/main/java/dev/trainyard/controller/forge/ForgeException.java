package dev.trainyard.controller.forge;

/**
 * A forge call that did not succeed. The message names the method, the path and the HTTP status,
 * never a token or a request header.
 */
public final class ForgeException extends Exception {

  private static final long serialVersionUID = 1L;

  /** PERMISSION: 401 or a bare 403; REJECTED: another 4xx; UNAVAILABLE: retries used up. */
  public enum Kind {
    PERMISSION,
    REJECTED,
    UNAVAILABLE
  }

  private final Kind kind;
  private final int httpStatus;

  /**
   * @param httpStatus the last HTTP status, 0 when no response came (timeout, connection refused)
   */
  public ForgeException(Kind kind, int httpStatus, String message) {
    super(message);
    this.kind = kind;
    this.httpStatus = httpStatus;
  }

  public Kind kind() {
    return kind;
  }

  public int httpStatus() {
    return httpStatus;
  }
}
