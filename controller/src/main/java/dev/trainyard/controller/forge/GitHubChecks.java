package dev.trainyard.controller.forge;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A run's state as a GitHub check run instead of a commit status (platform.yaml {@code
 * status.forges[].app}): a real {@code in_progress}, the conclusions {@code cancelled} and {@code
 * timed_out}, and room for what 140 characters cut — the failing node, its exit code and the last
 * lines of its log ({@link CommitStatus#details()}) in the check's output. Facts: docs.github.com
 * rest/checks/runs, rest/apps/apps; shared/reference/gitops-status-secrets.md section 3.
 *
 * <ul>
 *   <li>Auth: check runs can be written only by a GitHub App. The app's JWT ({@link GitHubApp})
 *       finds the repo's installation ({@code GET /repos/{owner}/{repo}/installation}) and buys an
 *       installation access token ({@code POST /app/installations/{id}/access_tokens}, valid one
 *       hour: used until 5 minutes before its {@code expires_at}; a 401 drops it).
 *   <li>Read: {@code GET /repos/{o}/{r}/commits/{sha}/check-runs?check_name=&filter=latest}, the
 *       newest check run of that name; its state is its {@code conclusion} once {@code completed},
 *       else its {@code status}.
 *   <li>Write: the first post creates the check run ({@code POST /repos/{o}/{r}/check-runs} with
 *       {@code name, head_sha}); later ones update it by id ({@code PATCH …/check-runs/{id}}), so a
 *       run is one check, not one per state. Setting a conclusion forces {@code completed}; output
 *       {@code summary} and {@code text} hold at most 65,535 characters each. GitHub keeps the
 *       newest 1,000 check runs of one name per suite and deletes older ones, rather than refusing
 *       as statuses do at 1,000 per SHA and context.
 *   <li>States: PENDING {@code queued}, RUNNING {@code in_progress}, SUCCESS {@code success}
 *       ({@code neutral} when {@link CommitStatus#questioned}: it succeeded but did not seem to
 *       train; docs.github.com "REST API endpoints for check runs", conclusion values), FAILURE
 *       {@code failure} ({@code timed_out} when the run's timeout ended it), ERROR {@code failure}
 *       (the title says "platform error"), CANCELED {@code cancelled}.
 * </ul>
 */
public final class GitHubChecks implements Forge {

  /** GitHub's limit for a check run's output summary and text, in characters. */
  static final int OUTPUT = 65_535;

  /** The most check-run ids, installations and tokens kept (bounded: repos come from JobSets). */
  static final int MAX_CACHED = 10_000;

  /** An installation token is replaced this long before GitHub says it expires. */
  static final Duration RENEW_BEFORE = Duration.ofMinutes(5);

  private static final Map<CommitState, String> STATES =
      new EnumMap<>(
          Map.of(
              CommitState.PENDING, "queued",
              CommitState.RUNNING, "in_progress",
              CommitState.SUCCESS, "success",
              CommitState.FAILURE, "failure",
              CommitState.ERROR, "failure",
              CommitState.CANCELED, "cancelled"));

  private record InstallationToken(String token, Instant renewAt) {}

  private final URI api;
  private final GitHubApp app;
  private final RetryingTransport http;
  private final Clock clock;
  private final ForgeGate gate;
  private final Map<String, Long> installations = bounded();
  private final Map<Long, InstallationToken> tokens = bounded();
  private final Map<List<String>, Long> checkRuns = bounded();

  /**
   * @param api the REST root, e.g. https://api.github.com or https://ghe.example/api/v3
   */
  public GitHubChecks(URI api, GitHubApp app, RetryingTransport http, Clock clock) {
    this.api = api;
    this.app = app;
    this.http = http;
    this.clock = clock;
    this.gate = new ForgeGate("github checks at " + api.getAuthority());
  }

  @Override
  public String kind() {
    return "github";
  }

  @Override
  public boolean detailed() {
    return true;
  }

  @Override
  public String wireState(CommitState state) {
    return STATES.get(state);
  }

  @Override
  public String wireState(CommitStatus status) {
    if (status.state() == CommitState.SUCCESS && status.questioned()) {
      return "neutral";
    }
    return status.state() == CommitState.FAILURE && status.timedOut()
        ? "timed_out"
        : wireState(status.state());
  }

  @Override
  public boolean serves(String project) {
    return ApiPath.isOwnerRepo(project);
  }

  @Override
  public synchronized Optional<PostedStatus> current(CommitRef commit, String context)
      throws ForgeException {
    String repo = ApiPath.ownerRepo(commit.project());
    URI uri =
        ApiPath.of(
            api,
            "/repos" + repo,
            Map.of("check_name", context, "filter", "latest", "per_page", "100"),
            "commits",
            commit.sha(),
            "check-runs");
    HttpAnswer a = send(repo, "GET", uri, "");
    List<Map<String, Object>> runs =
        Json.objects(Json.object(Json.read(a.body())).get("check_runs"));
    Optional<Map<String, Object>> newest =
        runs.stream()
            .filter(r -> context.equals(Json.string(r, "name")))
            .max(
                Comparator.comparingLong(
                    r -> r.get("id") instanceof Number n ? n.longValue() : 0L));
    if (newest.isEmpty()) {
      return Optional.empty();
    }
    Map<String, Object> run = newest.get();
    if (run.get("id") instanceof Number id) {
      checkRuns.put(key(commit, context), id.longValue());
    }
    String status = Json.string(run, "status");
    String state = "completed".equals(status) ? Json.string(run, "conclusion") : status;
    String title = Json.string(Json.object(run.get("output")), "title");
    return Optional.of(new PostedStatus(state, title, Json.string(run, "details_url")));
  }

  @Override
  public synchronized PostOutcome post(CommitRef commit, CommitStatus status)
      throws ForgeException {
    String repo = ApiPath.ownerRepo(commit.project());
    String context = Limits.context(status);
    String state = wireState(status);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("name", context);
    if (status.state().terminal()) {
      body.put("status", "completed");
      body.put("conclusion", state);
      body.put("completed_at", clock.instant().toString());
    } else {
      body.put("status", state);
    }
    if (!status.targetUrl().isEmpty()) {
      body.put("details_url", status.targetUrl());
    }
    body.put("output", output(status));
    Long id = checkRuns.get(key(commit, context));
    if (id == null) {
      body.put("head_sha", commit.sha());
      URI uri = ApiPath.of(api, "/repos" + repo, Map.of(), "check-runs");
      HttpAnswer a = send(repo, "POST", uri, Json.write(body));
      if (Json.object(Json.read(a.body())).get("id") instanceof Number created) {
        checkRuns.put(key(commit, context), created.longValue());
      }
    } else {
      URI uri = ApiPath.of(api, "/repos" + repo, Map.of(), "check-runs", Long.toString(id));
      send(repo, "PATCH", uri, Json.write(body));
    }
    return PostOutcome.POSTED;
  }

  /**
   * The check's output: the description as title, a summary that says it again with the state, and
   * the details (the failure in full, the log's last lines) as text, each within {@link #OUTPUT}.
   */
  static Map<String, Object> output(CommitStatus status) {
    Map<String, Object> output = new LinkedHashMap<>();
    String title = status.description().isEmpty() ? status.context() : status.description();
    output.put("title", title);
    output.put("summary", fit(title));
    if (!status.details().isEmpty()) {
      output.put("text", fit(status.details()));
    }
    return output;
  }

  /** {@code text} within {@link #OUTPUT} characters, a cut marked at its end. */
  static String fit(String text) {
    if (text.length() <= OUTPUT) {
      return text;
    }
    String mark = "\n… (cut at " + OUTPUT + " characters)";
    int end = OUTPUT - mark.length();
    if (Character.isHighSurrogate(text.charAt(end - 1))) {
      end--;
    }
    return text.substring(0, end) + mark;
  }

  /** A map that drops its least recently used entry past {@link #MAX_CACHED}. */
  static <K, V> Map<K, V> bounded() {
    return new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
        return size() > MAX_CACHED;
      }
    };
  }

  private static List<String> key(CommitRef commit, String context) {
    return List.of(commit.project(), commit.sha(), context);
  }

  /** {@code method uri} with the repo's installation token; one retry with a fresh one on 401. */
  private HttpAnswer send(String repo, String method, URI uri, String body) throws ForgeException {
    long installation = installation(repo);
    try {
      return http.send(kind(), gate, call(method, uri, installationToken(installation), body));
    } catch (ForgeException e) {
      if (e.httpStatus() != 401) {
        throw e;
      }
      tokens.remove(installation);
      return http.send(kind(), gate, call(method, uri, installationToken(installation), body));
    }
  }

  /** The app's installation on {@code repo} ("/owner/repo"), found once. */
  private long installation(String repo) throws ForgeException {
    Long known = installations.get(repo);
    if (known != null) {
      return known;
    }
    URI uri = ApiPath.of(api, "/repos" + repo, Map.of(), "installation");
    HttpAnswer a = appCall("GET", uri);
    if (!(Json.object(Json.read(a.body())).get("id") instanceof Number id)) {
      throw new ForgeException(
          ForgeException.Kind.UNAVAILABLE, a.status(), "GET " + uri.getPath() + ": no id");
    }
    installations.put(repo, id.longValue());
    return id.longValue();
  }

  private String installationToken(long installation) throws ForgeException {
    InstallationToken t = tokens.get(installation);
    Instant now = clock.instant();
    if (t != null && now.isBefore(t.renewAt())) {
      return t.token();
    }
    URI uri =
        ApiPath.of(
            api,
            "",
            Map.of(),
            "app",
            "installations",
            Long.toString(installation),
            "access_tokens");
    Map<String, Object> answer = Json.object(Json.read(appCall("POST", uri).body()));
    String token = Json.string(answer, "token");
    if (token.isEmpty()) {
      throw new ForgeException(
          ForgeException.Kind.UNAVAILABLE, 0, "POST " + uri.getPath() + ": no token");
    }
    Instant expires;
    try {
      expires = Instant.parse(Json.string(answer, "expires_at"));
    } catch (DateTimeParseException e) {
      expires = now.plus(Duration.ofHours(1));
    }
    tokens.put(installation, new InstallationToken(token, expires.minus(RENEW_BEFORE)));
    return token;
  }

  /** A call authenticated as the app itself (its JWT), not as an installation. */
  private HttpAnswer appCall(String method, URI uri) throws ForgeException {
    return http.send(kind(), gate, call(method, uri, app.jwt(clock.instant()), ""));
  }

  private static HttpCall call(String method, URI uri, String bearer, String body) {
    Map<String, String> h = new LinkedHashMap<>();
    h.put("Accept", "application/vnd.github+json");
    h.put("X-GitHub-Api-Version", "2022-11-28");
    h.put("Authorization", "Bearer " + bearer);
    h.put("Content-Type", "application/json");
    return new HttpCall(method, uri, h, body);
  }

  @Override
  public String toString() {
    return "GitHubChecks[" + api + ", " + app + "]";
  }
}
