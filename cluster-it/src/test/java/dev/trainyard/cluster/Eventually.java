package dev.trainyard.cluster;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Polls a condition until it holds or a deadline passes. Cluster state converges through
 * controllers, so tests wait for a level, never for an event.
 */
final class Eventually {

  private static final Duration STEP = Duration.ofMillis(250);

  private Eventually() {}

  /**
   * Waits until {@code condition} is true; otherwise fails with "timed out after Ns waiting for
   * WHAT".
   */
  static void await(String what, Duration timeout, BooleanSupplier condition) {
    await(what, timeout, condition, () -> "");
  }

  /**
   * Like {@link #await(String, Duration, BooleanSupplier)}, adding {@code lastState} to the
   * failure.
   */
  static void await(
      String what, Duration timeout, BooleanSupplier condition, Supplier<String> lastState) {
    long deadline = System.nanoTime() + timeout.toNanos();
    RuntimeException lastError = null;
    while (System.nanoTime() < deadline) {
      try {
        if (condition.getAsBoolean()) {
          return;
        }
      } catch (ClusterProcess.Exited e) {
        throw e;
      } catch (RuntimeException e) {
        lastError = e;
      }
      sleep(STEP);
    }
    String detail = lastError == null ? "" : "; last error: " + lastError.getMessage();
    throw new AssertionError(
        "timed out after "
            + timeout.toSeconds()
            + "s waiting for "
            + what
            + detail
            + " "
            + lastState.get());
  }

  static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
