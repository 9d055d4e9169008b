package dev.trainyard.controller.forge;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A forge of our own on 127.0.0.1 that speaks the commit status APIs of GitHub ({@code /github}),
 * GitLab ({@code /gitlab/api/v4}) and Gitea ({@code /gitea/api/v1}) and rejects what they reject
 * (see {@link ForgeRules}): wrong path shape, wrong auth header, unknown JSON fields or wrong
 * types, unknown states, GitHub's 140-character description and 1,000 statuses per SHA and context,
 * GitLab's 255 limits and "Cannot transition status", GitLab's pipelines, and the read endpoints'
 * paging. It records every post it accepted, and can be scripted to answer the next requests with
 * the forges' documented failure shapes: 500, 502, 429 + Retry-After, 403 + rate-limit headers
 * (GitHub's primary limit), a bare 403 whose body says "secondary rate limit" (GitHub's secondary
 * limit, no header), GitLab's 409 "Another update to this commit status is in progress", a bare 403
 * (no permission), or to stall; or to answer every request with one of them ({@link #always}).
 *
 * <pre>
 * try (FakeForge forge = FakeForge.start()) {
 *     forge.script(Fault.status(502), Fault.retryAfter(1));
 *     ... client posts to forge.githubApi() ...
 *     assertEquals(1, forge.accepted().size());
 * }
 * </pre>
 */
public final class FakeForge implements AutoCloseable {

  public static final String GITHUB_TOKEN = "ghp_fakeForgeToken000000000000000000001";
  public static final String GITLAB_TOKEN = "glpat-fakeForgeToken0002";
  public static final String GITEA_TOKEN = "fakeforge0000000000000000000000000000003";

  /**
   * A post the forge accepted; {@code retiredPrevious}: GitLab marked the earlier terminal status
   * retried.
   */
  public record Accepted(
      String forge,
      String project,
      String sha,
      String context,
      String state,
      String description,
      String targetUrl,
      boolean retiredPrevious) {}

  /** A request the forge refused by contract (not a scripted fault): status and message. */
  public record Rejected(String forge, String method, String path, int status, String message) {}

  /** A scripted answer to one request. */
  public sealed interface Fault {
    record Status(int code) implements Fault {}

    record RetryAfter(int code, String seconds) implements Fault {}

    record RateLimited(int code, long resetEpochSeconds) implements Fault {}

    record Stall(Duration duration) implements Fault {}

    record Answer(int code, String body) implements Fault {}

    static Fault status(int code) {
      return new Status(code);
    }

    /** 429 with {@code Retry-After: seconds}. */
    static Fault retryAfter(int seconds) {
      return new RetryAfter(429, Integer.toString(seconds));
    }

    /**
     * 403 with {@code X-RateLimit-Remaining: 0} and {@code X-RateLimit-Reset} (GitHub's primary
     * limit).
     */
    static Fault rateLimited(long resetEpochSeconds) {
      return new RateLimited(403, resetEpochSeconds);
    }

    /** 403 with no rate-limit header: a permission error. */
    static Fault bareForbidden() {
      return new Status(403);
    }

    /**
     * GitHub's secondary rate limit as a bare 403: no Retry-After, no X-RateLimit-* header, the
     * documented message (docs.github.com "Troubleshooting the REST API": "an error message that
     * indicates that you exceeded a secondary rate limit"; the body as GitHub sends it, e.g.
     * github-changelog-generator#993).
     */
    static Fault secondaryLimit() {
      return new Answer(
          403,
          "{\"message\":\"You have exceeded a secondary rate limit. Please wait a few minutes"
              + " before you try again. If you reach out to GitHub Support for help, please include the request ID"
              + " FA2D:87B1:8879E3:1176C87:6570B7E6.\",\"documentation_url\":\"https://docs.github.com/rest/"
              + "overview/rate-limits-for-the-rest-api#about-secondary-rate-limits\"}");
    }

    /**
     * GitLab's 409 while another update holds its per-SHA lock (gitlabhq {@code
     * Ci::CreateCommitStatusService}: {@code FailedToObtainLockError} → {@code conflict!}, rendered
     * {@code {"message": ...}}).
     */
    static Fault gitlabLocked() {
      return new Answer(
          409, "{\"message\":\"Another update to this commit status is in progress\"}");
    }

    /** No answer for {@code d}, then the connection is closed. */
    static Fault stall(Duration d) {
      return new Stall(d);
    }
  }

  static final ObjectMapper JSON = new ObjectMapper();
  private final HttpServer server;
  private final ExecutorService threads = Executors.newFixedThreadPool(8);
  private final Deque<Fault> faults = new ArrayDeque<>();

  /** The answer to every request while set (after the scripted ones). */
  private Fault always;

  private final ForgeRules rules = new ForgeRules();
  private final List<Rejected> rejected = new ArrayList<>();
  private final Set<String> forbidden = new HashSet<>();
  private int requests;

  private FakeForge(HttpServer server) {
    this.server = server;
  }

  /** A forge on a free port of 127.0.0.1. */
  public static FakeForge start() {
    // The JDK server writes headers and body apart; with Nagle's algorithm each answer then waits
    // for a
    // delayed ACK (about 40 ms), which would be measured as the controller's latency.
    System.setProperty("sun.net.httpserver.nodelay", "true");
    try {
      HttpServer server =
          HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      FakeForge forge = new FakeForge(server);
      server.createContext("/", forge::handle);
      server.setExecutor(forge.threads);
      server.start();
      return forge;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the fake forge", e);
    }
  }

  public URI githubApi() {
    return base("/github");
  }

  public URI gitlabApi() {
    return base("/gitlab/api/v4");
  }

  public URI giteaApi() {
    return base("/gitea/api/v1");
  }

  /** Answers the next requests, one fault each, in order; then the forge behaves again. */
  public synchronized void script(Fault... next) {
    faults.addAll(List.of(next));
  }

  /**
   * Answers every request with {@code fault} until called again with null (e.g. a 900-s rate
   * limit).
   */
  public synchronized void always(Fault fault) {
    always = fault;
  }

  /**
   * Stores one status each for {@code count} other contexts of the SHA on "github" or "gitea" (for
   * paging).
   */
  public void seedContexts(String forge, String project, String sha, int count) {
    rules.seedContexts(forge, project, sha, count);
  }

  /**
   * A pipeline of {@code source} (e.g. "merge_request_event") for the SHA on GitLab, as if CI
   * started one.
   */
  public long gitlabPipeline(String project, String sha, String ref, String source) {
    return rules.gitlabPipeline(project, sha, ref, source);
  }

  /** Every GitLab job of the SHA, retried ones included, in creation order. */
  public List<ForgeRules.Job> gitlabJobs(String project, String sha) {
    return rules.gitlabJobs(project, sha);
  }

  /**
   * Answers every POST for {@code project} (as it appears in the path, e.g. {@code acme/llm}) with
   * a bare 403, as GitHub does for a token without push access ("Resource not accessible by
   * integration").
   */
  public synchronized void forbid(String project) {
    forbidden.add(project);
  }

  /** Every accepted post, in order. */
  public List<Accepted> accepted() {
    return rules.accepted();
  }

  /** When each accepted post arrived (wall clock), index for index with {@link #accepted()}. */
  public List<Instant> acceptedTimes() {
    return rules.acceptedAt();
  }

  /** Every request refused by contract, in order. */
  public synchronized List<Rejected> rejected() {
    return List.copyOf(rejected);
  }

  /** Requests received so far, faults included. */
  public synchronized int requests() {
    return requests;
  }

  /**
   * Stores {@code count} GitHub statuses for one SHA and context as if posted before (the 1,000
   * cap).
   */
  public void seedGitHub(String project, String sha, String context, String state, int count) {
    rules.seedGitHub(project, sha, context, state, count);
  }

  private URI base(String prefix) {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + prefix);
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      Fault fault = nextFault();
      if (fault != null) {
        answerFault(exchange, fault);
        return;
      }
      String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      if (forbidden(exchange)) {
        send(exchange, 403, "{\"message\":\"Resource not accessible by integration\"}", Map.of());
        return;
      }
      ForgeRules.Answer a =
          rules.handle(
              exchange.getRequestMethod(),
              exchange.getRequestURI(),
              exchange.getRequestHeaders(),
              body);
      if (a.status() >= 400) {
        synchronized (this) {
          rejected.add(
              new Rejected(
                  a.forge(),
                  exchange.getRequestMethod(),
                  exchange.getRequestURI().getRawPath(),
                  a.status(),
                  a.body()));
        }
      }
      send(exchange, a.status(), a.body(), a.headers());
    }
  }

  private synchronized boolean forbidden(HttpExchange exchange) {
    String path = exchange.getRequestURI().getRawPath();
    return "POST".equals(exchange.getRequestMethod())
        && forbidden.stream().anyMatch(p -> path.contains("/repos/" + p + "/"));
  }

  private synchronized Fault nextFault() {
    requests++;
    Fault next = faults.pollFirst();
    return next != null ? next : always;
  }

  private static void answerFault(HttpExchange exchange, Fault fault) throws IOException {
    exchange.getRequestBody().readAllBytes();
    if (fault instanceof Fault.Stall s) {
      try {
        Thread.sleep(s.duration().toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return;
    }
    if (fault instanceof Fault.RetryAfter r) {
      send(
          exchange,
          r.code(),
          "{\"message\":\"You have exceeded a secondary rate limit\"}",
          Map.of("Retry-After", r.seconds()));
    } else if (fault instanceof Fault.RateLimited r) {
      send(
          exchange,
          r.code(),
          "{\"message\":\"API rate limit exceeded\"}",
          Map.of(
              "X-RateLimit-Remaining",
              "0",
              "X-RateLimit-Reset",
              Long.toString(r.resetEpochSeconds())));
    } else if (fault instanceof Fault.Answer a) {
      send(exchange, a.code(), a.body(), Map.of());
    } else if (fault instanceof Fault.Status s) {
      send(exchange, s.code(), "{\"message\":\"scripted " + s.code() + "\"}", Map.of());
    }
  }

  private static void send(
      HttpExchange exchange, int status, String body, Map<String, String> headers)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
    headers.forEach((k, v) -> exchange.getResponseHeaders().set(k, v));
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    if (bytes.length > 0) {
      exchange.getResponseBody().write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
