package dev.trainyard.controller.state;

import java.util.List;

/**
 * One child Job of a run's JobSet as read from the API (batch/v1): its {@code name}, the JobSet
 * restart {@code attempt} it belongs to (label {@code jobset.sigs.k8s.io/restart-attempt}, 0 when
 * absent) and its {@code status.conditions} (Failed, Complete, FailureTarget, ...). The Failed
 * condition's reason and message outlive the Job's pods, so a failure stays explained after the
 * pods are deleted.
 */
public record JobSnapshot(String name, int attempt, List<ConditionSnapshot> conditions) {

  public JobSnapshot {
    conditions = List.copyOf(conditions);
  }
}
