package dev.trainyard.controller.state;

/**
 * Where a run is, in the order a healthy run passes through: QUEUED (waiting in Kueue), ADMITTED
 * (quota reserved, no pod yet), STARTING (pods scheduled, pulling images, cloning code in init
 * containers), RUNNING (every node of the attempt ready), RESTARTING (a later attempt is starting
 * after a failure), then one of the terminal SUCCEEDED or FAILED; DELETED when its JobSet was
 * deleted before it finished (only the controller sees that, from the delete event: {@link
 * RunStateMapper#deleted}).
 */
public enum Phase {
  QUEUED,
  ADMITTED,
  STARTING,
  RUNNING,
  RESTARTING,
  SUCCEEDED,
  FAILED,
  DELETED;

  /** Whether nothing follows this phase for the run. */
  public boolean terminal() {
    return this == SUCCEEDED || this == FAILED || this == DELETED;
  }
}
