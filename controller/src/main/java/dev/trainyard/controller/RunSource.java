package dev.trainyard.controller;

import dev.trainyard.controller.state.RunObservation;
import java.util.Optional;

/** Reads one run from the informer caches: what the cluster shows, and where the run comes from. */
public interface RunSource {

  /** The run's JobSet, pods and Workload at this instant; empty when its JobSet is gone. */
  Optional<RunObservation> observe(RunKey key);

  /** The run's provenance; empty when the JobSet is gone or carries no source commit. */
  Optional<RunProvenance> provenance(RunKey key);
}
