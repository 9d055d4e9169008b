package dev.trainyard.cluster;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.trainyard.controller.forge.FakeForge;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The sandbox's forge web pages on 127.0.0.1: what a {@link FakeForge} accepted, one page per
 * commit, as a forge shows the checks of a commit. Read-only; values are HTML-escaped.
 *
 * <pre>
 * GET /                 every commit with a status, newest post first: sha, repo, latest state
 * GET /commit/&lt;sha&gt;      every post for that commit in order: time (UTC, seconds), forge, repo,
 *                       context, state, description; 404 for a commit without posts
 * GET /commit/&lt;sha&gt;?wait=60   the same once the commit has a final state (success, failure,
 *                       error, canceled) or after 60 s (at most {@value #MAX_WAIT_SECONDS}), for scripts
 * </pre>
 */
final class ForgePages implements AutoCloseable {

  static final int MAX_WAIT_SECONDS = 300;
  private static final Pattern SHA = Pattern.compile("[0-9a-f]{7,64}");
  private static final Pattern WAIT = Pattern.compile("wait=(\\d{1,3})");
  private static final Set<String> FINAL =
      Set.of("success", "failure", "error", "canceled", "failed");

  private final FakeForge forge;
  private final HttpServer server;
  private final ExecutorService executor =
      Executors.newFixedThreadPool(
          4,
          runnable -> {
            Thread thread = new Thread(runnable, "forge-pages");
            thread.setDaemon(true);
            return thread;
          });

  private ForgePages(FakeForge forge, HttpServer server) {
    this.forge = forge;
    this.server = server;
  }

  /** Serves {@code forge}'s posts on a free port of 127.0.0.1. */
  static ForgePages start(FakeForge forge) {
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress(LoopbackPorts.LOOPBACK, 0), 16);
      ForgePages pages = new ForgePages(forge, server);
      server.createContext("/", pages::handle);
      server.setExecutor(pages.executor);
      server.start();
      return pages;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the forge pages on 127.0.0.1", e);
    }
  }

  /** {@code http://127.0.0.1:PORT}, no trailing slash. */
  String url() {
    return "http://127.0.0.1:" + port();
  }

  int port() {
    return server.getAddress().getPort();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      if (!"GET".equals(exchange.getRequestMethod())) {
        send(exchange, 405, page("405", "<p>read-only</p>"));
      } else if ("/".equals(path)) {
        send(exchange, 200, index());
      } else if (path.startsWith("/commit/") && SHA.matcher(path.substring(8)).matches()) {
        awaitFinal(path.substring(8), exchange.getRequestURI().getQuery());
        String body = commit(path.substring(8));
        send(exchange, body == null ? 404 : 200, body == null ? notFound(path) : body);
      } else {
        send(exchange, 404, notFound(path));
      }
    }
  }

  /**
   * With {@code wait=N} in {@code query}: waits up to N seconds for a final post of {@code sha}.
   */
  private void awaitFinal(String sha, String query) {
    Matcher wait = WAIT.matcher(query == null ? "" : query);
    if (!wait.find()) {
      return;
    }
    long deadline =
        System.nanoTime()
            + Duration.ofSeconds(Math.min(MAX_WAIT_SECONDS, Integer.parseInt(wait.group(1))))
                .toNanos();
    while (System.nanoTime() < deadline
        && forge.accepted().stream()
            .noneMatch(a -> a.sha().equals(sha) && FINAL.contains(a.state()))) {
      try {
        Thread.sleep(250);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** One row per commit: its newest post per context. */
  String index() {
    Map<String, List<FakeForge.Accepted>> bySha = new LinkedHashMap<>();
    List<FakeForge.Accepted> all = forge.accepted();
    for (int i = all.size() - 1; i >= 0; i--) {
      FakeForge.Accepted a = all.get(i);
      bySha.computeIfAbsent(a.sha(), sha -> new ArrayList<>()).add(a);
    }
    StringBuilder rows = new StringBuilder();
    bySha.forEach(
        (sha, posts) -> {
          FakeForge.Accepted newest = posts.get(0);
          rows.append("<tr><td><a href=\"/commit/")
              .append(escape(sha))
              .append("\">")
              .append(escape(sha.substring(0, Math.min(12, sha.length()))))
              .append("</a></td><td>")
              .append(escape(newest.forge() + " " + newest.project()))
              .append("</td><td>")
              .append(escape(newest.context()))
              .append("</td><td class=\"")
              .append(escape(newest.state()))
              .append("\">")
              .append(escape(newest.state()))
              .append("</td><td>")
              .append(escape(newest.description()))
              .append("</td></tr>\n");
        });
    String table =
        bySha.isEmpty()
            ? "<p>No commit status yet: submit a run, the controller posts queued, running and"
                + " its end here.</p>"
            : "<table>\n<tr><th>commit</th><th>repo</th><th>context</th><th>state</th>"
                + "<th>description</th></tr>\n"
                + rows
                + "</table>";
    return page("Trainyard sandbox forge", table);
  }

  /** Every post for {@code sha} in the order accepted, or null when there is none. */
  String commit(String sha) {
    List<FakeForge.Accepted> all = forge.accepted();
    List<Instant> times = forge.acceptedTimes();
    StringBuilder rows = new StringBuilder();
    for (int i = 0; i < all.size(); i++) {
      FakeForge.Accepted a = all.get(i);
      if (a.sha().equals(sha)) {
        rows.append("<tr><td>")
            .append(i < times.size() ? times.get(i).truncatedTo(ChronoUnit.SECONDS) : "")
            .append("</td><td>")
            .append(escape(a.forge() + " " + a.project()))
            .append("</td><td>")
            .append(escape(a.context()))
            .append("</td><td class=\"")
            .append(escape(a.state()))
            .append("\">")
            .append(escape(a.state()))
            .append("</td><td>")
            .append(escape(a.description()))
            .append("</td></tr>\n");
      }
    }
    if (rows.isEmpty()) {
      return null;
    }
    return page(
        "Commit " + sha,
        "<p><a href=\"/\">all commits</a></p>\n<table>\n<tr><th>posted (UTC)</th><th>repo</th>"
            + "<th>context</th><th>state</th><th>description</th></tr>\n"
            + rows
            + "</table>");
  }

  private static String notFound(String path) {
    return page("Not found", "<p>No commit status for " + escape(path) + ".</p>");
  }

  private static String page(String title, String body) {
    return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>"
        + escape(title)
        + "</title><style>body{font-family:sans-serif}td,th{padding:2px 8px;text-align:left}"
        + ".success{color:green}.failure,.failed,.error{color:red}</style></head>\n<body><h1>"
        + escape(title)
        + "</h1>\n"
        + body
        + "\n</body></html>\n";
  }

  static String escape(String text) {
    if (text == null) {
      return "";
    }
    return text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;")
        .replace("'", "&#39;");
  }

  private static void send(HttpExchange exchange, int status, String html) throws IOException {
    byte[] bytes = html.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
