package dev.trainyard.compiler.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A fault-injecting HTTP/1.1 proxy on 127.0.0.1 in front of a git smart-HTTP server ({@link
 * GitCgiServer}), for {@code cli.GitFaultTest} and {@code gitops.PublishFaultTest}: every request
 * is forwarded on a connection of its own ({@code Connection: close} both ways, RFC 9112 §9.6), so
 * each one can be counted and, when a rule matches, broken the way a load balancer or a busy forge
 * breaks it:
 *
 * <ul>
 *   <li>{@link Fault#RESET_DURING_UPLOAD}: half of the first read of the request body reaches the
 *       server, then both connections are reset (TCP RST); the server never sees a whole pack;
 *   <li>{@link Fault#RESET_DURING_DOWNLOAD}: the request is served, half of the answer reaches the
 *       client, then its connection is reset (a fetch cut in the middle of the pack);
 *   <li>{@link Fault#RESET_AFTER_STORED}: the whole request is served (receive-pack stored the pack
 *       and moved the ref), then the client's connection is reset instead of the answer;
 *   <li>{@link Fault#ERROR_AFTER_STORED}: the same, but the client gets {@code 500 Internal Server
 *       Error};
 *   <li>{@link Fault#STALL}: the request is read, held for the stall time, then served (also when
 *       the client has given up meanwhile: a slow server still finishes what it got);
 *   <li>{@link Fault#UNAUTHORIZED}: {@code 401} with a {@code WWW-Authenticate: Basic} challenge
 *       (RFC 9110 §11.6.1), the server is not asked.
 * </ul>
 *
 * Every socket read is bounded (2 minutes), a stall ends early on {@link #close()}.
 *
 * <pre>
 * try (FaultProxy proxy = new FaultProxy(server.port(), Duration.ofSeconds(30))) {
 *   proxy.inject(FaultProxy.Request::receivePackPost, FaultProxy.Fault.ERROR_AFTER_STORED, 1);
 *   String url = proxy.url("gitops.git");
 * }
 * </pre>
 */
public final class FaultProxy implements AutoCloseable {
  private static final int READ_TIMEOUT_MILLIS = 120_000;

  /** What to do to a matching request. */
  public enum Fault {
    RESET_DURING_UPLOAD,
    RESET_DURING_DOWNLOAD,
    RESET_AFTER_STORED,
    ERROR_AFTER_STORED,
    STALL,
    UNAUTHORIZED
  }

  /**
   * One request as the proxy saw it.
   *
   * @param index 1 for the first request since the proxy started, counting all
   * @param method {@code GET} or {@code POST}
   * @param target the request target, e.g. {@code /gitops.git/info/refs?service=git-upload-pack}
   */
  public record Request(int index, String method, String target) {
    /** The POST that carries a push's pack (git-http-backend(1): {@code git-receive-pack}). */
    public boolean receivePackPost() {
      return method.equals("POST") && target.endsWith("/git-receive-pack");
    }

    /** Any request of a push (the ref advertisement or the pack). */
    public boolean receivePack() {
      return target.contains("git-receive-pack");
    }
  }

  private record Rule(Predicate<Request> when, Fault fault, AtomicInteger left) {}

  private final ServerSocket listener;
  private final int upstreamPort;
  private volatile Duration stall;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final List<Rule> rules = new ArrayList<>();
  private final List<String> log = new ArrayList<>();
  private final List<Request> handled = new ArrayList<>();
  private final AtomicInteger requests = new AtomicInteger();
  private final AtomicInteger busy = new AtomicInteger();
  private final CountDownLatch closed = new CountDownLatch(1);

  /**
   * @param upstreamPort the git server's port on 127.0.0.1
   * @param stall how long {@link Fault#STALL} holds a request
   */
  public FaultProxy(int upstreamPort, Duration stall) throws IOException {
    this.upstreamPort = upstreamPort;
    this.stall = stall;
    listener = new ServerSocket();
    listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    threads.execute(this::accept);
  }

  /** {@code http://127.0.0.1:PORT/NAME}. */
  public String url(String name) {
    return "http://127.0.0.1:" + listener.getLocalPort() + "/" + name;
  }

  /** From now on {@link Fault#STALL} holds a request for {@code stall}. */
  public void stall(Duration stall) {
    this.stall = stall;
  }

  /** Breaks the next {@code times} requests that {@code when} matches with {@code fault}. */
  public synchronized void inject(Predicate<Request> when, Fault fault, int times) {
    rules.add(new Rule(when, fault, new AtomicInteger(times)));
  }

  /**
   * Breaks the next push's pack upload ({@link Request#receivePackPost()}) with {@code fault}; the
   * requests before it, and the push tried again after it, are forwarded.
   */
  public void failNextPush(Fault fault) {
    inject(Request::receivePackPost, fault, 1);
  }

  /**
   * Holds each of the next {@code times} fetch requests ({@code git-upload-pack}: the ref
   * advertisement and the pack) for {@code stall}, then serves it.
   */
  public void stallFetches(Duration stall, int times) {
    stall(stall);
    inject(r -> r.target().contains("git-upload-pack"), Fault.STALL, times);
  }

  /**
   * How many push packs ({@link Request#receivePackPost()}) the proxy has handled so far, broken or
   * forwarded.
   */
  public synchronized long pushes() {
    return handled.stream().filter(Request::receivePackPost).count();
  }

  /** Counts requests from 1 again ({@link Request#index()}). */
  public void resetCount() {
    requests.set(0);
  }

  /** Every request so far, "INDEX METHOD TARGET -> what happened", in order of arrival. */
  public synchronized List<String> log() {
    return List.copyOf(log);
  }

  /** Waits, at most {@code limit}, until no request is being handled; whether that happened. */
  public boolean awaitIdle(Duration limit) throws InterruptedException {
    long until = System.nanoTime() + limit.toNanos();
    while (busy.get() > 0 && System.nanoTime() < until) {
      TimeUnit.MILLISECONDS.sleep(50);
    }
    return busy.get() == 0;
  }

  private synchronized Fault faultFor(Request r) {
    for (Rule rule : rules) {
      if (rule.left.get() > 0 && rule.when.test(r)) {
        rule.left.decrementAndGet();
        return rule.fault;
      }
    }
    return null;
  }

  private synchronized void record(Request r, String what) {
    log.add(r.index() + " " + r.method() + " " + r.target() + " -> " + what);
    handled.add(r);
  }

  private void accept() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        busy.incrementAndGet();
        threads.execute(
            () -> {
              try (client) {
                handle(client);
              } catch (IOException e) {
                // The client or the server went away: what the fault wanted, or the test ended.
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } finally {
                busy.decrementAndGet();
              }
            });
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void handle(Socket client) throws IOException, InterruptedException {
    client.setSoTimeout(READ_TIMEOUT_MILLIS);
    InputStream in = client.getInputStream();
    List<String> head = readHead(in);
    if (head.isEmpty()) {
      return;
    }
    String[] line = head.get(0).split(" ", 3);
    Request request = new Request(requests.incrementAndGet(), line[0], line[1]);
    Fault fault = faultFor(request);
    OutputStream toClient = client.getOutputStream();
    if (fault == Fault.UNAUTHORIZED) {
      drainBody(head, in, OutputStream.nullOutputStream());
      toClient.write(
          ("HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"gitops\"\r\n"
                  + "Content-Length: 0\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.ISO_8859_1));
      toClient.flush();
      record(request, "401 (fault)");
      return;
    }
    try (Socket upstream = new Socket(InetAddress.getLoopbackAddress(), upstreamPort)) {
      upstream.setSoTimeout(READ_TIMEOUT_MILLIS);
      OutputStream toServer = upstream.getOutputStream();
      byte[] forwardedHead = rewriteHead(head);
      if (fault == Fault.RESET_DURING_UPLOAD) {
        toServer.write(forwardedHead);
        byte[] first = new byte[65_536];
        int n = in.read(first);
        toServer.write(first, 0, Math.max(0, n / 2));
        toServer.flush();
        record(request, "reset after " + Math.max(0, n / 2) + " body bytes (fault)");
        reset(upstream);
        reset(client);
        return;
      }
      if (fault == Fault.STALL) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        drainBody(head, in, body);
        record(request, "stalled " + stall.toSeconds() + " s (fault)");
        closed.await(stall.toMillis(), TimeUnit.MILLISECONDS);
        toServer.write(forwardedHead);
        body.writeTo(toServer);
      } else {
        toServer.write(forwardedHead);
        drainBody(head, in, toServer);
      }
      toServer.flush();
      InputStream fromServer = upstream.getInputStream();
      if (fault == Fault.RESET_DURING_DOWNLOAD) {
        byte[] answer = fromServer.readAllBytes();
        toClient.write(answer, 0, answer.length / 2);
        toClient.flush();
        record(
            request,
            "sent " + answer.length / 2 + " of " + answer.length + " bytes, then reset (fault)");
        reset(client);
        return;
      }
      if (fault == Fault.RESET_AFTER_STORED || fault == Fault.ERROR_AFTER_STORED) {
        byte[] answer = fromServer.readAllBytes(); // the server is done: the pack is stored
        if (fault == Fault.RESET_AFTER_STORED) {
          record(request, "served (" + answer.length + " bytes), then reset (fault)");
          reset(client);
        } else {
          record(request, "served (" + answer.length + " bytes), answered 500 (fault)");
          toClient.write(
              ("HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\n"
                      + "Content-Length: 15\r\nConnection: close\r\n\r\ninternal error\n")
                  .getBytes(StandardCharsets.ISO_8859_1));
          toClient.flush();
        }
        return;
      }
      if (fault != Fault.STALL) {
        record(request, "forwarded");
      }
      // The answer says Connection: close too, so the client never reuses a connection this proxy
      // has closed (which it would report as a fault of its own).
      List<String> answer = readHead(fromServer);
      if (!answer.isEmpty()) {
        toClient.write(rewriteHead(answer));
      }
      fromServer.transferTo(toClient);
      toClient.flush();
    }
  }

  /** A request or response head with {@code Connection: close}: one request per connection. */
  private static byte[] rewriteHead(List<String> head) {
    StringBuilder b = new StringBuilder();
    for (String h : head) {
      String lower = h.toLowerCase(Locale.ROOT);
      if (!lower.startsWith("connection:") && !lower.startsWith("keep-alive:")) {
        b.append(h).append("\r\n");
      }
    }
    b.append("Connection: close\r\n\r\n");
    return b.toString().getBytes(StandardCharsets.ISO_8859_1);
  }

  /**
   * Copies the request body as framed ({@code Content-Length} or chunked, RFC 9112 §6-7) byte for
   * byte to {@code out}.
   */
  private static void drainBody(List<String> head, InputStream in, OutputStream out)
      throws IOException {
    String length = header(head, "content-length");
    if (length != null) {
      copy(in, out, Long.parseLong(length.trim()));
      return;
    }
    String encoding = header(head, "transfer-encoding");
    if (encoding == null || !encoding.toLowerCase(Locale.ROOT).contains("chunked")) {
      return;
    }
    while (true) {
      String size = readLine(in);
      out.write((size + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
      long n = Long.parseLong(size.split(";", 2)[0].trim(), 16);
      if (n == 0) {
        for (String trailer = readLine(in); !trailer.isEmpty(); trailer = readLine(in)) {
          out.write((trailer + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
        }
        out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
        return;
      }
      copy(in, out, n);
      out.write((readLine(in) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
    }
  }

  private static void copy(InputStream in, OutputStream out, long n) throws IOException {
    byte[] buffer = new byte[8192];
    for (long left = n; left > 0; ) {
      int r = in.read(buffer, 0, (int) Math.min(buffer.length, left));
      if (r < 0) {
        throw new IOException("the request body ended early");
      }
      out.write(buffer, 0, r);
      left -= r;
    }
  }

  private static String header(List<String> head, String name) {
    for (String h : head.subList(1, head.size())) {
      int colon = h.indexOf(':');
      if (colon > 0 && h.substring(0, colon).trim().equalsIgnoreCase(name)) {
        return h.substring(colon + 1).trim();
      }
    }
    return null;
  }

  /** The request line and header lines, without the blank line; empty when the client left. */
  private static List<String> readHead(InputStream in) throws IOException {
    List<String> lines = new ArrayList<>();
    int total = 0;
    for (String l = readLine(in); !l.isEmpty(); l = readLine(in)) {
      total += l.length();
      if (total > 65_536) {
        throw new IOException("request head too long");
      }
      lines.add(l);
    }
    return lines;
  }

  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b != -1 && b != '\n'; b = in.read()) {
      if (line.size() > 65_536) {
        throw new IOException("line too long");
      }
      line.write(b);
    }
    return line.toString(StandardCharsets.ISO_8859_1).replace("\r", "");
  }

  /** Closes with a TCP RST (SO_LINGER 0) rather than a FIN. */
  private static void reset(Socket s) throws IOException {
    s.setSoLinger(true, 0);
    s.close();
  }

  @Override
  public void close() {
    closed.countDown();
    try {
      listener.close();
    } catch (IOException e) {
      // Already closed.
    }
    threads.shutdownNow();
  }
}
