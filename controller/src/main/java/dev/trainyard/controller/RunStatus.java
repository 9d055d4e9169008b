package dev.trainyard.controller;

import dev.trainyard.controller.forge.CommitState;
import dev.trainyard.controller.state.Cause;
import dev.trainyard.controller.state.RunState;

/**
 * The commit state for a run state: QUEUED, ADMITTED and STARTING are PENDING (nothing of the
 * user's runs yet; on GitLab, whose running state is posted once, the running status then says
 * "running: 2 of 2 nodes ready" rather than a stale "starting: pulling images"); RUNNING and
 * RESTARTING are RUNNING; SUCCEEDED is SUCCESS; FAILED is FAILURE for a user error and ERROR for a
 * platform error (GitHub and Gitea show them differently; GitLab has only "failed"); DELETED (the
 * JobSet was deleted before it finished) is CANCELED: "error" on GitHub and Gitea, "canceled" on
 * GitLab, whose external pipeline would otherwise stay running and block "Pipelines must succeed".
 */
final class RunStatus {

  private RunStatus() {}

  static CommitState of(RunState state) {
    return switch (state.phase()) {
      case QUEUED, ADMITTED, STARTING -> CommitState.PENDING;
      case RUNNING, RESTARTING -> CommitState.RUNNING;
      case SUCCEEDED -> CommitState.SUCCESS;
      case FAILED -> state.cause() == Cause.USER ? CommitState.FAILURE : CommitState.ERROR;
      case DELETED -> CommitState.CANCELED;
    };
  }
}
