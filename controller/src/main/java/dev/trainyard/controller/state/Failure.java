package dev.trainyard.controller.state;

/**
 * Why a run failed (or cannot start): who must act, what happened (lower-case text such as "out of
 * memory (OOMKilled) in container node" or "command exited with code 1 in container node"), the
 * node ("" when unknown), the exit code (null when none applies) and what to change ({@code hint},
 * "" when nothing to say), e.g. "raise resources.memory in train.yaml".
 */
public record Failure(Cause cause, String what, String node, Integer exitCode, String hint) {

  public Failure {
    node = node == null ? "" : node;
    hint = hint == null ? "" : hint;
  }

  /** Without a hint. */
  public Failure(Cause cause, String what, String node, Integer exitCode) {
    this(cause, what, node, exitCode, "");
  }

  /** "WHAT on node NODE": the part a too-long description cuts. */
  String body() {
    return what + (node.isEmpty() ? "" : " on node " + node);
  }

  /** "; HINT", or "" without a hint: kept whole. */
  String tail() {
    return hint.isEmpty() ? "" : "; " + hint;
  }
}
