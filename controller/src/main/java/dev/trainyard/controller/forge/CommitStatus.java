package dev.trainyard.controller.forge;

import java.util.Objects;

/**
 * One commit status to post: state, description (the client fits it to the forge's limit), context
 * (e.g. {@code trainyard/dev/llama-ft-7f3a9c}; at most 255 characters on GitHub), target URL (""
 * for none), and for a forge with room for them ({@link Forge#detailed()}: GitHub check runs) the
 * details a description cuts — Markdown, "" for none — and whether the run's timeout ended it.
 */
public record CommitStatus(
    CommitState state,
    String description,
    String context,
    String targetUrl,
    String details,
    boolean timedOut) {

  public CommitStatus {
    Objects.requireNonNull(state, "state");
    description = description == null ? "" : description;
    Objects.requireNonNull(context, "context");
    targetUrl = targetUrl == null ? "" : targetUrl;
    details = details == null ? "" : details;
  }

  /** Without details. */
  public CommitStatus(CommitState state, String description, String context, String targetUrl) {
    this(state, description, context, targetUrl, "", false);
  }

  /** This status with {@code details} and the timeout flag. */
  public CommitStatus withDetails(String details, boolean timedOut) {
    return new CommitStatus(state, description, context, targetUrl, details, timedOut);
  }
}
