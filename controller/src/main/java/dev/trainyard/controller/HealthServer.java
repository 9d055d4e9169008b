package dev.trainyard.controller;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * {@code /healthz} (200 while the process serves), {@code /readyz} (200 once the informers have
 * listed and, under leader election, this replica leads or knows the leader; else 503 with the
 * reason) and {@code /metrics} (Prometheus text, {@code text/plain; version=0.0.4}) on the JDK's
 * HTTP server. Binds all interfaces in a pod; tests pass 127.0.0.1.
 */
public final class HealthServer implements AutoCloseable {

  private final HttpServer server;
  private final ExecutorService threads =
      Executors.newFixedThreadPool(
          2,
          r -> {
            Thread t = new Thread(r, "trainyard-health");
            t.setDaemon(true);
            return t;
          });

  /**
   * Starts serving on {@code address} (port 0: a free port); {@code ready} false answers "informers
   * not synced".
   */
  public HealthServer(InetSocketAddress address, BooleanSupplier ready, Supplier<String> metrics) {
    this(address, () -> ready.getAsBoolean() ? "" : "informers not synced", metrics);
  }

  /**
   * Starts serving on {@code address}; {@code notReady} gives "" when ready, else the reason {@code
   * /readyz} answers with its 503.
   *
   * @throws UncheckedIOException "cannot listen on ADDRESS: address already in use" when the port
   *     is taken
   */
  public HealthServer(
      InetSocketAddress address, Supplier<String> notReady, Supplier<String> metrics) {
    try {
      server = HttpServer.create(address, 16);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot listen on "
              + address.getHostString()
              + ":"
              + address.getPort()
              + ": "
              + (e instanceof BindException ? "address already in use" : e.getMessage()),
          e);
    }
    server.createContext("/healthz", ex -> answer(ex, 200, "ok\n", "text/plain"));
    server.createContext(
        "/readyz",
        ex -> {
          String why = notReady.get();
          answer(ex, why.isEmpty() ? 200 : 503, why.isEmpty() ? "ok\n" : why + "\n", "text/plain");
        });
    server.createContext(
        "/metrics", ex -> answer(ex, 200, metrics.get(), "text/plain; version=0.0.4"));
    server.createContext("/", ex -> answer(ex, 404, "not found\n", "text/plain"));
    server.setExecutor(threads);
    server.start();
  }

  /** The bound port. */
  public int port() {
    return server.getAddress().getPort();
  }

  private static void answer(HttpExchange ex, int status, String body, String type)
      throws IOException {
    try (ex) {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", type + "; charset=utf-8");
      ex.sendResponseHeaders(status, bytes.length);
      ex.getResponseBody().write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
