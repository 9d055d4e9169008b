package dev.trainyard.controller;

import dev.trainyard.controller.state.RunObservation;
import java.util.Optional;

/** Reads one run from the informer caches: what the cluster shows, and where the run comes from. */
public interface RunSource {

  /** The run's JobSet, pods and Workload at this instant; empty when its JobSet is gone. */
  Optional<RunObservation> observe(RunKey key);

  /** The run's provenance; empty when the JobSet is gone or carries no source commit. */
  Optional<RunProvenance> provenance(RunKey key);

  /**
   * A run whose JobSet was deleted: its provenance and its last observation, from the final object
   * the delete event carried; empty while the JobSet exists, or when no delete was seen (or it was
   * {@link #forget forgotten}).
   */
  default Optional<DeletedRun> deleted(RunKey key) {
    return Optional.empty();
  }

  /** Drops what is kept of a deleted run, once its final status is settled. */
  default void forget(RunKey key) {}

  /**
   * The newest lines of the log of {@code pod}'s container {@code container} in the run's
   * namespace: at most {@code lines} of them, within {@code maxBytes} bytes, the newest kept when
   * they do not all fit ({@link LogTail}); empty when the log cannot be read (the pod is gone, the
   * API server refuses). Read for a failed run's error line and a completed run's progress.
   */
  default Optional<String> logTail(
      RunKey key, String pod, String container, int lines, int maxBytes) {
    return Optional.empty();
  }

  /** A deleted run: where it came from and how it looked last. */
  record DeletedRun(RunProvenance provenance, RunObservation last) {}
}
