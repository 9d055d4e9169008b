package dev.trainyard.compiler.testing;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * An HTTP server on 127.0.0.1 that answers every request with the same small HTML page (200, {@code
 * text/html}), as a proxy's login page or a web server on the wrong port would: what a kubeconfig
 * pointing at something that is not a Kubernetes API server reaches.
 */
public final class WebPageServer implements AutoCloseable {
  private final HttpServer server;

  /** Starts the server on a free loopback port. */
  public WebPageServer() {
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    byte[] page = "<html><body>Please log in</body></html>".getBytes(StandardCharsets.UTF_8);
    server.createContext(
        "/",
        x -> {
          x.getResponseHeaders().add("Content-Type", "text/html");
          x.sendResponseHeaders(200, page.length);
          x.getResponseBody().write(page);
          x.close();
        });
    server.start();
  }

  /** {@code http://127.0.0.1:PORT}, no trailing slash. */
  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
