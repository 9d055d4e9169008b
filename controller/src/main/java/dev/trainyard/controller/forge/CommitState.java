package dev.trainyard.controller.forge;

/**
 * A commit status in Trainyard's terms, before a forge client turns it into its own state names:
 * PENDING (queued), RUNNING, SUCCESS, FAILURE (the user's error), ERROR (the platform's error) and
 * CANCELED (the run was deleted before it finished). GitHub and Gitea have no running state, so
 * their clients send RUNNING as "pending" and the description says "running"; GitLab has no error
 * state, so ERROR is sent as "failed"; GitHub and Gitea have no canceled state, so CANCELED is sent
 * as "error".
 */
public enum CommitState {
  PENDING,
  RUNNING,
  SUCCESS,
  FAILURE,
  ERROR,
  CANCELED;

  /** Whether the run is over: SUCCESS, FAILURE, ERROR or CANCELED. */
  public boolean terminal() {
    return this == SUCCESS || this == FAILURE || this == ERROR || this == CANCELED;
  }
}
