package dev.trainyard.controller.state;

/**
 * Who has to act on a problem: NONE (no problem), USER (the user's command or setup exited
 * non-zero: fix the code, train.yaml or requirements) or PLATFORM (image pull, eviction,
 * preemption, node loss, OOMKilled, deadline: the platform team or a retry helps).
 */
public enum Cause {
  NONE,
  USER,
  PLATFORM
}
