package dev.trainyard.controller;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A kubelet's log endpoint for {@link LiveApiServer}: a Node {@code name} whose InternalIP is
 * 127.0.0.1 and whose kubelet port is an HTTPS server here, which the API server asks for a pod's
 * log ({@code GET /containerLogs/NS/POD/CONTAINER}, as it asks the kubelet). A pod bound to the
 * node answers the text set with {@link #log}, e.g. a recorded trainer log of {@code
 * src/test/resources/progress/}. The text is kept as containerd's CRI log file keeps it: lines end
 * at {@code \n} only (a tqdm bar's {@code \r} redraws stay one line), and a line longer than 16 KiB
 * is split into partial entries of 16 KiB (containerd's {@code max_container_log_line_size}
 * default: "Log line longer than the limit will be split into multiple lines", cri v1.11.0 release
 * notes). It is served as the kubelet serves that file ({@code pkg/kubelet/kuberuntime/logs}
 * ReadLogs): {@code tailLines} keeps the last entries, partial ones counted; {@code
 * timestamps=true} prefixes each entry that starts a line with its time in RFC 3339, not the
 * continuations of a split line; {@code limitBytes} keeps the first bytes of what the tail gives,
 * so the newest lines are the ones cut. A followed log ({@code follow=true}) of a pod marked {@link
 * #running} stays open after its lines, as the kubelet holds the stream of a running container,
 * until {@link #exited} or {@link #HOLD} passed; any other log ends after its lines. The API server
 * does not verify a kubelet's certificate without {@code --kubelet-certificate-authority}, so the
 * certificate is a self-signed one.
 *
 * <pre>{@code
 * try (LiveKubelet kubelet = LiveKubelet.start("n1", dir)) {
 *   Pod pod = LiveApiServer.pod(ns, "llama", 0, 0, kubelet.node());
 *   kubelet.log(ns, pod.getMetadata().getName(), text, Instant.parse("2026-12-01T08:00:00Z"));
 * }
 * }</pre>
 */
public final class LiveKubelet implements AutoCloseable {

  /** One entry of a CRI log file: a line's text or a 16 KiB piece of it ({@code partial}). */
  private record Entry(byte[] text, boolean partial) {}

  private record Log(List<Entry> entries, Instant at) {}

  /** containerd's default {@code max_container_log_line_size}, in bytes. */
  static final int MAX_LINE_BYTES = 16 * 1024;

  /** The longest a followed stream of a running container is held open: no test waits longer. */
  static final Duration HOLD = Duration.ofSeconds(60);

  private final String node;
  private final HttpsServer server;
  private final ExecutorService handlers;
  private final Map<String, Log> logs = new ConcurrentHashMap<>();
  private final Map<String, CountDownLatch> running = new ConcurrentHashMap<>();

  private LiveKubelet(String node, HttpsServer server, ExecutorService handlers) {
    this.node = node;
    this.server = server;
    this.handlers = handlers;
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
    // Held streams block their handler: each request on a thread of its own.
    ExecutorService handlers =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "live-kubelet");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(handlers);
    LiveKubelet kubelet = new LiveKubelet(node, server, handlers);
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
    List<Entry> entries = new ArrayList<>();
    for (String line : text.isEmpty() ? new String[0] : text.split("\n")) {
      byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
      int from = 0;
      for (; bytes.length - from > MAX_LINE_BYTES; from += MAX_LINE_BYTES) {
        entries.add(new Entry(Arrays.copyOfRange(bytes, from, from + MAX_LINE_BYTES), true));
      }
      entries.add(new Entry(Arrays.copyOfRange(bytes, from, bytes.length), false));
    }
    logs.put(namespace + "/" + pod, new Log(List.copyOf(entries), at));
  }

  /**
   * From now on, pod {@code namespace}/{@code pod}'s container runs: a followed log of it stays
   * open after its lines until {@link #exited} (at most {@link #HOLD}).
   */
  public void running(String namespace, String pod) {
    running.put(namespace + "/" + pod, new CountDownLatch(1));
  }

  /** Pod {@code namespace}/{@code pod}'s container exited: its held streams end. */
  public void exited(String namespace, String pod) {
    CountDownLatch held = running.remove(namespace + "/" + pod);
    if (held != null) {
      held.countDown();
    }
  }

  private void answer(HttpExchange exchange) throws IOException {
    // /containerLogs/NS/POD/CONTAINER
    String[] path = exchange.getRequestURI().getPath().split("/");
    String key = path.length == 5 ? path[2] + "/" + path[3] : "";
    Log log = logs.get(key);
    Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
    CountDownLatch held = "true".equals(query.get("follow")) ? running.get(key) : null;
    byte[] body;
    int code;
    if (log == null) {
      code = 404;
      body = "not found".getBytes(StandardCharsets.UTF_8);
    } else {
      code = 200;
      body = cut(log, query);
    }
    if (log != null && held != null) {
      exchange.sendResponseHeaders(code, 0);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
        out.flush();
        held.await(HOLD.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return;
    }
    exchange.sendResponseHeaders(code, body.length == 0 ? -1 : body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  private static byte[] cut(Log log, Map<String, String> query) {
    List<Entry> entries = log.entries();
    if (query.containsKey("tailLines")) {
      int tail = Integer.parseInt(query.get("tailLines"));
      entries = entries.subList(Math.max(0, entries.size() - tail), entries.size());
    }
    byte[] prefix =
        ("true".equals(query.get("timestamps")) ? log.at() + " " : "")
            .getBytes(StandardCharsets.UTF_8);
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    boolean startsLine = true;
    for (Entry e : entries) {
      if (startsLine) {
        text.writeBytes(prefix);
      }
      text.writeBytes(e.text());
      if (!e.partial()) {
        text.write('\n');
      }
      startsLine = !e.partial();
    }
    byte[] bytes = text.toByteArray();
    if (query.containsKey("limitBytes")) {
      int limit = Integer.parseInt(query.get("limitBytes"));
      if (bytes.length > limit) {
        bytes = Arrays.copyOf(bytes, limit);
      }
    }
    return bytes;
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
    running.values().forEach(CountDownLatch::countDown);
    running.clear();
    server.stop(0);
    handlers.shutdownNow();
    // Stopping the server mid-stream can make the API server close the client's shared connection
    // under load ("Connection was closed", twice in a row at load 12): the delete is tried again on
    // a new connection, at most three times.
    for (int attempt = 1; ; attempt++) {
      try {
        LiveApiServer.client().nodes().withName(node).delete();
        return;
      } catch (KubernetesClientException e) {
        if (attempt == 3) {
          throw e;
        }
      }
    }
  }
}
