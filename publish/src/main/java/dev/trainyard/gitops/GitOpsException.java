package dev.trainyard.gitops;

/**
 * The GitOps repository could not be read or written: unreachable, refused credentials, corrupt, or
 * a push that kept losing races — an environment problem (exit code 3); or a flag names what the
 * repository does not have ({@link #isUsage()}, exit code 2). Messages never carry credentials.
 */
public final class GitOpsException extends Exception {
  private static final long serialVersionUID = 1L;
  private final String hint;
  private final boolean usage;
  private final String transientReason;

  public GitOpsException(String message, String hint, Throwable cause) {
    this(message, hint, cause, false, "");
  }

  private GitOpsException(
      String message, String hint, Throwable cause, boolean usage, String transientReason) {
    super(message, cause);
    this.hint = hint;
    this.usage = usage;
    this.transientReason = transientReason;
  }

  /**
   * The connection broke or the server failed for a while (a reset, no answer within the timeout, a
   * 5xx or 429 answer): trying again may work. What a request that failed so did to the remote is
   * unknown, so {@link Publisher} re-reads the branch before it pushes again.
   *
   * @param reason the failure in a few words ("connection reset", "no answer within 60 s")
   */
  static GitOpsException transientFailure(
      String message, String hint, String reason, Throwable cause) {
    return new GitOpsException(message, hint, cause, false, reason);
  }

  /**
   * A flag that names something the repository does not have (e.g. a {@code --branch}): a usage
   * error, exit 2.
   */
  public static GitOpsException usage(String message, String hint) {
    return new GitOpsException(message, hint, null, true, "");
  }

  /** Whether trying again may work ({@link #transientFailure}). */
  public boolean isTransient() {
    return !transientReason.isEmpty();
  }

  /** A transient failure in a few words, e.g. "connection reset"; "" for any other failure. */
  public String transientReason() {
    return transientReason;
  }

  /** Whether this is a usage error (exit 2) rather than an environment problem (exit 3). */
  public boolean isUsage() {
    return usage;
  }

  public GitOpsException(String message, String hint) {
    this(message, hint, null);
  }

  /** What the user can do about it, or "". */
  public String hint() {
    return hint;
  }
}
