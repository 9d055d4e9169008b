package dev.trainyard.gitops.integration;

import static dev.trainyard.gitops.integration.FakeApiServer.message;
import static dev.trainyard.gitops.integration.FakeApiServer.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The part of the GitHub REST API that the workflow's comment step uses, on 127.0.0.1, with
 * GitHub's documented rules (docs.github.com/rest/issues/comments):
 *
 * <ul>
 *   <li>a request without the expected token is 401 "Bad credentials";
 *   <li>list comments: oldest first, {@code per_page} at most 100 (default 30), further pages in a
 *       {@code Link: <...>; rel="next"} header;
 *   <li>create/update: a body over 65,536 characters is 422 "body is too long (maximum is 65536
 *       characters)", a missing body 422; update and delete of an unknown id 404; delete answers
 *       204.
 * </ul>
 *
 * Comments created through the API belong to {@code github-actions[bot]}; {@link #addHumanComment}
 * seeds others. Every request is recorded as {@code METHOD path}.
 */
final class FakeGitHub implements AutoCloseable {
  static final int BODY_LIMIT = 65536;
  static final String BOT = "github-actions[bot]";
  private static final ObjectMapper JSON = FakeApiServer.JSON;
  private static final Pattern LIST =
      Pattern.compile("/repos/([^/]+)/([^/]+)/issues/(\\d+)/comments");
  private static final Pattern ONE =
      Pattern.compile("/repos/([^/]+)/([^/]+)/issues/comments/(\\d+)");

  private final FakeApiServer server;
  private int failingPage;
  private final String token;
  private final String repo;
  private final int issue;
  private final Map<Long, ObjectNode> comments = new TreeMap<>();
  private long nextId = 1000;

  /**
   * Serves the pull request {@code repo#issue} ({@code repo} as {@code owner/name}) to {@code
   * token}.
   */
  FakeGitHub(String token, String repo, int issue) throws IOException {
    this.token = token;
    this.repo = repo;
    this.issue = issue;
    server = new FakeApiServer(this::handle);
  }

  /** The API root, for GITHUB_API_URL. */
  String apiUrl() {
    return server.root();
  }

  synchronized long addHumanComment(String login, String body) {
    return add(login, "User", body);
  }

  /** A comment as an earlier workflow run would have left it. */
  synchronized long addBotComment(String body) {
    return add(BOT, "Bot", body);
  }

  synchronized List<JsonNode> comments() {
    return List.copyOf(comments.values());
  }

  List<String> requests() {
    return server.requests();
  }

  void clearRequests() {
    server.clearRequests();
  }

  @Override
  public void close() {
    server.close();
  }

  private long add(String login, String type, String body) {
    long id = nextId++;
    ObjectNode comment = JSON.createObjectNode().put("id", id).put("body", body);
    comment.putObject("user").put("login", login).put("type", type);
    comments.put(id, comment);
    return id;
  }

  private synchronized void handle(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    String method = exchange.getRequestMethod();
    String auth = exchange.getRequestHeaders().getFirst("Authorization");
    if (!("token " + token).equals(auth) && !("Bearer " + token).equals(auth)) {
      send(exchange, 401, message("Bad credentials"));
      return;
    }
    Matcher list = LIST.matcher(path);
    Matcher one = ONE.matcher(path);
    if (list.matches()
        && (list.group(1) + "/" + list.group(2)).equals(repo)
        && Integer.parseInt(list.group(3)) == issue) {
      onIssueComments(exchange, method);
    } else if (one.matches() && (one.group(1) + "/" + one.group(2)).equals(repo)) {
      onComment(exchange, method, Long.parseLong(one.group(3)));
    } else {
      send(exchange, 404, message("Not Found"));
    }
  }

  private void onIssueComments(HttpExchange exchange, String method) throws IOException {
    if (method.equals("GET")) {
      listPage(exchange);
    } else if (method.equals("POST")) {
      String body = validBody(exchange);
      if (body != null) {
        send(exchange, 201, comments.get(add(BOT, "Bot", body)));
      }
    } else {
      send(exchange, 404, message("Not Found"));
    }
  }

  private void onComment(HttpExchange exchange, String method, long id) throws IOException {
    ObjectNode comment = comments.get(id);
    if (comment == null) {
      send(exchange, 404, message("Not Found"));
    } else if (method.equals("PATCH")) {
      String body = validBody(exchange);
      if (body != null) {
        comment.put("body", body);
        send(exchange, 200, comment);
      }
    } else if (method.equals("DELETE")) {
      comments.remove(id);
      exchange.sendResponseHeaders(204, -1);
    } else {
      send(exchange, 404, message("Not Found"));
    }
  }

  /** From now on the list's page {@code page} answers 502 (a proxy or the API failing mid-way). */
  synchronized void failPage(int page) {
    failingPage = page;
  }

  private void listPage(HttpExchange exchange) throws IOException {
    Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
    if (String.valueOf(failingPage).equals(query.getOrDefault("page", "1"))) {
      send(exchange, 502, message("Bad Gateway"));
      return;
    }
    int perPage = Math.min(100, Integer.parseInt(query.getOrDefault("per_page", "30")));
    int page = Integer.parseInt(query.getOrDefault("page", "1"));
    List<ObjectNode> all = new ArrayList<>(comments.values());
    ArrayNode out = JSON.createArrayNode();
    for (int i = (page - 1) * perPage; i < Math.min(all.size(), page * perPage); i++) {
      out.add(all.get(i));
    }
    if (page * perPage < all.size()) {
      String next =
          apiUrl()
              + exchange.getRequestURI().getPath()
              + "?per_page="
              + perPage
              + "&page="
              + (page + 1);
      exchange.getResponseHeaders().add("Link", "<" + next + ">; rel=\"next\"");
    }
    send(exchange, 200, out);
  }

  /** The request's {@code body} field, or null after answering 422 as GitHub does. */
  private String validBody(HttpExchange exchange) throws IOException {
    JsonNode request = JSON.readTree(exchange.getRequestBody().readAllBytes());
    JsonNode body = request == null ? null : request.get("body");
    if (body == null || !body.isTextual()) {
      send(exchange, 422, validationFailed("missing_field", "body is missing"));
      return null;
    }
    if (body.asText().length() > BODY_LIMIT) {
      send(
          exchange,
          422,
          validationFailed("custom", "body is too long (maximum is 65536 characters)"));
      return null;
    }
    return body.asText();
  }

  private static ObjectNode validationFailed(String code, String text) {
    ObjectNode node = message("Validation Failed");
    node.putArray("errors")
        .addObject()
        .put("resource", "IssueComment")
        .put("code", code)
        .put("field", "body")
        .put("message", text);
    return node;
  }

  private static void send(HttpExchange exchange, int status, JsonNode body) throws IOException {
    FakeApiServer.send(exchange, status, body, "application/json; charset=utf-8");
  }
}
