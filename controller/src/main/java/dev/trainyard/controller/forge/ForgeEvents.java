package dev.trainyard.controller.forge;

/**
 * What the forge clients report for metrics: every call's result and every retry with its reason.
 */
public interface ForgeEvents {

  /**
   * A call to forge {@code kind} ended with {@code result} ("posted", "skipped", "permission",
   * ...).
   */
  void called(String kind, String result);

  /**
   * A call to forge {@code kind} is retried because of {@code reason} ("5xx", "timeout",
   * "rate-limit").
   */
  void retried(String kind, String reason);

  /** Ignores everything. */
  ForgeEvents NONE =
      new ForgeEvents() {
        @Override
        public void called(String kind, String result) {}

        @Override
        public void retried(String kind, String reason) {}
      };
}
