package dev.trainyard.controller.state;

/**
 * Who has to act on a problem: NONE (no problem), USER (what the user's code or train.yaml
 * controls: the command or setup exited non-zero, OOMKilled at the container's own {@code
 * resources.memory}, an {@code image:} of train.yaml that cannot be pulled, the run's {@code
 * timeout}, a Secret or ConfigMap its pods cannot mount) or PLATFORM (a runtime image that cannot
 * be pulled, eviction, preemption, node loss, the GPU check, Kueue deactivating the Workload: the
 * platform team or a retry helps).
 */
public enum Cause {
  NONE,
  USER,
  PLATFORM
}
