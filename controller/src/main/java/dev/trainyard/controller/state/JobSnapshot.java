package dev.trainyard.controller.state;

import java.util.List;

/**
 * One child Job of a run's JobSet as read from the API (batch/v1): its {@code name}, the JobSet
 * restart {@code attempt} it belongs to (label {@code jobset.sigs.k8s.io/restart-attempt}, 0 when
 * absent), its {@code status.conditions} (Failed, Complete, FailureTarget, ...) and {@code
 * status.failedIndexes} (the completion indexes that failed, e.g. {@code "1,3-5"}; "" when none or
 * absent; set by the Job controller when {@code backoffLimitPerIndex} is). The Failed condition and
 * the failed indexes outlive the Job's pods, so a failure stays explained after the pods are
 * deleted.
 */
public record JobSnapshot(
    String name, int attempt, List<ConditionSnapshot> conditions, String failedIndexes) {

  public JobSnapshot {
    conditions = List.copyOf(conditions);
    failedIndexes = failedIndexes == null ? "" : failedIndexes;
  }

  /** A Job without failed indexes. */
  public JobSnapshot(String name, int attempt, List<ConditionSnapshot> conditions) {
    this(name, attempt, conditions, "");
  }
}
