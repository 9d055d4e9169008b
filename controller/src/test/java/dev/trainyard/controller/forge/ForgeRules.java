package dev.trainyard.controller.forge;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.sun.net.httpserver.Headers;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
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
 *       255); 1,000 statuses per SHA and context (case-insensitive), then 422.
 *   <li>GitLab (docs.gitlab.com api/commits): {@code PRIVATE-TOKEN}; state
 *       (pending|running|success|failed|canceled|skipped), ref, name or context, target_url (≤
 *       255), description (≤ 255), coverage, pipeline_id; 400 "Cannot transition status via :EVENT
 *       from :STATE" for a repeat or a move back; a post after a terminal status retires the old
 *       one.
 *   <li>Gitea/Forgejo (docs.gitea.com api): {@code Authorization: token T}; state
 *       (pending|success|error|failure|warning|skipped), target_url, description, context.
 * </ul>
 *
 * Unknown body fields are refused (stricter than the forges, which ignore them, so a misspelt field
 * cannot pass unnoticed); SHAs must be 40 hex characters.
 */
final class ForgeRules {

  record Answer(String forge, int status, String body) {}

  private record Stored(
      long id, String state, String description, String targetUrl, String context) {}

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
  private final List<FakeForge.Accepted> accepted = new ArrayList<>();
  private final List<java.time.Instant> acceptedAt = new ArrayList<>();
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
          ? combined("github", m.group(1) + "/" + m.group(2), m.group(3), "state")
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
          ? combined("gitea", m.group(1) + "/" + m.group(2), m.group(3), "status")
          : new Answer("gitea", 401, "{\"message\":\"token is required\"}");
    }
    return new Answer("none", 404, "{\"message\":\"Not Found\"}");
  }

  synchronized List<FakeForge.Accepted> accepted() {
    return List.copyOf(accepted);
  }

  synchronized List<java.time.Instant> acceptedAt() {
    return List.copyOf(acceptedAt);
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
    List<Stored> h = history("gitlab", project, sha, name);
    String state = str(b, "state", "");
    boolean retire = false;
    if (!h.isEmpty()) {
      String now = h.get(h.size() - 1).state();
      if (GitLabForge.rank(now) == 2) {
        retire = true;
      } else if (GitLabForge.rank(state) <= GitLabForge.rank(now)) {
        return new Answer(
            "gitlab",
            400,
            "{\"message\":\"Cannot transition status via :"
                + GITLAB_EVENTS.get(state)
                + " from :"
                + now
                + "\"}");
      }
    }
    Stored s = record("gitlab", project, sha, name, b, retire);
    return new Answer("gitlab", 201, "{\"id\":" + s.id() + ",\"status\":" + quote(s.state()) + "}");
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
    List<Map<String, Object>> out = new ArrayList<>();
    String prefix = key("gitlab", project, sha, "");
    store.forEach(
        (k, list) -> {
          if (k.startsWith(prefix) && !list.isEmpty()) {
            Stored s = list.get(list.size() - 1);
            if (!query.containsKey("name") || query.get("name").equals(s.context())) {
              out.add(gitlabJson(s, sha));
            }
          }
        });
    return new Answer("gitlab", 200, write(out));
  }

  private Answer combined(String forge, String project, String sha, String stateKey) {
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
                statuses)));
  }

  private static Map<String, Object> gitlabJson(Stored s, String sha) {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("id", s.id());
    j.put("sha", sha);
    j.put("status", s.state());
    j.put("name", s.context());
    j.put("description", s.description());
    j.put("target_url", s.targetUrl().isEmpty() ? null : s.targetUrl());
    return j;
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
    acceptedAt.add(java.time.Instant.now());
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
