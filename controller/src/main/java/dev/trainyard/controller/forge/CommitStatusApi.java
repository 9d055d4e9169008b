package dev.trainyard.controller.forge;

import java.net.URI;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The commit status API GitHub and Gitea/Forgejo share (Gitea copied GitHub's): {@code POST
 * <api>/repos/{owner}/{repo}/statuses/{sha}} with {@code state, context, description, target_url},
 * and {@code GET <api>/repos/{owner}/{repo}/commits/{ref}/status}, the combined status, whose
 * {@code statuses} hold the newest status per context, one page at a time. What differs is a {@link
 * Dialect}: the kind's name, the description limit, the state words, the field a read status
 * carries its state in, how contexts compare, the auth header and the page size parameter. Every
 * post adds a row on both forges, which is why the controller posts only changes. Facts:
 * shared/reference/gitops-status-secrets.md section 3, peers-forges-2026.md section 3.
 *
 * <ul>
 *   <li>GitHub (docs.github.com rest/commits/statuses): {@code Authorization: Bearer}, states
 *       pending|success|failure|error (no running: RUNNING is sent as pending, the description says
 *       so), description at most 140 characters, context at most 255, at most 1,000 statuses per
 *       SHA and context (then 422); contexts compare case-insensitively. The combined status
 *       "paginates if there are over 100 contexts" ({@code per_page} at most 100, a {@code Link}
 *       header names the next page).
 *   <li>Gitea/Forgejo (docs.gitea.com api-usage; Forgejo CommitStatusState; Gitea {@code
 *       routers/api/v1/repo/status.go GetCombinedCommitStatusByRef}): {@code Authorization: token},
 *       states pending|success|error|failure|warning (RUNNING sent as pending), no documented
 *       description limit (255 used); a read status carries its state in {@code status}; the
 *       combined status pages with {@code page} and {@code limit} (default 30, at most 50: {@code
 *       [api] DEFAULT_PAGING_NUM, MAX_RESPONSE_ITEMS}) and counts the contexts in {@code
 *       X-Total-Count}; 502s happen (kimdre/doco-cd#1568): the transport retries them.
 * </ul>
 *
 * A read pages until the context is found or the pages end (at most {@link #MAX_PAGES}), so a
 * commit with many contexts (a sweep from one commit) still finds its run's status after a restart
 * and posts nothing twice.
 */
public final class CommitStatusApi implements Forge {

  /** The most pages one read follows: 5,000 contexts on GitHub, 2,500 on Gitea. */
  static final int MAX_PAGES = 50;

  /**
   * What one forge's flavour of the API says differently: {@code stateFields} are tried in order on
   * a read status; {@code headers} are sent with every request besides {@code Authorization:
   * <authScheme> <token>}; a read asks for pages of {@code pageSize} with query parameter {@code
   * pageParam}.
   */
  record Dialect(
      String kind,
      int descriptionLimit,
      Map<CommitState, String> states,
      List<String> stateFields,
      boolean contextIgnoresCase,
      String authScheme,
      Map<String, String> headers,
      String pageParam,
      int pageSize) {}

  /** The four words GitHub and Gitea both accept: RUNNING is pending there. */
  private static final Map<CommitState, String> STATES =
      new EnumMap<>(
          Map.of(
              CommitState.PENDING,
              "pending",
              CommitState.RUNNING,
              "pending",
              CommitState.SUCCESS,
              "success",
              CommitState.FAILURE,
              "failure",
              CommitState.ERROR,
              "error",
              CommitState.CANCELED,
              "error"));

  static final Dialect GITHUB =
      new Dialect(
          "github",
          140,
          STATES,
          List.of("state"),
          true,
          "Bearer",
          Map.of("Accept", "application/vnd.github+json", "X-GitHub-Api-Version", "2022-11-28"),
          "per_page",
          100);

  static final Dialect GITEA =
      new Dialect(
          "gitea",
          255,
          STATES,
          List.of("status", "state"),
          false,
          "token",
          Map.of("Accept", "application/json"),
          "limit",
          50);

  private final Dialect dialect;
  private final URI api;
  private final Token token;
  private final RetryingTransport http;
  private final ForgeGate gate;

  CommitStatusApi(Dialect dialect, URI api, Token token, RetryingTransport http) {
    this.dialect = dialect;
    this.api = api;
    this.token = token;
    this.http = http;
    this.gate = new ForgeGate(dialect.kind() + " at " + api.getAuthority());
  }

  /**
   * GitHub or GitHub Enterprise at {@code api}, the REST root, e.g. https://api.github.com or
   * https://ghe.example/api/v3.
   */
  public static CommitStatusApi github(URI api, Token token, RetryingTransport http) {
    return new CommitStatusApi(GITHUB, api, token, http);
  }

  /**
   * Gitea or Forgejo at {@code api}, the API root including /api/v1, e.g.
   * https://codeberg.org/api/v1.
   */
  public static CommitStatusApi gitea(URI api, Token token, RetryingTransport http) {
    return new CommitStatusApi(GITEA, api, token, http);
  }

  @Override
  public String kind() {
    return dialect.kind();
  }

  @Override
  public String wireState(CommitState state) {
    return dialect.states().get(state);
  }

  @Override
  public boolean serves(String project) {
    return ApiPath.isOwnerRepo(project);
  }

  @Override
  public Optional<PostedStatus> current(CommitRef commit, String context) throws ForgeException {
    String repo = "/repos" + ApiPath.ownerRepo(commit.project());
    int seen = 0;
    for (int page = 1; page <= MAX_PAGES; page++) {
      URI uri =
          ApiPath.of(
              api,
              repo,
              Map.of(
                  dialect.pageParam(),
                  Integer.toString(dialect.pageSize()),
                  "page",
                  Integer.toString(page)),
              "commits",
              commit.sha(),
              "status");
      HttpAnswer a = http.send(kind(), gate, new HttpCall("GET", uri, headers(), ""));
      List<Map<String, Object>> statuses =
          Json.objects(Json.object(Json.read(a.body())).get("statuses"));
      Optional<Map<String, Object>> found =
          statuses.stream()
              .filter(s -> sameContext(context, Json.string(s, "context")))
              .findFirst();
      if (found.isPresent()) {
        Map<String, Object> s = found.get();
        return Optional.of(
            new PostedStatus(
                state(s), Json.string(s, "description"), Json.string(s, "target_url")));
      }
      seen += statuses.size();
      if (!morePages(a, seen, statuses.size())) {
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  /**
   * Whether a page follows: GitHub's {@code Link} header names it ({@code rel="next"}); else
   * Gitea's {@code X-Total-Count} says more contexts exist than were read; else a full page may
   * have a successor.
   */
  private boolean morePages(HttpAnswer a, int seen, int onPage) {
    Optional<String> link = a.header("link");
    if (link.isPresent()) {
      return link.get().contains("rel=\"next\"");
    }
    Optional<String> total = a.header("x-total-count");
    if (total.isPresent()) {
      try {
        return onPage > 0 && seen < Long.parseLong(total.get());
      } catch (NumberFormatException e) {
        // fall through: judge by the page itself
      }
    }
    return onPage >= dialect.pageSize();
  }

  @Override
  public PostOutcome post(CommitRef commit, CommitStatus status) throws ForgeException {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("state", wireState(status.state()));
    body.put("context", Limits.context(status));
    body.put("description", Limits.description(status, dialect.descriptionLimit()));
    // Optional on both forges: an empty link is left out rather than sent as "".
    if (!status.targetUrl().isEmpty()) {
      body.put("target_url", status.targetUrl());
    }
    URI uri =
        ApiPath.of(
            api,
            "/repos" + ApiPath.ownerRepo(commit.project()),
            Map.of(),
            "statuses",
            commit.sha());
    http.send(kind(), gate, new HttpCall("POST", uri, headers(), Json.write(body)));
    return PostOutcome.POSTED;
  }

  private boolean sameContext(String wanted, String shown) {
    return dialect.contextIgnoresCase() ? wanted.equalsIgnoreCase(shown) : wanted.equals(shown);
  }

  /** The first of the dialect's state fields the status carries. */
  private String state(Map<String, Object> status) {
    return dialect.stateFields().stream()
        .filter(status::containsKey)
        .findFirst()
        .map(f -> Json.string(status, f))
        .orElse("");
  }

  private Map<String, String> headers() {
    Map<String, String> h = new LinkedHashMap<>(dialect.headers());
    h.put("Authorization", dialect.authScheme() + " " + token.reveal());
    h.put("Content-Type", "application/json");
    return h;
  }
}
