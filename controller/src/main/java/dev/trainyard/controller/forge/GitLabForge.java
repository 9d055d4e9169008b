package dev.trainyard.controller.forge;

import java.net.URI;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * GitLab external commit statuses (docs.gitlab.com api/commits "Set the pipeline status of a
 * commit"; facts in shared/reference/gitops-status-secrets.md and peers-forges-2026.md section 3):
 * {@code POST /projects/:id/statuses/:sha} with {@code PRIVATE-TOKEN}, states
 * pending|running|success|failed|canceled (ERROR and FAILURE are both "failed"), {@code name} as
 * the context, description and target URL at most 255 characters.
 *
 * <ul>
 *   <li>Forward only: GitLab answers 400 "Cannot transition status via :run from :running" to a
 *       repeat of the current state, and a post after a terminal state creates a new job marking
 *       the old one retried, so this client reads {@code GET
 *       /projects/:id/repository/commits/:sha/statuses?name=} first (every page, {@code
 *       X-Next-Page}) and posts only a move forward in pending → running → terminal
 *       (runatlantis/atlantis#1971, konflux-ci/integration-service#853).
 *   <li>One pipeline: without {@code pipeline_id} GitLab appends the status to the newest pipeline
 *       of the SHA (or creates an external one), so a later transition could land in a pipeline
 *       created meanwhile (a merge request pipeline) and leave the first job running for ever,
 *       blocking "Pipelines must succeed". Every post after the first carries the {@code
 *       pipeline_id} of the job the read found (its status entity exposes it, gitlabhq {@code
 *       lib/api/entities/commit_status.rb}): the pipeline the first post created or joined.
 *   <li>409 "Another update to this commit status is in progress" is GitLab's per-SHA lock ({@code
 *       app/services/ci/create_commit_status_service.rb}, {@code FailedToObtainLockError} → {@code
 *       reason: :conflict}): UNAVAILABLE, so the run's key is tried again shortly, never refused.
 * </ul>
 */
public final class GitLabForge implements Forge {

  static final int TEXT = 255;

  /** The most pages one read follows (statuses of one name: one per pipeline of the SHA). */
  static final int MAX_PAGES = 20;

  private final URI api;
  private final Token token;
  private final RetryingTransport http;
  private final ForgeGate gate;

  /**
   * @param api the API root including /api/v4, e.g. https://gitlab.com/api/v4
   */
  public GitLabForge(URI api, Token token, RetryingTransport http) {
    this.api = api;
    this.token = token;
    this.http = http;
    this.gate = new ForgeGate("gitlab at " + api.getAuthority());
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
    return latest(commit, context)
        .map(
            s ->
                new PostedStatus(
                    Json.string(s, "status"),
                    Json.string(s, "description"),
                    Json.string(s, "target_url")));
  }

  /**
   * The newest job named {@code context} on the commit, across its pipelines and the list's pages.
   */
  private Optional<Map<String, Object>> latest(CommitRef commit, String context)
      throws ForgeException {
    Optional<Map<String, Object>> newest = Optional.empty();
    String page = "1";
    for (int n = 0; n < MAX_PAGES && !page.isEmpty(); n++) {
      URI uri =
          ApiPath.of(
              api,
              "/projects",
              Map.of("name", context, "per_page", "100", "page", page),
              commit.project(),
              "repository",
              "commits",
              commit.sha(),
              "statuses");
      HttpAnswer a = http.send(kind(), gate, new HttpCall("GET", uri, headers(), ""));
      // The name= filter is GitLab's: the answer holds only this context's statuses.
      List<Map<String, Object>> jobs = Json.objects(Json.read(a.body()));
      Optional<Map<String, Object>> best =
          jobs.stream().max(Comparator.comparingLong(s -> number(s, "id")));
      if (best.isPresent()
          && (newest.isEmpty() || number(best.get(), "id") > number(newest.get(), "id"))) {
        newest = best;
      }
      page = a.header("x-next-page").orElse("");
    }
    return newest;
  }

  @Override
  public PostOutcome post(CommitRef commit, CommitStatus status) throws ForgeException {
    String context = Limits.context(status);
    Optional<Map<String, Object>> now = latest(commit, context);
    if (now.isPresent()
        && rank(wireState(status.state())) <= rank(Json.string(now.get(), "status"))) {
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
    // The job to move forward lives in this pipeline; without the id GitLab picks the newest
    // pipeline.
    now.map(s -> number(s, "pipeline_id"))
        .filter(id -> id > 0)
        .ifPresent(id -> body.put("pipeline_id", id));
    URI uri = ApiPath.of(api, "/projects", Map.of(), commit.project(), "statuses", commit.sha());
    try {
      http.send(kind(), gate, new HttpCall("POST", uri, headers(), Json.write(body)));
    } catch (ForgeException e) {
      if (e.kind() == ForgeException.Kind.REJECTED && e.httpStatus() == 409) {
        throw new ForgeException(
            ForgeException.Kind.UNAVAILABLE,
            409,
            e.getMessage() + " (GitLab's lock on this commit's statuses: tried again shortly)",
            null,
            true);
      }
      throw e;
    }
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

  private static long number(Map<String, Object> status, String field) {
    Object v = status.get(field);
    return v instanceof Number n ? n.longValue() : 0L;
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
