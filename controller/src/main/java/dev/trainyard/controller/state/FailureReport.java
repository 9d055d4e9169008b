package dev.trainyard.controller.state;

import java.util.Optional;

/**
 * A failed run's failure in full, for a forge with room for it (GitHub check runs): what happened,
 * on which node (the pod's node label, e.g. {@code node-1}; "" when unknown), the exit code (null
 * when none applies), what to change ("" when nothing to say), and whether the run's {@code
 * timeout} ended it. The commit status description carries the same, cut to 140 characters.
 */
public record FailureReport(
    Cause cause, String what, String node, Integer exitCode, String hint, boolean timedOut) {

  /** The failure of {@code o}, which the mapper maps to FAILED; empty when nothing explains it. */
  public static Optional<FailureReport> of(RunObservation o) {
    return RunStateMapper.cause(o)
        .map(
            f ->
                new FailureReport(
                    f.cause(),
                    f.what(),
                    f.node(),
                    f.exitCode(),
                    f.hint(),
                    FailureClassifier.TIMEOUT_HINT.equals(f.hint())));
  }

  /** The report as Markdown lines: the failure, then node, exit code and what to change. */
  public String markdown() {
    StringBuilder b = new StringBuilder();
    b.append("**Failed (").append(cause == Cause.USER ? "user error" : "platform error");
    b.append(")**: ").append(what).append('\n');
    if (!node.isEmpty()) {
      b.append("\n- node: `").append(node).append('`');
    }
    if (exitCode != null) {
      b.append("\n- exit code: ").append(exitCode);
    }
    if (!hint.isEmpty()) {
      b.append("\n- what to change: ").append(hint);
    }
    return b.toString();
  }
}
