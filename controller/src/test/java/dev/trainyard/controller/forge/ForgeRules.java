package dev.trainyard.controller.forge;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.sun.net.httpserver.Headers;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The documented contracts the fake forge enforces, and its store of statuses.
 *
 * <ul>
 *   <li>GitHub (docs.github.com rest/commits/statuses): {@code Authorization: Bearer|token T}; body
 *       fields state (pending|success|failure|error), target_url, description (≤ 140), context (≤
 *       255); 1,000 statuses per SHA and context (case-insensitive), then 422. The combined status
 *       pages: {@code per_page} (default 30, at most 100) and {@code page}, with a {@code Link}
 *       header naming the next page.
 *   <li>GitLab (docs.gitlab.com api/commits; gitlabhq {@code Ci::CreateCommitStatusService}):
 *       {@code PRIVATE-TOKEN}; state (pending|running|success|failed|canceled|skipped), ref, name
 *       or context, target_url (≤ 255), description (≤ 255), coverage, pipeline_id. A post joins
 *       the pipeline {@code pipeline_id} names (404 "Pipeline for pipeline_id, sha and ref Not
 *       Found" if the SHA has none of that id), else the SHA's newest pipeline, else a new external
 *       one; in it, the pending or running job of that name moves on (400 "Cannot transition status
 *       via :EVENT from :STATE" for a repeat or a move back), else a new job starts and retires a
 *       terminal one. The list holds the newest job per pipeline and name with its {@code
 *       pipeline_id}, {@code per_page} (default 20, at most 100) per page, {@code X-Next-Page}
 *       naming the next.
 *   <li>Gitea/Forgejo (docs.gitea.com api; {@code routers/api/v1/repo/status.go}): {@code
 *       Authorization: token T}; state (pending|success|error|failure|warning|skipped), target_url,
 *       description, context. The combined status pages: {@code limit} (default 30, at most 50) and
 *       {@code page}, {@code X-Total-Count} counting the contexts.
 * </ul>
 *
 * Unknown body fields are refused (stricter than the forges, which ignore them, so a misspelt field
 * cannot pass unnoticed); SHAs must be 40 hex characters.
 */
public final class ForgeRules {

  record Answer(String forge, int status, String body, Map<String, String> headers) {
    Answer(String forge, int status, String body) {
      this(forge, status, body, Map.of());
    }
  }

  private record Stored(
      long id, String state, String description, String targetUrl, String context) {}

  /** A GitLab pipeline of one SHA: id, ref, source ("external" when a status post created it). */
  record Pipeline(long id, String ref, String source) {}

  /** A GitLab job as the list shows it; {@code retried}: a later job of that name replaced it. */
  public record Job(
      long id,
      long pipelineId,
      String name,
      String status,
      String description,
      String targetUrl,
      boolean retried) {}

  static final Pattern SHA = Pattern.compile("[0-9a-f]{40}");
  private static final Pattern GITHUB_POST =
      Pattern.compile("/github/repos/([^/]+)/([^/]+)/statuses/([^/]+)");
  private static final Pattern GITHUB_GET =
      Pattern.compile("/github/repos/([^/]+)/([^/]+)/commits/([^/]+)/status");
  private static final Pattern GITLAB_POST =
      Pattern.compile("/gitlab/api/v4/projects/([^/]+)/statuses/([^/]+)");
  private static final Pattern GITLAB_GET =
      Pattern.compile("/gitlab/api/v4/projects/([^/]+)/repository/commits/([^/]+)/statuses");
  private static final Pattern GITEA_POST =
      Pattern.compile("/gitea/api/v1/repos/([^/]+)/([^/]+)/statuses/([^/]+)");
  private static final Pattern GITEA_GET =
      Pattern.compile("/gitea/api/v1/repos/([^/]+)/([^/]+)/commits/([^/]+)/status");
  private static final Set<String> GITHUB_STATES = Set.of("pending", "success", "failure", "error");
  private static final Set<String> GITLAB_STATES =
      Set.of("pending", "running", "success", "failed", "canceled", "skipped");
  private static final Set<String> GITEA_STATES =
      Set.of("pending", "success", "error", "failure", "warning", "skipped");
  private static final Map<String, String> GITLAB_EVENTS =
      Map.of(
          "pending",
          "enqueue",
          "running",
          "run",
          "success",
          "success",
          "failed",
          "drop",
          "canceled",
          "cancel",
          "skipped",
          "skip");
  static final int GITHUB_CAP = 1000;

  private final Map<String, List<Stored>> store = new LinkedHashMap<>();

  /** GitLab pipelines by project|sha, oldest first. */
  private final Map<String, List<Pipeline>> pipelines = new LinkedHashMap<>();

  /** GitLab jobs by project|sha, in creation order. */
  private final Map<String, List<Job>> jobs = new LinkedHashMap<>();

  private final List<FakeForge.Accepted> accepted = new ArrayList<>();
  private final List<Instant> acceptedAt = new ArrayList<>();
  private long nextId = 1;

  synchronized Answer handle(String method, URI uri, Headers headers, String body) {
    String path = uri.getRawPath();
    Matcher m;
    if ((m = GITHUB_POST.matcher(path)).matches() && method.equals("POST")) {
      return githubPost(headers, m.group(1) + "/" + m.group(2), m.group(3), body);
    }
    if ((m = GITHUB_GET.matcher(path)).matches() && method.equals("GET")) {
      return auth(
              "github",
              headers,
              "Authorization",
              List.of("Bearer ", "token "),
              FakeForge.GITHUB_TOKEN)
          ? combined(
              "github",
              m.group(1) + "/" + m.group(2),
              m.group(3),
              "state",
              page(query(uri), "per_page", 30, 100),
              uri)
          : new Answer("github", 401, "{\"message\":\"Bad credentials\"}");
    }
    if ((m = GITLAB_POST.matcher(path)).matches() && method.equals("POST")) {
      return gitlabPost(headers, decode(m.group(1)), m.group(2), body);
    }
    if ((m = GITLAB_GET.matcher(path)).matches() && method.equals("GET")) {
      return gitlabList(headers, decode(m.group(1)), m.group(2), query(uri));
    }
    if ((m = GITEA_POST.matcher(path)).matches() && method.equals("POST")) {
      return giteaPost(headers, m.group(1) + "/" + m.group(2), m.group(3), body);
    }
    if ((m = GITEA_GET.matcher(path)).matches() && method.equals("GET")) {
      return auth(
              "gitea",
              headers,
              "Authorization",
              List.of("token ", "Bearer "),
              FakeForge.GITEA_TOKEN)
          ? combined(
              "gitea",
              m.group(1) + "/" + m.group(2),
              m.group(3),
              "status",
              page(query(uri), "limit", 30, 50),
              uri)
          : new Answer("gitea", 401, "{\"message\":\"token is required\"}");
    }
    return new Answer("none", 404, "{\"message\":\"Not Found\"}");
  }

  synchronized List<FakeForge.Accepted> accepted() {
    return List.copyOf(accepted);
  }

  synchronized List<Instant> acceptedAt() {
    return List.copyOf(acceptedAt);
  }

  /**
   * Stores one status each for {@code count} other contexts ({@code other-0}...) of a SHA on {@code
   * forge}.
   */
  synchronized void seedContexts(String forge, String project, String sha, int count) {
    for (int i = 0; i < count; i++) {
      String context = "other-" + i;
      store
          .computeIfAbsent(key(forge, project, sha, context), k -> new ArrayList<>())
          .add(new Stored(nextId++, "success", "seeded", "", context));
    }
  }

  synchronized void seedGitHub(
      String project, String sha, String context, String state, int count) {
    List<Stored> list =
        store.computeIfAbsent(key("github", project, sha, context), k -> new ArrayList<>());
    for (int i = 0; i < count; i++) {
      list.add(new Stored(nextId++, state, "seeded", "", context));
    }
  }

  private Answer githubPost(Headers headers, String project, String sha, String body) {
    if (!auth(
        "github", headers, "Authorization", List.of("Bearer ", "token "), FakeForge.GITHUB_TOKEN)) {
      return new Answer("github", 401, "{\"message\":\"Bad credentials\"}");
    }
    Object parsed = parse(body);
    String problem =
        fields(parsed, Set.of("state", "target_url", "description", "context"), GITHUB_STATES);
    Map<String, Object> b = asMap(parsed);
    String context = str(b, "context", "default");
    if (problem == null && !SHA.matcher(sha).matches()) {
      problem = "No commit found for SHA: " + sha;
    } else if (problem == null
        && str(b, "description", "").codePointCount(0, str(b, "description", "").length()) > 140) {
      problem = "description is too long (maximum is 140 characters)";
    } else if (problem == null && context.length() > 255) {
      problem = "context is too long (maximum is 255 characters)";
    } else if (problem == null && history("github", project, sha, context).size() >= GITHUB_CAP) {
      problem = "This SHA and context has reached the maximum number of statuses.";
    }
    if (problem != null) {
      return new Answer(
          "github", 422, "{\"message\":\"Validation Failed\",\"errors\":[" + quote(problem) + "]}");
    }
    Stored s = record("github", project, sha, context, b, false);
    return new Answer("github", 201, "{\"id\":" + s.id() + ",\"state\":" + quote(s.state()) + "}");
  }

  private Answer gitlabPost(Headers headers, String project, String sha, String body) {
    if (!auth("gitlab", headers, "PRIVATE-TOKEN", List.of(""), FakeForge.GITLAB_TOKEN)) {
      return new Answer("gitlab", 401, "{\"message\":\"401 Unauthorized\"}");
    }
    Object parsed = parse(body);
    String problem =
        fields(
            parsed,
            Set.of(
                "state",
                "ref",
                "name",
                "context",
                "target_url",
                "description",
                "coverage",
                "pipeline_id"),
            GITLAB_STATES);
    Map<String, Object> b = asMap(parsed);
    String name = str(b, "name", str(b, "context", "default"));
    if (problem == null && !SHA.matcher(sha).matches()) {
      return new Answer("gitlab", 404, "{\"message\":\"404 Commit Not Found\"}");
    }
    if (problem == null
        && (str(b, "description", "").length() > 255
            || str(b, "target_url", "").length() > 255
            || name.length() > 255)) {
      problem = "is too long (maximum is 255 characters)";
    }
    if (problem != null) {
      return new Answer("gitlab", 400, "{\"message\":" + quote(problem) + "}");
    }
    String ref = str(b, "ref", "");
    Pipeline pipeline = pipelineFor(project, sha, ref, b.get("pipeline_id"));
    if (pipeline == null) {
      return new Answer(
          "gitlab", 404, "{\"message\":\"404 Pipeline for pipeline_id, sha and ref Not Found\"}");
    }
    List<Job> all = jobs.computeIfAbsent(project + "|" + sha, k -> new ArrayList<>());
    Job open = null;
    Job previous = null;
    for (Job j : all) {
      if (j.pipelineId() == pipeline.id() && j.name().equals(name) && !j.retried()) {
        previous = j;
        if (GitLabForge.rank(j.status()) < 2) {
          open = j;
        }
      }
    }
    String state = str(b, "state", "");
    if (open != null && GitLabForge.rank(state) <= GitLabForge.rank(open.status())) {
      return new Answer(
          "gitlab",
          400,
          "{\"message\":\"Cannot transition status via :"
              + GITLAB_EVENTS.get(state)
              + " from :"
              + open.status()
              + "\"}");
    }
    boolean retire = open == null && previous != null;
    Stored s = record("gitlab", project, sha, name, b, retire);
    Job job;
    if (open != null) {
      job = new Job(open.id(), pipeline.id(), name, state, s.description(), s.targetUrl(), false);
      all.set(all.indexOf(open), job);
    } else {
      if (retire) {
        Job p = previous;
        all.set(
            all.indexOf(p),
            new Job(
                p.id(),
                p.pipelineId(),
                p.name(),
                p.status(),
                p.description(),
                p.targetUrl(),
                true));
      }
      job = new Job(s.id(), pipeline.id(), name, state, s.description(), s.targetUrl(), false);
      all.add(job);
    }
    return new Answer("gitlab", 201, write(gitlabJson(job, sha, pipeline.ref())));
  }

  /**
   * The pipeline a post joins: the one {@code pipelineId} names (null when the SHA has none such),
   * else the SHA's newest (of {@code ref} when given), else a new external pipeline on {@code ref}
   * or the first branch, "main".
   */
  private Pipeline pipelineFor(String project, String sha, String ref, Object pipelineId) {
    List<Pipeline> list = pipelines.computeIfAbsent(project + "|" + sha, k -> new ArrayList<>());
    for (int i = list.size() - 1; i >= 0; i--) {
      Pipeline p = list.get(i);
      boolean refOk = ref.isEmpty() || p.ref().equals(ref);
      if (pipelineId instanceof Number n
          ? n.longValue() == p.id() && refOk
          : pipelineId == null && refOk) {
        return p;
      }
    }
    if (pipelineId != null) {
      return null;
    }
    Pipeline created = new Pipeline(nextId++, ref.isEmpty() ? "main" : ref, "external");
    list.add(created);
    return created;
  }

  /**
   * A pipeline of {@code source} (e.g. a merge request pipeline) created for the SHA; returns its
   * id.
   */
  synchronized long gitlabPipeline(String project, String sha, String ref, String source) {
    Pipeline p = new Pipeline(nextId++, ref, source);
    pipelines.computeIfAbsent(project + "|" + sha, k -> new ArrayList<>()).add(p);
    return p.id();
  }

  /** Every GitLab job of the SHA, retried ones included, in creation order. */
  synchronized List<Job> gitlabJobs(String project, String sha) {
    return List.copyOf(jobs.getOrDefault(project + "|" + sha, List.of()));
  }

  private Answer giteaPost(Headers headers, String project, String sha, String body) {
    if (!auth(
        "gitea", headers, "Authorization", List.of("token ", "Bearer "), FakeForge.GITEA_TOKEN)) {
      return new Answer("gitea", 401, "{\"message\":\"token is required\"}");
    }
    Object parsed = parse(body);
    String problem =
        fields(parsed, Set.of("state", "target_url", "description", "context"), GITEA_STATES);
    Map<String, Object> b = asMap(parsed);
    String context = str(b, "context", "default");
    if (problem == null && (!SHA.matcher(sha).matches() || context.length() > 255)) {
      problem = "invalid sha or context";
    }
    if (problem != null) {
      return new Answer("gitea", 422, "{\"message\":" + quote(problem) + "}");
    }
    Stored s = record("gitea", project, sha, context, b, false);
    return new Answer("gitea", 201, "{\"id\":" + s.id() + ",\"status\":" + quote(s.state()) + "}");
  }

  private Answer gitlabList(
      Headers headers, String project, String sha, Map<String, String> query) {
    if (!auth("gitlab", headers, "PRIVATE-TOKEN", List.of(""), FakeForge.GITLAB_TOKEN)) {
      return new Answer("gitlab", 401, "{\"message\":\"401 Unauthorized\"}");
    }
    Map<Long, String> refs = new LinkedHashMap<>();
    pipelines.getOrDefault(project + "|" + sha, List.of()).forEach(p -> refs.put(p.id(), p.ref()));
    List<Map<String, Object>> out = new ArrayList<>();
    for (Job j : jobs.getOrDefault(project + "|" + sha, List.of())) {
      if (!j.retried() && (!query.containsKey("name") || query.get("name").equals(j.name()))) {
        out.add(gitlabJson(j, sha, refs.get(j.pipelineId())));
      }
    }
    int[] page = page(query, "per_page", 20, 100);
    int from = Math.min(out.size(), (page[0] - 1) * page[1]);
    int to = Math.min(out.size(), from + page[1]);
    String next = to < out.size() ? Integer.toString(page[0] + 1) : "";
    return new Answer(
        "gitlab",
        200,
        write(out.subList(from, to)),
        Map.of(
            "X-Next-Page",
            next,
            "X-Page",
            Integer.toString(page[0]),
            "X-Per-Page",
            Integer.toString(page[1]),
            "X-Total",
            Integer.toString(out.size())));
  }

  /** The newest status per context, page {@code page[0]} of {@code page[1]} contexts. */
  private Answer combined(
      String forge, String project, String sha, String stateKey, int[] page, URI uri) {
    List<Map<String, Object>> statuses = new ArrayList<>();
    String prefix = key(forge, project, sha, "");
    store.forEach(
        (k, list) -> {
          if (k.startsWith(prefix) && !list.isEmpty()) {
            Stored s = list.get(list.size() - 1);
            Map<String, Object> j = new LinkedHashMap<>();
            j.put("id", s.id());
            j.put(stateKey, s.state());
            j.put("description", s.description());
            j.put("target_url", s.targetUrl());
            j.put("context", s.context());
            statuses.add(j);
          }
        });
    int from = Math.min(statuses.size(), (page[0] - 1) * page[1]);
    int to = Math.min(statuses.size(), from + page[1]);
    Map<String, String> headers = new LinkedHashMap<>();
    if ("github".equals(forge)) {
      if (to < statuses.size()) {
        String base =
            "http://" + uri.getAuthority() + uri.getRawPath() + "?per_page=" + page[1] + "&page=";
        headers.put(
            "Link",
            "<"
                + base
                + (page[0] + 1)
                + ">; rel=\"next\", <"
                + base
                + ((statuses.size() + page[1] - 1) / page[1])
                + ">; rel=\"last\"");
      }
    } else {
      headers.put("X-Total-Count", Integer.toString(statuses.size()));
    }
    return new Answer(
        forge,
        200,
        write(
            Map.of(
                "sha",
                sha,
                "state",
                statuses.isEmpty() ? "pending" : statuses.get(0).get(stateKey),
                "total_count",
                statuses.size(),
                "statuses",
                statuses.subList(from, to))),
        headers);
  }

  /**
   * {page, size} from {@code query}: page ≥ 1 (default 1), size from {@code param} clamped to
   * 1..max.
   */
  private static int[] page(Map<String, String> query, String param, int fallback, int max) {
    int page = Math.max(1, number(query.get("page"), 1));
    int size = number(query.get(param), fallback);
    return new int[] {page, size < 1 ? fallback : Math.min(size, max)};
  }

  private static int number(String s, int fallback) {
    try {
      return s == null ? fallback : Integer.parseInt(s);
    } catch (NumberFormatException e) {
      return fallback;
    }
  }

  private static Map<String, Object> gitlabJson(Job j, String sha, String ref) {
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("id", j.id());
    o.put("sha", sha);
    o.put("ref", ref);
    o.put("status", j.status());
    o.put("name", j.name());
    o.put("target_url", j.targetUrl().isEmpty() ? null : j.targetUrl());
    o.put("description", j.description());
    o.put("allow_failure", false);
    o.put("coverage", null);
    o.put("pipeline_id", j.pipelineId());
    return o;
  }

  private Stored record(
      String forge,
      String project,
      String sha,
      String context,
      Map<String, Object> b,
      boolean retire) {
    Stored s =
        new Stored(
            nextId++,
            str(b, "state", ""),
            str(b, "description", ""),
            str(b, "target_url", ""),
            context);
    history(forge, project, sha, context).add(s);
    acceptedAt.add(Instant.now());
    accepted.add(
        new FakeForge.Accepted(
            forge, project, sha, context, s.state(), s.description(), s.targetUrl(), retire));
    return s;
  }

  private List<Stored> history(String forge, String project, String sha, String context) {
    return store.computeIfAbsent(key(forge, project, sha, context), k -> new ArrayList<>());
  }

  /** GitHub contexts are case-insensitive; the others are compared as written. */
  private static String key(String forge, String project, String sha, String context) {
    return forge
        + "|"
        + project
        + "|"
        + sha
        + "|"
        + ("github".equals(forge) ? context.toLowerCase(Locale.ROOT) : context);
  }

  /**
   * null when {@code parsed} is an object of known string fields with a valid state; else the
   * problem.
   */
  private static String fields(Object parsed, Set<String> allowed, Set<String> states) {
    if (!(parsed instanceof Map<?, ?> map)) {
      return "Problems parsing JSON";
    }
    for (Map.Entry<?, ?> e : map.entrySet()) {
      if (!allowed.contains(e.getKey())) {
        return "unknown field " + e.getKey();
      }
      boolean numeric = e.getKey().equals("coverage") || e.getKey().equals("pipeline_id");
      if (e.getValue() != null
          && !(numeric ? e.getValue() instanceof Number : e.getValue() instanceof String)) {
        return "field " + e.getKey() + " has the wrong type";
      }
    }
    Object state = map.get("state");
    return state instanceof String s && states.contains(s)
        ? null
        : "state is not included in the list";
  }

  private static boolean auth(
      String forge, Headers h, String header, List<String> schemes, String token) {
    String v = h.getFirst(header);
    return v != null && schemes.stream().anyMatch(s -> v.equals(s + token));
  }

  private static Object parse(String body) {
    try {
      return FakeForge.JSON.readValue(body, Object.class);
    } catch (JsonProcessingException e) {
      return null;
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> asMap(Object parsed) {
    return parsed instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
  }

  private static String str(Map<String, Object> b, String key, String fallback) {
    Object v = b.get(key);
    return v == null ? fallback : v.toString();
  }

  private static Map<String, String> query(URI uri) {
    Map<String, String> q = new LinkedHashMap<>();
    if (uri.getRawQuery() != null) {
      for (String pair : uri.getRawQuery().split("&")) {
        int eq = pair.indexOf('=');
        q.put(
            decode(eq < 0 ? pair : pair.substring(0, eq)),
            eq < 0 ? "" : decode(pair.substring(eq + 1)));
      }
    }
    return q;
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  private static String quote(String s) {
    return write(s);
  }

  private static String write(Object o) {
    try {
      return FakeForge.JSON.writeValueAsString(o);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
