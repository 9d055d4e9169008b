package dev.trainyard.controller.state;

import java.time.Instant;

/**
 * One container status of a pod: its {@code name} and {@code image}, which state it is in, the
 * state's {@code reason} and {@code message} ("" when absent) and, when terminated, its {@code
 * exitCode} and {@code finishedAt} (null otherwise). Source: core/v1 ContainerStatus
 * (state.waiting|running|terminated).
 */
public record ContainerSnapshot(
    String name,
    String image,
    Status status,
    String reason,
    String message,
    Integer exitCode,
    Instant finishedAt) {

  /** Which of ContainerState's three members is set; UNKNOWN when none is (not yet reported). */
  public enum Status {
    WAITING,
    RUNNING,
    TERMINATED,
    UNKNOWN
  }

  public ContainerSnapshot {
    image = image == null ? "" : image;
    reason = reason == null ? "" : reason;
    message = message == null ? "" : message;
  }

  /** Without the time it ended. */
  public ContainerSnapshot(
      String name, String image, Status status, String reason, String message, Integer exitCode) {
    this(name, image, status, reason, message, exitCode, null);
  }

  /** A waiting container with {@code reason}, e.g. ImagePullBackOff. */
  public static ContainerSnapshot waiting(String name, String reason) {
    return new ContainerSnapshot(name, "", Status.WAITING, reason, "", null);
  }

  /** A running container. */
  public static ContainerSnapshot running(String name) {
    return new ContainerSnapshot(name, "", Status.RUNNING, "", "", null);
  }

  /**
   * A terminated container with {@code exitCode} and {@code reason} (e.g. Error, OOMKilled,
   * Completed).
   */
  public static ContainerSnapshot terminated(String name, int exitCode, String reason) {
    return new ContainerSnapshot(name, "", Status.TERMINATED, reason, "", exitCode);
  }

  /** Terminated with a non-zero exit code. */
  public boolean failed() {
    return status == Status.TERMINATED && exitCode != null && exitCode != 0;
  }
}
