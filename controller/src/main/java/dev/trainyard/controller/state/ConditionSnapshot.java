package dev.trainyard.controller.state;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One Kubernetes status condition as read: {@code type}, whether {@code status} is "True", its
 * {@code reason} and {@code message} ("" when absent) and {@code lastTransitionTime} (null when
 * absent).
 */
public record ConditionSnapshot(
    String type, boolean isTrue, String reason, String message, Instant since) {

  public ConditionSnapshot {
    reason = reason == null ? "" : reason;
    message = message == null ? "" : message;
  }

  /** The condition of {@code type} in {@code conditions}, if present. */
  public static Optional<ConditionSnapshot> find(List<ConditionSnapshot> conditions, String type) {
    return conditions.stream().filter(c -> c.type().equals(type)).findFirst();
  }

  /** Whether {@code conditions} hold {@code type} with status True. */
  public static boolean holds(List<ConditionSnapshot> conditions, String type) {
    return find(conditions, type).map(ConditionSnapshot::isTrue).orElse(false);
  }
}
