package dev.trainyard.compiler.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The real {@code git http-backend} behind a JDK HTTP server on 127.0.0.1, one CGI/1.1 process per
 * request (RFC 3875; the variables git-http-backend(1) reads), so pushes run git's own receive-pack
 * and the repository's hooks. {@link #stallFetches()} holds every upload-pack request (ref listing
 * and fetch) until {@link #release()}, at most 60 s: a server that stopped answering.
 */
public final class GitCgiServer implements AutoCloseable {
  private final Path root;
  private final HttpServer server;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private volatile CountDownLatch stalled;
  private volatile CountDownLatch release = new CountDownLatch(0);

  public GitCgiServer(Path root) throws IOException {
    this.root = root;
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.setExecutor(threads);
    server.createContext("/", this::handle);
    server.start();
  }

  /** {@code http://127.0.0.1:PORT/NAME}. */
  public String url(String name) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/" + name;
  }

  /** The port on 127.0.0.1. */
  public int port() {
    return server.getAddress().getPort();
  }

  /** From now on upload-pack requests wait; the returned latch opens when the first one waits. */
  public CountDownLatch stallFetches() {
    release = new CountDownLatch(1);
    stalled = new CountDownLatch(1);
    return stalled;
  }

  public void release() {
    release.countDown();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String query = String.valueOf(exchange.getRequestURI().getRawQuery());
      if (exchange.getRequestURI().getPath().endsWith("git-upload-pack")
          || query.contains("service=git-upload-pack")) {
        CountDownLatch s = stalled;
        if (s != null) {
          s.countDown();
        }
        release.await(60, TimeUnit.SECONDS);
      }
      ProcessBuilder pb =
          new ProcessBuilder(
              "git", "-c", "safe.directory=*", "-c", "http.receivepack=true", "http-backend");
      Map<String, String> env = pb.environment();
      env.put("GIT_PROJECT_ROOT", root.toString());
      env.put("GIT_HTTP_EXPORT_ALL", "1");
      env.put("GATEWAY_INTERFACE", "CGI/1.1");
      env.put("REQUEST_METHOD", exchange.getRequestMethod());
      env.put("PATH_INFO", exchange.getRequestURI().getPath());
      env.put("QUERY_STRING", query.equals("null") ? "" : query);
      env.put("REMOTE_ADDR", "127.0.0.1");
      put(env, "CONTENT_TYPE", exchange.getRequestHeaders().getFirst("Content-Type"));
      put(env, "GIT_PROTOCOL", exchange.getRequestHeaders().getFirst("Git-Protocol"));
      put(env, "HTTP_CONTENT_ENCODING", exchange.getRequestHeaders().getFirst("Content-Encoding"));
      Process p = pb.redirectError(ProcessBuilder.Redirect.DISCARD).start();
      Thread in =
          new Thread(
              () -> {
                try (OutputStream o = p.getOutputStream()) {
                  exchange.getRequestBody().transferTo(o);
                } catch (IOException e) {
                  // The CGI answered without reading the whole body.
                }
              });
      in.start();
      respond(exchange, p.getInputStream());
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void put(Map<String, String> env, String name, String value) {
    if (value != null) {
      env.put(name, value);
    }
  }

  private static void respond(HttpExchange exchange, InputStream cgi) throws IOException {
    int status = 200;
    for (String line = headerLine(cgi); !line.isEmpty(); line = headerLine(cgi)) {
      int colon = line.indexOf(':');
      String name = line.substring(0, colon).trim();
      String value = line.substring(colon + 1).trim();
      if (name.equalsIgnoreCase("Status")) {
        status = Integer.parseInt(value.split(" ", 2)[0]);
      } else if (!name.equalsIgnoreCase("Content-Length")) {
        exchange.getResponseHeaders().add(name, value);
      }
    }
    exchange.sendResponseHeaders(status, 0);
    try (OutputStream body = exchange.getResponseBody()) {
      cgi.transferTo(body);
    }
  }

  private static String headerLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b != -1 && b != '\n'; b = in.read()) {
      line.write(b);
    }
    return line.toString(StandardCharsets.ISO_8859_1).replace("\r", "");
  }

  @Override
  public void close() {
    release();
    server.stop(0);
    threads.shutdownNow();
  }
}
