package dev.trainyard.controller;

/**
 * The cluster could not be reached or read (kubeconfig, context, network, permissions): exit code
 * 3. The message is one line saying what failed ("forbidden: User \"bob\" cannot list jobsets in
 * namespace \"team-a\"", "cannot reach the cluster at https://127.0.0.1:6443: connection refused"),
 * never a client library's exception text; {@link #hint()} says what to check.
 */
public final class ClusterAccessException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** The hint when nothing more specific is known. */
  public static final String CHECK_TARGET =
      "check --kubeconfig/--context, or that the cluster is reachable";

  private final String hint;

  public ClusterAccessException(String message, Throwable cause) {
    this(message, CHECK_TARGET, cause);
  }

  public ClusterAccessException(String message, String hint, Throwable cause) {
    super(message, cause);
    this.hint = hint;
  }

  /** What the user should check, e.g. {@link #CHECK_TARGET}. */
  public String hint() {
    return hint;
  }
}
