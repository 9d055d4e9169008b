package dev.trainyard.controller.state;

import java.time.Duration;

/**
 * What the run's train.yaml set that a failure can point at, read from its JobSet: the {@code
 * image} train.yaml names ("" when the runtime's image runs: the compiler stamps {@code
 * trainyard.dev/image-source: train.yaml} only for an {@code image:} of train.yaml) and the run's
 * {@code timeout} (the child Jobs' {@code activeDeadlineSeconds}; null when none is set).
 *
 * <pre>
 * UserSettings[image=ghcr.io/acme/trainer:1.2, timeout=PT24H]
 * </pre>
 */
public record UserSettings(String image, Duration timeout) {

  /** Nothing known: the runtime's image, no timeout. */
  public static final UserSettings NONE = new UserSettings("", null);

  public UserSettings {
    image = image == null ? "" : image;
  }

  /** Whether {@code image} is the one train.yaml names (so pulling it is the user's to fix). */
  public boolean named(String image) {
    return !this.image.isEmpty() && this.image.equals(image);
  }
}
