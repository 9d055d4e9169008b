package dev.trainyard.controller.forge;

import java.util.Objects;

/**
 * One commit status to post: state, description (the client fits it to the forge's limit), context
 * (e.g. {@code trainyard/dev/llama-ft-7f3a9c}; at most 255 characters on GitHub) and target URL (""
 * for none).
 */
public record CommitStatus(
    CommitState state, String description, String context, String targetUrl) {

  public CommitStatus {
    Objects.requireNonNull(state, "state");
    description = description == null ? "" : description;
    Objects.requireNonNull(context, "context");
    targetUrl = targetUrl == null ? "" : targetUrl;
  }
}
