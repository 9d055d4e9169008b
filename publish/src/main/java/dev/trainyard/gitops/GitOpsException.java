package dev.trainyard.gitops;

/**
 * The GitOps repository could not be read or written: unreachable, refused credentials, corrupt, or a push
 * that kept losing races. An environment problem (exit code 3), never a user's input mistake. Messages
 * never carry credentials.
 */
public final class GitOpsException extends Exception {
  private static final long serialVersionUID = 1L;
  private final String hint;

  public GitOpsException(String message, String hint, Throwable cause) {
    super(message, cause);
    this.hint = hint;
  }

  public GitOpsException(String message, String hint) {
    this(message, hint, null);
  }

  /** What the user can do about it, or "". */
  public String hint() {
    return hint;
  }
}
