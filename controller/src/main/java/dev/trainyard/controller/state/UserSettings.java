package dev.trainyard.controller.state;

import java.time.Duration;

/**
 * What the run's train.yaml set that a failure can point at, read from its JobSet: the {@code
 * image} train.yaml names ("" when the runtime's image runs: the compiler stamps {@code
 * trainyard.dev/image-source: train.yaml} only for an {@code image:} of train.yaml) and the run's
 * {@code timeout} (the child Jobs' {@code activeDeadlineSeconds}; null when none is set) and the
 * processes per node ({@code procsPerNode}, the node containers' {@code PET_NPROC_PER_NODE}; 0 when
 * unknown, as for MPI, JAX and plain runtimes).
 *
 * <pre>
 * UserSettings[image=ghcr.io/acme/trainer:1.2, timeout=PT24H, processesPerNode=8]
 * </pre>
 */
public record UserSettings(String image, Duration timeout, int processesPerNode) {

  /** Nothing known: the runtime's image, no timeout. */
  public static final UserSettings NONE = new UserSettings("", null);

  public UserSettings {
    image = image == null ? "" : image;
    processesPerNode = Math.max(0, processesPerNode);
  }

  /** Processes per node unknown. */
  public UserSettings(String image, Duration timeout) {
    this(image, timeout, 0);
  }

  /** Whether {@code image} is the one train.yaml names (so pulling it is the user's to fix). */
  public boolean named(String image) {
    return !this.image.isEmpty() && this.image.equals(image);
  }
}
