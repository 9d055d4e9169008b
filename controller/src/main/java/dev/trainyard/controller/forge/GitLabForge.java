package dev.trainyard.controller.forge;

import java.net.URI;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * GitLab external commit statuses (docs.gitlab.com api/commits "Set the pipeline status of a
 * commit"): {@code POST /projects/:id/statuses/:sha} with {@code PRIVATE-TOKEN}, states
 * pending|running|success|failed|canceled (ERROR and FAILURE are both "failed"), {@code name} as
 * the context, description and target URL at most 255 characters. GitLab answers 400 "Cannot
 * transition status via :run from :running" to a repeat of the current state, and a post after a
 * terminal state creates a new job marking the old one retried, so this client reads {@code GET
 * /projects/:id/repository/commits/:sha/statuses?name=} first and posts only a move forward in
 * pending → running → terminal (runatlantis/atlantis#1971, konflux-ci/integration-service#853).
 */
public final class GitLabForge implements Forge {

  static final int TEXT = 255;
  private final URI api;
  private final Token token;
  private final RetryingTransport http;

  /**
   * @param api the API root including /api/v4, e.g. https://gitlab.com/api/v4
   */
  public GitLabForge(URI api, Token token, RetryingTransport http) {
    this.api = api;
    this.token = token;
    this.http = http;
  }

  @Override
  public String kind() {
    return "gitlab";
  }

  @Override
  public String wireState(CommitState state) {
    return switch (state) {
      case PENDING -> "pending";
      case RUNNING -> "running";
      case SUCCESS -> "success";
      case FAILURE, ERROR -> "failed";
      case CANCELED -> "canceled";
    };
  }

  @Override
  public Optional<PostedStatus> current(CommitRef commit, String context) throws ForgeException {
    URI uri =
        ApiPath.of(
            api,
            "/projects",
            Map.of("name", context, "per_page", "100"),
            commit.project(),
            "repository",
            "commits",
            commit.sha(),
            "statuses");
    HttpAnswer a = http.send(kind(), new HttpCall("GET", uri, headers(), ""));
    // The name= filter is GitLab's: the answer holds only this context's statuses.
    return Json.objects(Json.read(a.body())).stream()
        .max(Comparator.comparingLong(GitLabForge::id))
        .map(
            s ->
                new PostedStatus(
                    Json.string(s, "status"),
                    Json.string(s, "description"),
                    Json.string(s, "target_url")));
  }

  @Override
  public PostOutcome post(CommitRef commit, CommitStatus status) throws ForgeException {
    String context = Limits.context(status);
    Optional<PostedStatus> now = current(commit, context);
    if (now.isPresent() && rank(wireState(status.state())) <= rank(now.get().state())) {
      return PostOutcome.SKIPPED;
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("state", wireState(status.state()));
    body.put("name", context);
    body.put("description", Limits.description(status, TEXT));
    // A cut URL would point nowhere: one over GitLab's 255 is left out.
    if (!status.targetUrl().isEmpty() && status.targetUrl().length() <= TEXT) {
      body.put("target_url", status.targetUrl());
    }
    URI uri = ApiPath.of(api, "/projects", Map.of(), commit.project(), "statuses", commit.sha());
    http.send(kind(), new HttpCall("POST", uri, headers(), Json.write(body)));
    return PostOutcome.POSTED;
  }

  /** pending 0, running 1, any terminal state 2; unknown states (created, skipped...) -1. */
  static int rank(String state) {
    return switch (state) {
      case "pending" -> 0;
      case "running" -> 1;
      case "success", "failed", "canceled", "skipped" -> 2;
      default -> -1;
    };
  }

  private static long id(Map<String, Object> status) {
    Object id = status.get("id");
    return id instanceof Number n ? n.longValue() : 0L;
  }

  private Map<String, String> headers() {
    return Map.of(
        "PRIVATE-TOKEN",
        token.reveal(),
        "Accept",
        "application/json",
        "Content-Type",
        "application/json");
  }
}
