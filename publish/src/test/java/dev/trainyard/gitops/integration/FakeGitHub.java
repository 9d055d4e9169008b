package dev.trainyard.gitops.integration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The part of the GitHub REST API that the workflow's comment step uses, on 127.0.0.1, with GitHub's
 * documented rules (docs.github.com/rest/issues/comments):
 * <ul>
 *   <li>a request without the expected token is 401 "Bad credentials";</li>
 *   <li>list comments: oldest first, {@code per_page} at most 100 (default 30), further pages in a
 *       {@code Link: <...>; rel="next"} header;</li>
 *   <li>create/update: a body over 65,536 characters is 422 "body is too long (maximum is 65536
 *       characters)", a missing body 422; update and delete of an unknown id 404; delete answers 204.</li>
 * </ul>
 * Comments created through the API belong to {@code github-actions[bot]}; {@link #addHumanComment} seeds
 * others. Every request is recorded as {@code METHOD path}.
 */
final class FakeGitHub implements AutoCloseable {
  static final int BODY_LIMIT = 65536;
  static final String BOT = "github-actions[bot]";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern LIST = Pattern.compile("/repos/([^/]+)/([^/]+)/issues/(\\d+)/comments");
  private static final Pattern ONE = Pattern.compile("/repos/([^/]+)/([^/]+)/issues/comments/(\\d+)");

  private final HttpServer server;
  private final String token;
  private final String repo;
  private final int issue;
  private final Map<Long, ObjectNode> comments = new TreeMap<>();
  private final List<String> requests = new ArrayList<>();
  private long nextId = 1000;

  /** Serves the pull request {@code repo#issue} ({@code repo} as {@code owner/name}) to {@code token}. */
  FakeGitHub(String token, String repo, int issue) throws IOException {
    this.token = token;
    this.repo = repo;
    this.issue = issue;
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.start();
  }

  /** The API root, for GITHUB_API_URL. */
  String apiUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
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

  synchronized List<String> requests() {
    return List.copyOf(requests);
  }

  synchronized void clearRequests() {
    requests.clear();
  }

  @Override
  public void close() {
    server.stop(0);
  }

  private long add(String login, String type, String body) {
    long id = nextId++;
    ObjectNode comment = JSON.createObjectNode().put("id", id).put("body", body);
    comment.putObject("user").put("login", login).put("type", type);
    comments.put(id, comment);
    return id;
  }

  private synchronized void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      String method = exchange.getRequestMethod();
      requests.add(method + " " + path);
      String auth = exchange.getRequestHeaders().getFirst("Authorization");
      if (!("token " + token).equals(auth) && !("Bearer " + token).equals(auth)) {
        send(exchange, 401, message("Bad credentials"));
        return;
      }
      Matcher list = LIST.matcher(path);
      Matcher one = ONE.matcher(path);
      if (list.matches() && (list.group(1) + "/" + list.group(2)).equals(repo) && Integer.parseInt(list.group(3)) == issue) {
        onIssueComments(exchange, method);
      } else if (one.matches() && (one.group(1) + "/" + one.group(2)).equals(repo)) {
        onComment(exchange, method, Long.parseLong(one.group(3)));
      } else {
        send(exchange, 404, message("Not Found"));
      }
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

  private void listPage(HttpExchange exchange) throws IOException {
    Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
    int perPage = Math.min(100, Integer.parseInt(query.getOrDefault("per_page", "30")));
    int page = Integer.parseInt(query.getOrDefault("page", "1"));
    List<ObjectNode> all = new ArrayList<>(comments.values());
    ArrayNode out = JSON.createArrayNode();
    for (int i = (page - 1) * perPage; i < Math.min(all.size(), page * perPage); i++) {
      out.add(all.get(i));
    }
    if (page * perPage < all.size()) {
      String next = apiUrl() + exchange.getRequestURI().getPath() + "?per_page=" + perPage + "&page=" + (page + 1);
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
      send(exchange, 422, validationFailed("custom", "body is too long (maximum is 65536 characters)"));
      return null;
    }
    return body.asText();
  }

  private static ObjectNode validationFailed(String code, String text) {
    ObjectNode node = message("Validation Failed");
    node.putArray("errors").addObject().put("resource", "IssueComment").put("code", code).put("field", "body").put("message", text);
    return node;
  }

  private static ObjectNode message(String text) {
    return JSON.createObjectNode().put("message", text);
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> out = new TreeMap<>();
    if (raw != null) {
      for (String pair : raw.split("&")) {
        int eq = pair.indexOf('=');
        if (eq > 0) {
          out.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
      }
    }
    return out;
  }

  private static void send(HttpExchange exchange, int status, JsonNode body) throws IOException {
    byte[] bytes = JSON.writeValueAsString(body).getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
  }
}
