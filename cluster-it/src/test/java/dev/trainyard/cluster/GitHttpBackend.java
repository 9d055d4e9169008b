package dev.trainyard.cluster;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One HTTP request handed to the real {@code git http-backend} as a CGI/1.1 program (RFC 3875): the
 * request becomes environment variables and stdin, the program's stdout is a CGI response ({@code
 * Status:} and other header lines, a blank line, the body) that is streamed back.
 *
 * <p>Variables from git-http-backend(1): {@code GIT_PROJECT_ROOT}, {@code GIT_HTTP_EXPORT_ALL},
 * {@code PATH_INFO}, {@code QUERY_STRING}, {@code REQUEST_METHOD}, {@code CONTENT_TYPE}, {@code
 * REMOTE_USER}, {@code GIT_PROTOCOL} (from the {@code Git-Protocol} header, for protocol v2); every
 * other request header as {@code HTTP_*} (so {@code HTTP_CONTENT_ENCODING} tells it that a body is
 * gzipped), except {@code Authorization}, which RFC 3875 section 4.1.18 keeps from CGI programs.
 * git runs with {@code safe.directory=*} (a CGI child may see the repos as owned by someone else
 * and then refuses them with "dubious ownership") and {@code http.receivepack=true} (pushes). Each
 * process is killed after {@code timeout}.
 */
final class GitHttpBackend implements HttpHandler, AutoCloseable {

  private static final int MAX_HEADER_BYTES = 64 * 1024;
  private static final Set<String> NOT_PASSED =
      Set.of(
          "authorization",
          "connection",
          "transfer-encoding",
          "content-type",
          "content-length",
          "git-protocol");

  private final Path projectRoot;
  private final Path log;
  private final Duration timeout;
  private final ExecutorService pumps =
      Executors.newCachedThreadPool(
          runnable -> {
            Thread thread = new Thread(runnable, "git-http-backend-io");
            thread.setDaemon(true);
            return thread;
          });
  private final ScheduledExecutorService watchdog =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "git-http-backend-watchdog");
            thread.setDaemon(true);
            return thread;
          });

  GitHttpBackend(Path projectRoot, Path log, Duration timeout) {
    this.projectRoot = projectRoot;
    this.log = log;
    this.timeout = timeout;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      Process process = start(exchange);
      ScheduledFuture<?> kill =
          watchdog.schedule(process::destroyForcibly, timeout.toMillis(), TimeUnit.MILLISECONDS);
      try {
        Future<?> stdin =
            pumps.submit(() -> copyAndClose(exchange.getRequestBody(), process.getOutputStream()));
        Future<?> stderr = pumps.submit(() -> appendLog(exchange, process.getErrorStream()));
        respond(exchange, process.getInputStream());
        await(process, stdin, stderr);
      } finally {
        kill.cancel(false);
        process.destroyForcibly();
      }
    }
  }

  private Process start(HttpExchange exchange) throws IOException {
    ProcessBuilder builder =
        new ProcessBuilder(
            GitCli.git(), "-c", "safe.directory=*", "-c", "http.receivepack=true", "http-backend");
    Map<String, String> env = builder.environment();
    env.keySet().removeIf(name -> name.startsWith("GIT_"));
    env.putAll(GitCli.isolatedEnv(projectRoot));
    env.putAll(cgiEnvironment(exchange));
    return builder.directory(projectRoot.toFile()).start();
  }

  /** The CGI variables for one request; the user is the one the server's authenticator accepted. */
  Map<String, String> cgiEnvironment(HttpExchange exchange) {
    Map<String, String> env = new HashMap<>();
    env.put("GIT_PROJECT_ROOT", projectRoot.toString());
    env.put("GIT_HTTP_EXPORT_ALL", "1");
    env.put("GATEWAY_INTERFACE", "CGI/1.1");
    env.put("SERVER_PROTOCOL", exchange.getProtocol());
    env.put("REQUEST_METHOD", exchange.getRequestMethod());
    env.put("PATH_INFO", exchange.getRequestURI().getPath());
    env.put(
        "QUERY_STRING",
        exchange.getRequestURI().getRawQuery() == null
            ? ""
            : exchange.getRequestURI().getRawQuery());
    env.put("REMOTE_ADDR", exchange.getRemoteAddress().getAddress().getHostAddress());
    putHeader(env, "CONTENT_TYPE", exchange.getRequestHeaders().getFirst("Content-Type"));
    putHeader(env, "CONTENT_LENGTH", exchange.getRequestHeaders().getFirst("Content-Length"));
    putHeader(env, "GIT_PROTOCOL", exchange.getRequestHeaders().getFirst("Git-Protocol"));
    if (exchange.getPrincipal() != null) {
      env.put("REMOTE_USER", exchange.getPrincipal().getUsername());
      env.put("AUTH_TYPE", "Basic");
    }
    exchange
        .getRequestHeaders()
        .forEach(
            (name, values) -> {
              if (!NOT_PASSED.contains(name.toLowerCase(Locale.ROOT))) {
                env.put(
                    "HTTP_" + name.toUpperCase(Locale.ROOT).replace('-', '_'),
                    String.join(", ", values));
              }
            });
    return env;
  }

  private static void putHeader(Map<String, String> env, String name, String value) {
    if (value != null) {
      env.put(name, value);
    }
  }

  /**
   * A CGI response head: {@code Status:} (default 200), {@code Content-Length} (-1 when absent),
   * other headers.
   */
  record CgiHead(int status, long contentLength, List<String[]> headers) {

    static CgiHead parse(List<String> lines) throws IOException {
      int status = 200;
      long length = -1;
      List<String[]> headers = new ArrayList<>();
      for (String line : lines) {
        int colon = line.indexOf(':');
        if (colon <= 0) {
          throw new IOException("malformed CGI header line from git http-backend: " + line);
        }
        String name = line.substring(0, colon).trim();
        String value = line.substring(colon + 1).trim();
        if (name.equalsIgnoreCase("Status")) {
          status = Integer.parseInt(value.split(" ", 2)[0]);
        } else if (name.equalsIgnoreCase("Content-Length")) {
          length = Long.parseLong(value);
        } else {
          headers.add(new String[] {name, value});
        }
      }
      return new CgiHead(status, length, List.copyOf(headers));
    }

    /**
     * The length argument of {@link HttpExchange#sendResponseHeaders}: 0 = chunked, -1 = no body.
     */
    long exchangeLength(String method) {
      boolean noBody =
          "HEAD".equals(method) || status == 204 || status == 304 || contentLength == 0;
      return noBody ? -1 : Math.max(contentLength, 0);
    }
  }

  /**
   * Sends the CGI response; a CGI that ends before a complete head (it crashed, or refused the
   * request without a response) is a 502 Bad Gateway, as a web server answers for a broken CGI
   * program.
   */
  private void respond(HttpExchange exchange, InputStream cgiOut) throws IOException {
    CgiHead head;
    try {
      head = CgiHead.parse(headerLines(cgiOut));
    } catch (IOException | NumberFormatException e) {
      appendLog(exchange, "bad CGI response: " + e.getMessage() + "\n");
      exchange.sendResponseHeaders(502, -1);
      return;
    }
    head.headers().forEach(h -> exchange.getResponseHeaders().add(h[0], h[1]));
    exchange.sendResponseHeaders(head.status(), head.exchangeLength(exchange.getRequestMethod()));
    try (OutputStream body = exchange.getResponseBody()) {
      cgiOut.transferTo(body);
    }
  }

  /** The header lines up to the first empty line (CRLF or LF endings), bounded to 64 KiB. */
  static List<String> headerLines(InputStream in) throws IOException {
    List<String> lines = new ArrayList<>();
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int total = 0;
    for (int b = in.read(); b != -1; b = in.read()) {
      if (++total > MAX_HEADER_BYTES) {
        throw new IOException(
            "CGI header block from git http-backend exceeds " + MAX_HEADER_BYTES + " bytes");
      }
      if (b == '\n') {
        String text = line.toString(StandardCharsets.ISO_8859_1);
        text = text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
        if (text.isEmpty()) {
          return lines;
        }
        lines.add(text);
        line.reset();
      } else {
        line.write(b);
      }
    }
    throw new IOException("git http-backend ended before the end of its CGI headers: " + lines);
  }

  private void await(Process process, Future<?> stdin, Future<?> stderr) throws IOException {
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IOException(
            "git http-backend did not finish within " + timeout.toSeconds() + "s");
      }
      stdin.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      stderr.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for git http-backend", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IOException("git http-backend I/O failed: " + e.getMessage(), e);
    }
  }

  /**
   * Request body to the CGI's stdin; a CGI may answer without reading it all, so a closed pipe is
   * fine.
   */
  private static Void copyAndClose(InputStream from, OutputStream to) {
    try (to) {
      from.transferTo(to);
    } catch (IOException closedByTheCgi) {
      // the response tells the client what went wrong
    }
    return null;
  }

  private Void appendLog(HttpExchange exchange, InputStream stderr) throws IOException {
    String text = new String(stderr.readAllBytes(), StandardCharsets.UTF_8);
    if (!text.isEmpty()) {
      appendLog(exchange, text);
    }
    return null;
  }

  private synchronized void appendLog(HttpExchange exchange, String text) throws IOException {
    Files.writeString(
        log,
        exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath() + "\n" + text,
        StandardCharsets.UTF_8,
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
  }

  @Override
  public void close() {
    pumps.shutdownNow();
    watchdog.shutdownNow();
  }
}
