package dev.trainyard.controller.state;

/**
 * Why a run failed: who must act, what happened (lower-case text such as "OOMKilled" or "command
 * exited with code 1"), the node ("" when unknown) and the exit code (null when none applies).
 */
public record Failure(Cause cause, String what, String node, Integer exitCode) {

  public Failure {
    node = node == null ? "" : node;
  }
}
