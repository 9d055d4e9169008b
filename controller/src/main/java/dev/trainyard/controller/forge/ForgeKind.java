package dev.trainyard.controller.forge;

import java.net.URI;

/** The forge APIs Trainyard speaks, and how to build a client for one. */
public enum ForgeKind {
  GITHUB,
  GITLAB,
  GITEA;

  /** A client for this kind at {@code api} with {@code token}, sending through {@code http}. */
  public Forge client(URI api, Token token, RetryingTransport http) {
    return switch (this) {
      case GITHUB -> CommitStatusApi.github(api, token, http);
      case GITLAB -> new GitLabForge(api, token, http);
      case GITEA -> CommitStatusApi.gitea(api, token, http);
    };
  }
}
