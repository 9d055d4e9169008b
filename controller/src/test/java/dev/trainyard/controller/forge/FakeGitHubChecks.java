package dev.trainyard.controller.forge;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.Signature;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * GitHub's Checks API and GitHub App auth on 127.0.0.1, rejecting what GitHub's documented contract
 * rejects (docs.github.com rest/checks/runs, rest/apps/apps, "Authenticating as a GitHub App"):
 *
 * <ul>
 *   <li>App endpoints ({@code GET /repos/{o}/{r}/installation}, {@code POST
 *       /app/installations/{id}/access_tokens}) take only the app's JWT: RS256 signed by the app's
 *       key, {@code iss} the app id, {@code exp} at most 10 minutes after {@code iat} and not past,
 *       {@code iat} not in the future (401 otherwise). A repo the app is not installed on is 404.
 *   <li>Check-run endpoints take only an installation token this server issued and that has not
 *       expired or been revoked (401 "Bad credentials"); a personal access token ({@code ghp_…}) is
 *       403: only GitHub Apps may write check runs.
 *   <li>A check run's body: {@code name} required on create, {@code head_sha} 40 hex on create and
 *       not on update, {@code status} queued|in_progress|completed, {@code conclusion} one of the
 *       documented values except {@code stale} (which only GitHub sets), a conclusion forces {@code
 *       completed} and {@code completed} needs a conclusion, {@code output} needs {@code title} and
 *       {@code summary}, summary and text at most 65,535 characters, {@code details_url} http(s),
 *       no unknown fields (422 otherwise).
 * </ul>
 */
public final class FakeGitHubChecks implements AutoCloseable {

  public static final long APP_ID = 424_242;
  public static final long INSTALLATION = 77;
  public static final String REPO = "acme/llm";

  /** A check run as the fake holds it. */
  public record CheckRun(
      long id,
      String repo,
      String sha,
      String name,
      String status,
      String conclusion,
      Map<String, Object> output,
      String detailsUrl) {}

  /** A request refused by contract: status and message. */
  public record Rejected(String method, String path, int status, String message) {}

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> CONCLUSIONS =
      Set.of(
          "action_required", "cancelled", "failure", "neutral", "success", "skipped", "timed_out");
  private static final Set<String> FIELDS =
      Set.of(
          "name",
          "head_sha",
          "details_url",
          "external_id",
          "status",
          "started_at",
          "conclusion",
          "completed_at",
          "output",
          "actions");
  private static final Pattern RUNS_OF_COMMIT =
      Pattern.compile("/repos/([^/]+/[^/]+)/commits/([^/]+)/check-runs");
  private static final Pattern CREATE = Pattern.compile("/repos/([^/]+/[^/]+)/check-runs");
  private static final Pattern UPDATE = Pattern.compile("/repos/([^/]+/[^/]+)/check-runs/(\\d+)");
  private static final Pattern INSTALLATION_OF =
      Pattern.compile("/repos/([^/]+/[^/]+)/installation");
  private static final Pattern ACCESS_TOKENS =
      Pattern.compile("/app/installations/(\\d+)/access_tokens");

  private final HttpServer server;
  private final PublicKey appKey;
  private final Supplier<Instant> now;
  private final Map<String, Instant> tokens = new HashMap<>();
  private final Map<Long, CheckRun> runs = new LinkedHashMap<>();
  private final List<Rejected> rejected = new ArrayList<>();
  private final List<String> calls = new ArrayList<>();
  private int issued;

  private FakeGitHubChecks(PublicKey appKey, Supplier<Instant> now) throws IOException {
    this.appKey = appKey;
    this.now = now;
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.start();
  }

  /** A fake that trusts JWTs signed by the key whose public half is {@code appKey}. */
  public static FakeGitHubChecks start(PublicKey appKey, Supplier<Instant> now) {
    try {
      return new FakeGitHubChecks(appKey, now);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public URI api() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  public synchronized List<CheckRun> runs() {
    return List.copyOf(runs.values());
  }

  public synchronized List<Rejected> rejected() {
    return List.copyOf(rejected);
  }

  /** "METHOD path" of every request, in order. */
  public synchronized List<String> calls() {
    return List.copyOf(calls);
  }

  /** Revokes every installation token issued so far (as an uninstall or a rotation would). */
  public synchronized void revokeTokens() {
    tokens.clear();
  }

  /** A 2048-bit RSA app key in PKCS#1 PEM, as GitHub hands it out, made by the real openssl. */
  public static Path appKey(Path dir) throws Exception {
    return GitHubChecksTest.openssl(dir, "app.pem", "genrsa", "-traditional");
  }

  /** The public half of the key in {@code pem}. */
  public static PublicKey publicKeyOf(Path pem) throws Exception {
    return GitHubChecksTest.publicKey(
        GitHubApp.parse(Files.readString(pem, StandardCharsets.US_ASCII)));
  }

  private synchronized void handle(HttpExchange x) throws IOException {
    try (x) {
      String path = x.getRequestURI().getRawPath();
      String method = x.getRequestMethod();
      calls.add(method + " " + path);
      String auth = x.getRequestHeaders().getFirst("Authorization");
      String bearer = auth != null && auth.startsWith("Bearer ") ? auth.substring(7) : "";
      String body = new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      Matcher m;
      if ((m = INSTALLATION_OF.matcher(path)).matches() && method.equals("GET")) {
        String jwtProblem = jwtProblem(bearer);
        if (!jwtProblem.isEmpty()) {
          refuse(x, 401, jwtProblem);
        } else if (!decode(m.group(1)).equals(REPO)) {
          refuse(x, 404, "Not Found");
        } else {
          answer(x, 200, Map.of("id", INSTALLATION, "app_id", APP_ID));
        }
      } else if ((m = ACCESS_TOKENS.matcher(path)).matches() && method.equals("POST")) {
        String jwtProblem = jwtProblem(bearer);
        if (!jwtProblem.isEmpty()) {
          refuse(x, 401, jwtProblem);
        } else if (Long.parseLong(m.group(1)) != INSTALLATION) {
          refuse(x, 404, "Not Found");
        } else {
          String token = "ghs_fakeInstallationToken" + String.format("%011d", ++issued);
          Instant expires = now.get().plusSeconds(3600);
          tokens.put(token, expires);
          answer(x, 201, Map.of("token", token, "expires_at", expires.toString()));
        }
      } else if (!tokenProblem(x, bearer).isEmpty()) {
        refuse(x, bearer.startsWith("ghp_") ? 403 : 401, tokenProblem(x, bearer));
      } else if ((m = RUNS_OF_COMMIT.matcher(path)).matches() && method.equals("GET")) {
        String repo = decode(m.group(1));
        String sha = m.group(2);
        String name = query(x.getRequestURI(), "check_name");
        List<Map<String, Object>> found = new ArrayList<>();
        for (CheckRun r : runs.values()) {
          if (r.repo().equals(repo) && r.sha().equals(sha) && r.name().equals(name)) {
            found.add(view(r));
          }
        }
        answer(x, 200, Map.of("total_count", found.size(), "check_runs", found));
      } else if ((m = UPDATE.matcher(path)).matches() && method.equals("PATCH")) {
        CheckRun old = runs.get(Long.parseLong(m.group(2)));
        if (old == null || !old.repo().equals(decode(m.group(1)))) {
          refuse(x, 404, "Not Found");
          return;
        }
        Map<String, Object> b = parse(body);
        String problem = bodyProblem(b, false);
        if (!problem.isEmpty()) {
          refuse(x, 422, problem);
          return;
        }
        CheckRun updated = apply(old, b);
        runs.put(updated.id(), updated);
        answer(x, 200, view(updated));
      } else if ((m = CREATE.matcher(path)).matches() && method.equals("POST")) {
        Map<String, Object> b = parse(body);
        String problem = bodyProblem(b, true);
        if (!problem.isEmpty()) {
          refuse(x, 422, problem);
          return;
        }
        long id = 9_000_000L + runs.size() + 1;
        CheckRun created =
            apply(
                new CheckRun(
                    id,
                    decode(m.group(1)),
                    (String) b.get("head_sha"),
                    (String) b.get("name"),
                    "queued",
                    null,
                    Map.of(),
                    ""),
                b);
        runs.put(id, created);
        answer(x, 201, view(created));
      } else {
        refuse(x, 404, "Not Found");
      }
    }
  }

  private static CheckRun apply(CheckRun r, Map<String, Object> b) {
    String conclusion = (String) b.getOrDefault("conclusion", r.conclusion());
    String status =
        conclusion != null ? "completed" : (String) b.getOrDefault("status", r.status());
    @SuppressWarnings("unchecked")
    Map<String, Object> output = (Map<String, Object>) b.getOrDefault("output", r.output());
    return new CheckRun(
        r.id(),
        r.repo(),
        r.sha(),
        (String) b.getOrDefault("name", r.name()),
        status,
        conclusion,
        output,
        (String) b.getOrDefault("details_url", r.detailsUrl()));
  }

  private static Map<String, Object> view(CheckRun r) {
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("id", r.id());
    v.put("name", r.name());
    v.put("head_sha", r.sha());
    v.put("status", r.status());
    v.put("conclusion", r.conclusion());
    v.put("details_url", r.detailsUrl());
    v.put("output", r.output());
    return v;
  }

  private static String bodyProblem(Map<String, Object> b, boolean create) {
    for (String k : b.keySet()) {
      if (!FIELDS.contains(k)) {
        return "unknown field " + k;
      }
    }
    if (create && !(b.get("name") instanceof String n && !n.isEmpty())) {
      return "name is required";
    }
    if (create && !(b.get("head_sha") instanceof String s && s.matches("[0-9a-f]{40}"))) {
      return "head_sha must be a commit SHA";
    }
    if (!create && b.containsKey("head_sha")) {
      return "head_sha cannot be changed";
    }
    Object status = b.get("status");
    if (status != null && !Set.of("queued", "in_progress", "completed").contains(status)) {
      return "status is not included in the list";
    }
    Object conclusion = b.get("conclusion");
    if (conclusion != null && !CONCLUSIONS.contains(conclusion)) {
      return "conclusion is not included in the list";
    }
    if ("completed".equals(status) && conclusion == null) {
      return "conclusion must be given when status is completed";
    }
    if (b.get("details_url") instanceof String u && !u.matches("https?://.+")) {
      return "details_url must be an http(s) URL";
    }
    if (b.containsKey("output")) {
      if (!(b.get("output") instanceof Map<?, ?> o)
          || !(o.get("title") instanceof String)
          || !(o.get("summary") instanceof String)) {
        return "output needs title and summary";
      }
      for (String k : List.of("summary", "text")) {
        if (o.get(k) instanceof String t && t.length() > 65_535) {
          return "output." + k + " is too long (maximum is 65535 characters)";
        }
      }
    }
    return "";
  }

  /** Why {@code jwt} does not authenticate the app ("" when it does). */
  private String jwtProblem(String jwt) {
    String[] parts = jwt.split("\\.");
    if (parts.length != 3) {
      return "A JSON web token could not be decoded";
    }
    try {
      Map<String, Object> header = parse(new String(Base64.getUrlDecoder().decode(parts[0])));
      if (!"RS256".equals(header.get("alg"))) {
        return "'alg' must be RS256";
      }
      Signature rsa = Signature.getInstance("SHA256withRSA");
      rsa.initVerify(appKey);
      rsa.update((parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII));
      if (!rsa.verify(Base64.getUrlDecoder().decode(parts[2]))) {
        return "A JSON web token could not be decoded";
      }
      Map<String, Object> claims = parse(new String(Base64.getUrlDecoder().decode(parts[1])));
      long iat = ((Number) claims.get("iat")).longValue();
      long exp = ((Number) claims.get("exp")).longValue();
      long t = now.get().getEpochSecond();
      if (!String.valueOf(APP_ID).equals(String.valueOf(claims.get("iss")))) {
        return "'Issuer' claim ('iss') must be an Integer";
      }
      if (exp - iat > 600 || iat > t + 60) {
        return "'Expiration time' claim ('exp') is too far in the future";
      }
      if (exp <= t) {
        return "'Expiration time' claim ('exp') must be a numeric value representing the future";
      }
      return "";
    } catch (RuntimeException | GeneralSecurityException e) {
      return "A JSON web token could not be decoded";
    }
  }

  private String tokenProblem(HttpExchange x, String bearer) {
    if (bearer.startsWith("ghp_") || bearer.startsWith("github_pat_")) {
      return "You must authenticate via a GitHub App.";
    }
    Instant expires = tokens.get(bearer);
    return expires == null || !now.get().isBefore(expires) ? "Bad credentials" : "";
  }

  private static String query(URI uri, String name) {
    for (String kv : uri.getRawQuery() == null ? new String[0] : uri.getRawQuery().split("&")) {
      int eq = kv.indexOf('=');
      if (eq > 0 && kv.substring(0, eq).equals(name)) {
        return decode(kv.substring(eq + 1));
      }
    }
    return "";
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> parse(String body) {
    try {
      return JSON.readValue(body, Map.class);
    } catch (IOException e) {
      return Map.of("__unparseable__", body);
    }
  }

  private void refuse(HttpExchange x, int status, String message) throws IOException {
    rejected.add(new Rejected(x.getRequestMethod(), x.getRequestURI().getPath(), status, message));
    answer(x, status, Map.of("message", message));
  }

  private static void answer(HttpExchange x, int status, Object body) throws IOException {
    byte[] bytes = JSON.writeValueAsBytes(body);
    x.getResponseHeaders().add("Content-Type", "application/json");
    x.sendResponseHeaders(status, bytes.length);
    x.getResponseBody().write(bytes);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
