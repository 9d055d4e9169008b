package dev.trainyard.gitops.integration;

import static dev.trainyard.gitops.integration.FakeApiServer.message;
import static dev.trainyard.gitops.integration.FakeApiServer.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The part of the GitLab REST API v4 that the pipeline's note step uses, on 127.0.0.1, with
 * GitLab's documented rules (docs.gitlab.com/api/notes, /api/rest#pagination):
 *
 * <ul>
 *   <li>every request needs the {@code PRIVATE-TOKEN} header, else 401;
 *   <li>{@code GET /user} names the token's user;
 *   <li>merge request notes list newest first (sort desc by default), {@code per_page} at most 100
 *       (default 20), the next page in {@code X-Next-Page} (empty on the last page);
 *   <li>create needs {@code body} (400 without); a note over 1,000,000 characters is 400 (the limit
 *       Atlantis uses for GitLab; the message text is our guess); only a note's author may edit it
 *       (403); delete answers 204; an unknown note is 404.
 * </ul>
 *
 * Every request is recorded as {@code METHOD path}.
 */
final class FakeGitLab implements AutoCloseable {
  static final int BODY_LIMIT = 1_000_000;
  static final long BOT_ID = 77;
  private static final ObjectMapper JSON = FakeApiServer.JSON;
  private static final Pattern NOTES =
      Pattern.compile("/api/v4/projects/(\\d+)/merge_requests/(\\d+)/notes(?:/(\\d+))?");

  private final FakeApiServer server;
  private int failingPage;
  private final String token;
  private final long project;
  private final long mergeRequest;
  private final Map<Long, ObjectNode> notes = new TreeMap<>();
  private long nextId = 500;

  FakeGitLab(String token, long project, long mergeRequest) throws IOException {
    this.token = token;
    this.project = project;
    this.mergeRequest = mergeRequest;
    server = new FakeApiServer(this::handle);
  }

  /** CI_API_V4_URL. */
  String apiUrl() {
    return server.root() + "/api/v4";
  }

  synchronized long addNote(long authorId, boolean system, String body) {
    long id = nextId++;
    ObjectNode note = JSON.createObjectNode().put("id", id).put("body", body).put("system", system);
    note.putObject("author")
        .put("id", authorId)
        .put("username", authorId == BOT_ID ? "project_42_bot" : "user" + authorId);
    notes.put(id, note);
    return id;
  }

  /** Notes oldest first. */
  synchronized List<JsonNode> notes() {
    return List.copyOf(notes.values());
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

  private synchronized void handle(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    String method = exchange.getRequestMethod();
    if (!token.equals(exchange.getRequestHeaders().getFirst("PRIVATE-TOKEN"))) {
      send(exchange, 401, message("401 Unauthorized"));
      return;
    }
    Matcher m = NOTES.matcher(path);
    if (path.equals("/api/v4/user") && method.equals("GET")) {
      send(
          exchange,
          200,
          JSON.createObjectNode().put("id", BOT_ID).put("username", "project_42_bot"));
    } else if (m.matches()
        && Long.parseLong(m.group(1)) == project
        && Long.parseLong(m.group(2)) == mergeRequest) {
      if (m.group(3) == null) {
        onNotes(exchange, method);
      } else {
        onNote(exchange, method, Long.parseLong(m.group(3)));
      }
    } else {
      send(exchange, 404, message("404 Not Found"));
    }
  }

  private void onNotes(HttpExchange exchange, String method) throws IOException {
    if (method.equals("GET")) {
      listPage(exchange);
    } else if (method.equals("POST")) {
      String body = validBody(exchange);
      if (body != null) {
        send(exchange, 201, notes.get(addNote(BOT_ID, false, body)));
      }
    } else {
      send(exchange, 405, message("405 Method Not Allowed"));
    }
  }

  private void onNote(HttpExchange exchange, String method, long id) throws IOException {
    ObjectNode note = notes.get(id);
    if (note == null) {
      send(exchange, 404, message("404 Note Not Found"));
    } else if (method.equals("PUT")) {
      if (note.at("/author/id").asLong() != BOT_ID) {
        send(exchange, 403, message("403 Forbidden"));
        return;
      }
      String body = validBody(exchange);
      if (body != null) {
        note.put("body", body);
        send(exchange, 200, note);
      }
    } else if (method.equals("DELETE")) {
      notes.remove(id);
      exchange.sendResponseHeaders(204, -1);
    } else {
      send(exchange, 405, message("405 Method Not Allowed"));
    }
  }

  /** From now on the list's page {@code page} answers 502 (a proxy or the API failing mid-way). */
  synchronized void failPage(int page) {
    failingPage = page;
  }

  private void listPage(HttpExchange exchange) throws IOException {
    Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
    if (String.valueOf(failingPage).equals(query.getOrDefault("page", "1"))) {
      send(exchange, 502, message("502 Bad Gateway"));
      return;
    }
    int perPage = Math.min(100, Integer.parseInt(query.getOrDefault("per_page", "20")));
    int page = Integer.parseInt(query.getOrDefault("page", "1"));
    List<ObjectNode> newestFirst = new ArrayList<>(notes.values());
    Collections.reverse(newestFirst);
    ArrayNode out = JSON.createArrayNode();
    for (int i = (page - 1) * perPage; i < Math.min(newestFirst.size(), page * perPage); i++) {
      out.add(newestFirst.get(i));
    }
    boolean more = page * perPage < newestFirst.size();
    exchange.getResponseHeaders().set("X-Page", String.valueOf(page));
    exchange.getResponseHeaders().set("X-Per-Page", String.valueOf(perPage));
    exchange.getResponseHeaders().set("X-Next-Page", more ? String.valueOf(page + 1) : "");
    exchange.getResponseHeaders().set("X-Total", String.valueOf(newestFirst.size()));
    send(exchange, 200, out);
  }

  private String validBody(HttpExchange exchange) throws IOException {
    byte[] raw = exchange.getRequestBody().readAllBytes();
    String contentType = String.valueOf(exchange.getRequestHeaders().getFirst("Content-Type"));
    String body =
        contentType.startsWith("application/json")
            ? textField(JSON.readTree(raw))
            : query(new String(raw, StandardCharsets.UTF_8)).get("body");
    if (body == null) {
      send(exchange, 400, message("400 Bad request - body is missing"));
      return null;
    }
    if (body.length() > BODY_LIMIT) {
      ObjectNode error = JSON.createObjectNode();
      error
          .putObject("message")
          .putArray("note")
          .add("is too long (maximum is 1000000 characters)");
      send(exchange, 400, error);
      return null;
    }
    return body;
  }

  private static String textField(JsonNode request) {
    return request != null && request.path("body").isTextual()
        ? request.path("body").asText()
        : null;
  }

  private static void send(HttpExchange exchange, int status, JsonNode body) throws IOException {
    FakeApiServer.send(exchange, status, body, "application/json");
  }
}
