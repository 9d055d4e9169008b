package dev.trainyard.controller.forge;

import java.time.Duration;

/** Waits; injected so retry tests take no wall time. */
@FunctionalInterface
public interface Sleeper {

  /** Blocks for {@code d}; throws when interrupted (the controller is stopping). */
  void sleep(Duration d) throws InterruptedException;

  /** The real thing: {@link Thread#sleep}. */
  static Sleeper system() {
    return d -> Thread.sleep(d.toMillis());
  }
}
