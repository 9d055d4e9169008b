package dev.trainyard.controller.forge;

import java.util.Objects;

/**
 * One commit status to post: state, description (the client fits it to the forge's limit), context
 * (e.g. {@code trainyard/dev/llama-ft-7f3a9c}; at most 255 characters on GitHub), target URL (""
 * for none), and for a forge with room for them ({@link Forge#detailed()}: GitHub check runs) the
 * details a description cuts — Markdown, "" for none — and whether the run's timeout ended it; a
 * SUCCESS may be {@code questioned} (the run succeeded but did not seem to train: a GitHub check
 * run's conclusion is then {@code neutral}, which GitHub shows as neither passed nor failed; commit
 * statuses have no such state and stay {@code success}).
 */
public record CommitStatus(
    CommitState state,
    String description,
    String context,
    String targetUrl,
    String details,
    boolean timedOut,
    boolean questioned) {

  public CommitStatus {
    Objects.requireNonNull(state, "state");
    description = description == null ? "" : description;
    Objects.requireNonNull(context, "context");
    targetUrl = targetUrl == null ? "" : targetUrl;
    details = details == null ? "" : details;
  }

  /** Not questioned. */
  public CommitStatus(
      CommitState state,
      String description,
      String context,
      String targetUrl,
      String details,
      boolean timedOut) {
    this(state, description, context, targetUrl, details, timedOut, false);
  }

  /** Without details. */
  public CommitStatus(CommitState state, String description, String context, String targetUrl) {
    this(state, description, context, targetUrl, "", false);
  }

  /** This status with {@code details} and the timeout flag. */
  public CommitStatus withDetails(String details, boolean timedOut) {
    return new CommitStatus(state, description, context, targetUrl, details, timedOut, questioned);
  }

  /** This status questioned ({@code neutral} as a GitHub check run's conclusion). */
  public CommitStatus asQuestioned() {
    return new CommitStatus(state, description, context, targetUrl, details, timedOut, true);
  }
}
