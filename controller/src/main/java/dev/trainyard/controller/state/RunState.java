package dev.trainyard.controller.state;

import java.time.Duration;

/**
 * The one user-facing state of a run, shared by the controller's commit status and {@code trainyard
 * status}: phase, who must act ({@code cause}), the description (at most {@link Description#MAX}
 * characters, GitHub's limit for a commit status description), the node and exit code of a failure
 * ("" and null when unknown), nodes ready of total for the current attempt, attempt n of max
 * ({@code status.restarts + 1} of {@code failurePolicy.maxRestarts + 1}), whether the run is
 * stalled ({@code stalled}: with phase ADMITTED, STARTING or RESTARTING, admitted but not started
 * within {@code stallAfter}; with phase RUNNING, its progress and log stood still for {@code
 * progressStallAfter}, see {@link RunStateMapper}), and the run time of a finished run (null while
 * it runs).
 *
 * <pre>
 * RunState[phase=RUNNING, cause=NONE, description=running: 2 of 2 nodes ready, attempt 1 of 4, ...]
 * </pre>
 */
public record RunState(
    Phase phase,
    Cause cause,
    String description,
    String node,
    Integer exitCode,
    int nodesReady,
    int nodesTotal,
    int attempt,
    int maxAttempts,
    boolean stalled,
    Duration duration) {

  public RunState {
    description = Description.fit(description, Description.MAX);
    node = node == null ? "" : node;
  }
}
