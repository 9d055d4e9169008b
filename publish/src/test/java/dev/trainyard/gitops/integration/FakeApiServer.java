package dev.trainyard.gitops.integration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The HTTP plumbing {@link FakeGitHub} and {@link FakeGitLab} share: a JDK HTTP server on 127.0.0.1
 * (a free port), every request recorded as {@code METHOD path} before the forge's own {@link Route}
 * answers it, and JSON answers. Each fake keeps its forge's contract checks (auth header, paths,
 * limits) in its route.
 */
final class FakeApiServer implements AutoCloseable {

  static final ObjectMapper JSON = new ObjectMapper();

  /** One forge's answer to a request; the exchange is closed afterwards. */
  interface Route {
    void answer(HttpExchange exchange) throws IOException;
  }

  private final HttpServer server;
  private final List<String> requests = new ArrayList<>();

  FakeApiServer(Route route) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          try (exchange) {
            record(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath());
            route.answer(exchange);
          }
        });
    server.start();
  }

  /** {@code http://127.0.0.1:PORT}. */
  String root() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private synchronized void record(String request) {
    requests.add(request);
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

  /** {@code {"message": text}}, both forges' error shape. */
  static ObjectNode message(String text) {
    return JSON.createObjectNode().put("message", text);
  }

  /** A query string or form body as a sorted map, values URL-decoded; null reads empty. */
  static Map<String, String> query(String raw) {
    Map<String, String> out = new TreeMap<>();
    if (raw != null) {
      for (String pair : raw.split("&")) {
        int eq = pair.indexOf('=');
        if (eq > 0) {
          out.put(
              pair.substring(0, eq),
              URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
      }
    }
    return out;
  }

  /** Answers {@code status} with {@code body} as JSON, {@code Content-Type: contentType}. */
  static void send(HttpExchange exchange, int status, JsonNode body, String contentType)
      throws IOException {
    byte[] bytes = JSON.writeValueAsString(body).getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", contentType);
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
  }
}
