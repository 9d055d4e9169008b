package dev.trainyard.controller.forge;

import java.util.Optional;

/**
 * A forge's commit status API: read what a commit shows for a context, and post a new status.
 *
 * <pre>
 * Forge github = CommitStatusApi.github(URI.create("https://api.github.com"), token, transport);
 * github.post(new CommitRef("acme/llm", sha), new CommitStatus(CommitState.RUNNING, "running: 2 of 2 nodes ready",
 *     "trainyard/dev/llama-ft-7f3a9c", ""));
 * </pre>
 *
 * Errors: {@link ForgeException} with {@link ForgeException.Kind#PERMISSION} (401, or a 403 that is
 * no rate limit: not retried), {@link ForgeException.Kind#REJECTED} (the forge refused the request,
 * e.g. 422), {@link ForgeException.Kind#UNAVAILABLE} (5xx, no answer, TLS, GitLab's 409: try again
 * later) or {@link ForgeException.Kind#RATE_LIMITED} (try again after {@link
 * ForgeException#retryAfter()}). A client never waits for a limit: its forge's {@link ForgeGate}
 * refuses calls until the wait is over.
 */
public interface Forge {

  /** The forge's kind, for metrics and logs: "github", "gitlab" or "gitea". */
  String kind();

  /**
   * The forge's name for {@code state}, e.g. RUNNING is "pending" on GitHub and "running" on
   * GitLab.
   */
  String wireState(CommitState state);

  /**
   * The forge's name for what {@code status} posts: {@link #wireState(CommitState)} of its state,
   * unless the forge has a finer word (GitHub check runs: {@code timed_out}).
   */
  default String wireState(CommitStatus status) {
    return wireState(status.state());
  }

  /**
   * Whether this forge shows {@link CommitStatus#details()} (GitHub check runs), so the caller
   * should gather them (the failing node's last log lines) before a terminal post.
   */
  default boolean detailed() {
    return false;
  }

  /**
   * Whether this forge can hold a project of this path: GitHub and Gitea only {@code owner/repo},
   * GitLab any {@code group/.../project}.
   */
  default boolean serves(String project) {
    return true;
  }

  /** The newest status {@code commit} shows for {@code context}, if any. */
  Optional<PostedStatus> current(CommitRef commit, String context) throws ForgeException;

  /**
   * Posts {@code status} on {@code commit}; SKIPPED when the forge's rules forbid it (GitLab: not
   * forward of the current state) so nothing was sent.
   */
  PostOutcome post(CommitRef commit, CommitStatus status) throws ForgeException;

  /** What {@link #post} did. */
  enum PostOutcome {
    POSTED,
    SKIPPED
  }
}
