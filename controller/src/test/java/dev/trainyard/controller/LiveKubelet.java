package dev.trainyard.controller;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * A kubelet's log endpoint for {@link LiveApiServer}: a Node {@code name} whose InternalIP is
 * 127.0.0.1 and whose kubelet port is an HTTPS server here, which the API server asks for a pod's
 * log ({@code GET /containerLogs/NS/POD/CONTAINER}, as it asks the kubelet). A pod bound to the
 * node answers the text set with {@link #log}, e.g. a recorded trainer log of {@code
 * src/test/resources/progress/}; {@code timestamps=true} prefixes each line with its time in RFC
 * 3339 as the kubelet does, {@code tailLines} keeps the last lines and {@code limitBytes} the first
 * bytes of those, as the kubelet does. The API server does not verify a kubelet's certificate
 * without {@code --kubelet-certificate-authority}, so the certificate is a self-signed one.
 *
 * <pre>{@code
 * try (LiveKubelet kubelet = LiveKubelet.start("n1", dir)) {
 *   Pod pod = LiveApiServer.pod(ns, "llama", 0, 0, kubelet.node());
 *   kubelet.log(ns, pod.getMetadata().getName(), text, Instant.parse("2026-12-01T08:00:00Z"));
 * }
 * }</pre>
 */
public final class LiveKubelet implements AutoCloseable {

  private record Log(List<String> lines, Instant at) {}

  private final String node;
  private final HttpsServer server;
  private final Map<String, Log> logs = new ConcurrentHashMap<>();

  private LiveKubelet(String node, HttpsServer server) {
    this.node = node;
    this.server = server;
  }

  /**
   * Serves on a free 127.0.0.1 port with a certificate made in {@code dir}, and registers Node
   * {@code node} (a name unique to the test: Nodes are cluster-wide) pointing at it.
   */
  public static LiveKubelet start(String node, Path dir) throws Exception {
    HttpsServer server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setHttpsConfigurator(
        new HttpsConfigurator(
            new ServingCertificate(TestCertificates.ec(dir), System::nanoTime).context()));
    LiveKubelet kubelet = new LiveKubelet(node, server);
    server.createContext("/containerLogs/", kubelet::answer);
    server.start();
    LiveApiServer.node(node, server.getAddress().getPort());
    return kubelet;
  }

  /** The Node's name, for {@link LiveApiServer#pod(String, String, int, int, String)}. */
  public String node() {
    return node;
  }

  /**
   * From now on, pod {@code namespace}/{@code pod}'s log is {@code text}, every line at {@code at}.
   */
  public void log(String namespace, String pod, String text, Instant at) {
    logs.put(namespace + "/" + pod, new Log(text.lines().toList(), at));
  }

  private void answer(HttpExchange exchange) throws IOException {
    // /containerLogs/NS/POD/CONTAINER
    String[] path = exchange.getRequestURI().getPath().split("/");
    Log log = path.length == 5 ? logs.get(path[2] + "/" + path[3]) : null;
    byte[] body;
    int code;
    if (log == null) {
      code = 404;
      body = "not found".getBytes(StandardCharsets.UTF_8);
    } else {
      code = 200;
      body = cut(log, query(exchange.getRequestURI().getRawQuery()));
    }
    exchange.sendResponseHeaders(code, body.length == 0 ? -1 : body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  private static byte[] cut(Log log, Map<String, String> query) {
    List<String> lines = log.lines();
    if (query.containsKey("tailLines")) {
      int tail = Integer.parseInt(query.get("tailLines"));
      lines = lines.subList(Math.max(0, lines.size() - tail), lines.size());
    }
    String prefix = "true".equals(query.get("timestamps")) ? log.at() + " " : "";
    byte[] text =
        lines.stream()
            .map(l -> prefix + l + "\n")
            .collect(Collectors.joining())
            .getBytes(StandardCharsets.UTF_8);
    if (query.containsKey("limitBytes")) {
      int limit = Integer.parseInt(query.get("limitBytes"));
      if (text.length > limit) {
        text = Arrays.copyOf(text, limit);
      }
    }
    return text;
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> q = new HashMap<>();
    if (raw != null) {
      for (String pair : raw.split("&")) {
        int eq = pair.indexOf('=');
        if (eq > 0) {
          q.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
      }
    }
    return q;
  }

  @Override
  public void close() {
    server.stop(0);
    LiveApiServer.client().nodes().withName(node).delete();
  }
}
