package dev.trainyard.controller.forge;

/**
 * A commit status in Trainyard's terms, before a forge client turns it into its own state names:
 * PENDING (queued), RUNNING, SUCCESS, FAILURE (the user's error) and ERROR (the platform's error).
 * GitHub and Gitea have no running state, so their clients send RUNNING as "pending" and the
 * description says "running"; GitLab has no error state, so ERROR is sent as "failed".
 */
public enum CommitState {
  PENDING,
  RUNNING,
  SUCCESS,
  FAILURE,
  ERROR;

  /** Whether the run is over: SUCCESS, FAILURE or ERROR. */
  public boolean terminal() {
    return this == SUCCESS || this == FAILURE || this == ERROR;
  }
}
