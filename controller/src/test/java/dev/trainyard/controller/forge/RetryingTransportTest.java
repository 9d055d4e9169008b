package dev.trainyard.controller.forge;

import static dev.trainyard.controller.forge.ForgeFixture.SHA;
import static dev.trainyard.controller.forge.ForgeFixture.T0;
import static dev.trainyard.controller.forge.ForgeFixture.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.controller.forge.FakeForge.Fault;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The transport against the fake forge's documented failure shapes, on a test clock: no call ever
 * waits for a rate limit (the only waits are the 1 s and 2 s between attempts after a 5xx or a
 * refused connection); a limit or an outage closes the forge's gate instead, and calls behind a
 * closed gate send nothing.
 */
class RetryingTransportTest {

  final ForgeFixture f = new ForgeFixture();
  static final CommitRef GH = new CommitRef("acme/llm", SHA);
  static final HttpCall CALL =
      new HttpCall("POST", URI.create("http://127.0.0.1:9/x"), Map.of(), "{}");

  @AfterEach
  void close() {
    f.close();
  }

  @Test
  @DisplayName(
      "500 then 502 are retried in the call with 1 s then 2 s back-off, and the status arrives exactly once")
  void serverErrors() throws Exception {
    f.forge.script(Fault.status(500), Fault.status(502));
    f.github().post(GH, status(CommitState.SUCCESS, "succeeded"));
    assertEquals(1, f.forge.accepted().size());
    assertEquals(3, f.forge.requests());
    assertEquals(List.of(Duration.ofSeconds(1), Duration.ofSeconds(2)), f.time.waits());
    assertEquals(List.of("github:retry:5xx", "github:retry:5xx"), f.events.lines);
  }

  @Test
  @DisplayName(
      "429 with Retry-After 900: no wait in the call; RATE_LIMITED with 900 s, and the gate sends nothing until then")
  void retryAfterClosesTheGate() throws Exception {
    Forge gh = f.github();
    f.forge.script(Fault.retryAfter(900));
    ForgeException e =
        assertThrows(
            ForgeException.class, () -> gh.post(GH, status(CommitState.PENDING, "queued")));
    assertEquals(ForgeException.Kind.RATE_LIMITED, e.kind());
    assertEquals(429, e.httpStatus());
    assertEquals(Optional.of(Duration.ofSeconds(900)), e.retryAfter());
    assertTrue(e.sent());
    assertTrue(
        e.getMessage().contains("HTTP 429 rate limit (Retry-After 900); no call to github at "),
        e.getMessage());
    assertEquals(List.of(), f.time.waits(), "the worker never sleeps for a limit");
    assertEquals(List.of("github:retry:rate-limit"), f.events.lines);

    f.time.sleep(Duration.ofSeconds(899));
    ForgeException gated = assertThrows(ForgeException.class, () -> gh.current(GH, "ctx"));
    assertFalse(gated.sent());
    assertEquals(ForgeException.Kind.RATE_LIMITED, gated.kind());
    assertEquals(Optional.of(Duration.ofSeconds(1)), gated.retryAfter());
    assertTrue(gated.getMessage().contains(": not sent, github at 127.0.0.1:"), gated.getMessage());
    assertTrue(
        gated.getMessage().contains(" is rate limited until 2026-12-01T08:15:00Z"),
        gated.getMessage());
    assertEquals(1, f.forge.requests(), "nothing sent while limited");

    f.time.sleep(Duration.ofSeconds(1));
    gh.post(GH, status(CommitState.PENDING, "queued"));
    assertEquals(1, f.forge.accepted().size());
  }

  @Test
  @DisplayName("the gate is the forge's own: another forge's client sends while GitHub's is closed")
  void gatePerForge() throws Exception {
    Forge gh = f.github();
    Forge gitea = f.gitea();
    f.forge.script(Fault.retryAfter(900));
    assertThrows(ForgeException.class, () -> gh.post(GH, status(CommitState.PENDING, "queued")));
    assertEquals(Forge.PostOutcome.POSTED, gitea.post(GH, status(CommitState.PENDING, "queued")));
    assertEquals(
        List.of("gitea"), f.forge.accepted().stream().map(FakeForge.Accepted::forge).toList());
  }

  @Test
  @DisplayName(
      "403 with X-RateLimit-Remaining 0 is a limit until X-RateLimit-Reset (plus 1 s), by the injected clock")
  void rateLimitReset() {
    f.forge.script(Fault.rateLimited(T0.getEpochSecond() + 30));
    ForgeException e =
        assertThrows(
            ForgeException.class, () -> f.github().post(GH, status(CommitState.PENDING, "queued")));
    assertEquals(ForgeException.Kind.RATE_LIMITED, e.kind());
    assertEquals(Optional.of(Duration.ofSeconds(31)), e.retryAfter());
    assertTrue(
        e.getMessage().contains("X-RateLimit-Reset " + (T0.getEpochSecond() + 30)), e.getMessage());
    assertEquals(List.of(), f.time.waits());
  }

  @Test
  @DisplayName("a reset already past waits 1 s")
  void resetInThePast() {
    f.forge.script(Fault.rateLimited(T0.getEpochSecond() - 100));
    ForgeException e =
        assertThrows(
            ForgeException.class, () -> f.github().post(GH, status(CommitState.PENDING, "queued")));
    assertEquals(Optional.of(Duration.ofSeconds(1)), e.retryAfter());
  }

  @Test
  @DisplayName(
      "GitHub's secondary limit as a bare 403 (no header, documented body) is a limit of 60 s, doubling while it repeats; never 'lacks permission'")
  void secondaryLimitBare403() throws Exception {
    Forge gh = f.github();
    f.forge.script(Fault.secondaryLimit(), Fault.secondaryLimit(), Fault.secondaryLimit());
    List<Long> waits = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ForgeException e =
          assertThrows(ForgeException.class, () -> gh.post(GH, status(CommitState.PENDING, "q")));
      assertEquals(ForgeException.Kind.RATE_LIMITED, e.kind(), e.getMessage());
      assertEquals(403, e.httpStatus());
      assertFalse(e.getMessage().contains("lacks permission"), e.getMessage());
      assertTrue(
          e.getMessage()
              .contains("no wait named, {\"message\":\"You have exceeded a secondary rate limit"),
          e.getMessage());
      waits.add(e.retryAfter().orElseThrow().toSeconds());
      f.time.sleep(e.retryAfter().orElseThrow());
    }
    assertEquals(
        List.of(60L, 120L, 240L),
        waits,
        "at least a minute, then exponential back-off (GitHub's rule)");
    gh.post(GH, status(CommitState.PENDING, "q"));
    f.forge.script(Fault.secondaryLimit());
    ForgeException again =
        assertThrows(ForgeException.class, () -> gh.post(GH, status(CommitState.RUNNING, "r")));
    assertEquals(
        Optional.of(Duration.ofSeconds(60)),
        again.retryAfter(),
        "a success starts the back-off afresh");
    assertEquals(4, f.events.lines.stream().filter("github:retry:rate-limit"::equals).count());
  }

  @Test
  @DisplayName(
      "a bare 403 without rate-limit words is a permission error at once: one request, no wait, no gate")
  void bareForbidden() throws Exception {
    Forge gh = f.github();
    f.forge.script(Fault.bareForbidden());
    ForgeException e =
        assertThrows(
            ForgeException.class, () -> gh.post(GH, status(CommitState.PENDING, "queued")));
    assertEquals(ForgeException.Kind.PERMISSION, e.kind());
    assertEquals(403, e.httpStatus());
    assertEquals(1, f.forge.requests());
    assertEquals(List.of(), f.time.waits());
    assertEquals(List.of(), f.forge.accepted());
    assertFalse(e.getMessage().contains(FakeForge.GITHUB_TOKEN));
    assertTrue(
        e.getMessage().startsWith("POST /github/repos/acme/llm/statuses/" + SHA + ": HTTP 403"),
        e.getMessage());
    assertTrue(e.getMessage().contains("the token lacks permission"), e.getMessage());
    gh.post(GH, status(CommitState.PENDING, "queued"));
    assertEquals(1, f.forge.accepted().size(), "a refusal closes no gate");
  }

  @Test
  @DisplayName(
      "a 401 is a permission error saying the token is invalid or expired, not that it lacks permission")
  void unauthorized() {
    f.forge.script(Fault.status(401));
    ForgeException e =
        assertThrows(
            ForgeException.class, () -> f.github().post(GH, status(CommitState.PENDING, "queued")));
    assertEquals(ForgeException.Kind.PERMISSION, e.kind());
    assertEquals(401, e.httpStatus());
    assertTrue(
        e.getMessage().contains(": HTTP 401, the token is invalid or expired"), e.getMessage());
    assertFalse(e.getMessage().contains("lacks permission"), e.getMessage());
  }

  @Test
  @DisplayName(
      "a stalled forge times out once: UNAVAILABLE at once (no second timeout in the worker), gate closed 1 s")
  void stall() throws Exception {
    try (ForgeFixture quick = new ForgeFixture(Duration.ofMillis(300))) {
      Forge gh = quick.github();
      quick.forge.script(Fault.stall(Duration.ofSeconds(2)));
      ForgeException e =
          assertThrows(ForgeException.class, () -> gh.post(GH, status(CommitState.RUNNING, "r")));
      assertEquals(ForgeException.Kind.UNAVAILABLE, e.kind());
      assertTrue(
          e.getMessage().contains("no answer within the request timeout; no call to github at"),
          e.getMessage());
      assertEquals(Optional.of(Duration.ofSeconds(1)), e.retryAfter());
      assertEquals(List.of("github:retry:timeout"), quick.events.lines);
      assertEquals(List.of(), quick.time.waits());
      quick.time.sleep(Duration.ofSeconds(1));
      gh.post(GH, status(CommitState.RUNNING, "r"));
      assertEquals(1, quick.forge.accepted().size());
    }
  }

  @Test
  @DisplayName(
      "three 502s in a row: UNAVAILABLE after 3 requests and 1 s, 2 s of back-off; the gate then closes 1 s, 2 s, 4 s ... per failing call")
  void givesUp() {
    Forge gh = f.github();
    f.forge.always(Fault.status(502));
    List<Long> gates = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ForgeException e =
          assertThrows(ForgeException.class, () -> gh.post(GH, status(CommitState.PENDING, "q")));
      assertEquals(ForgeException.Kind.UNAVAILABLE, e.kind());
      assertEquals(502, e.httpStatus());
      assertTrue(e.getMessage().contains("gave up after 3 attempts (HTTP 502)"), e.getMessage());
      gates.add(e.retryAfter().orElseThrow().toSeconds());
      f.time.sleep(e.retryAfter().orElseThrow());
    }
    assertEquals(9, f.forge.requests());
    assertEquals(List.of(1L, 2L, 4L), gates);
    assertEquals(
        List.of(1L, 2L, 1L, 1L, 2L, 2L, 1L, 2L, 4L),
        f.time.waits().stream().map(Duration::toSeconds).toList(),
        "1 s and 2 s in each call, then the gate's waits (slept by the test here, not by the worker)");
  }

  @Test
  @DisplayName(
      "a refused connection is retried in the call after 1 s; no answer at all is UNAVAILABLE with the exception named")
  void refusedConnection() throws Exception {
    List<Object> answers =
        new ArrayList<>(List.of(new ConnectException("refused"), answer(201, Map.of())));
    RetryingTransport t =
        new RetryingTransport(
            c -> {
              Object next = answers.remove(0);
              if (next instanceof ConnectException e) {
                throw e;
              }
              return (HttpAnswer) next;
            },
            RetryPolicy.standard(),
            f.time,
            f.time,
            f.events);
    t.send("github", new ForgeGate("github at x"), CALL);
    assertEquals(List.of(Duration.ofSeconds(1)), f.time.waits());
    assertEquals(List.of("github:retry:connection"), f.events.lines);
    RetryingTransport down =
        new RetryingTransport(
            c -> {
              throw new ConnectException("refused");
            },
            RetryPolicy.standard(),
            f.time,
            f.time,
            f.events);
    ForgeException e =
        assertThrows(ForgeException.class, () -> down.send("github", new ForgeGate("g"), CALL));
    assertTrue(
        e.getMessage().contains("gave up after 3 attempts (no response: ConnectException)"),
        e.getMessage());
  }

  @Test
  @DisplayName(
      "a TLS failure says TLS and how to trust a private CA; no retry in the call, the gate closes")
  void tlsFailure() throws Exception {
    // A server that answers a TLS ClientHello with plain text: the handshake fails as with any TLS
    // mistake.
    try (ServerSocket plain = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
      Thread answer =
          new Thread(
              () -> {
                try (Socket s = plain.accept()) {
                  s.getOutputStream()
                      .write(
                          "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"
                              .getBytes(StandardCharsets.US_ASCII));
                  s.getOutputStream().flush();
                  s.getInputStream().read(new byte[4096]);
                } catch (IOException ignored) {
                  // the client hung up
                }
              });
      answer.setDaemon(true);
      answer.start();
      Forge gh =
          CommitStatusApi.github(
              URI.create("https://127.0.0.1:" + plain.getLocalPort()),
              new Token(FakeForge.GITHUB_TOKEN),
              f.http);
      ForgeException e =
          assertThrows(ForgeException.class, () -> gh.post(GH, status(CommitState.PENDING, "q")));
      assertEquals(ForgeException.Kind.UNAVAILABLE, e.kind());
      assertTrue(e.getMessage().contains(": TLS with 127.0.0.1 failed ("), e.getMessage());
      assertTrue(e.getMessage().contains("-Djavax.net.ssl.trustStore"), e.getMessage());
      assertEquals(List.of("github:retry:tls"), f.events.lines);
      assertEquals(List.of(), f.time.waits());
    }
    assertTrue(RetryingTransport.tls(new IOException("x", new SSLHandshakeException("PKIX"))));
    assertFalse(RetryingTransport.tls(new IOException("x", new ConnectException("refused"))));
    assertEquals(
        "PKIX path building failed",
        RetryingTransport.rootMessage(
            new IOException(
                "outer",
                new RuntimeException(
                    "middle", new SSLHandshakeException("PKIX path building failed")))));
  }

  @Test
  @DisplayName("a Retry-After of an hour is honoured; a longer one is capped at an hour")
  void longRetryAfter() {
    Forge gh = f.github();
    f.forge.script(Fault.retryAfter(3600));
    ForgeException e =
        assertThrows(ForgeException.class, () -> gh.post(GH, status(CommitState.PENDING, "q")));
    assertEquals(Optional.of(Duration.ofHours(1)), e.retryAfter());
    f.time.sleep(Duration.ofHours(1));
    f.forge.script(Fault.retryAfter(99_999_999));
    e = assertThrows(ForgeException.class, () -> gh.post(GH, status(CommitState.PENDING, "q")));
    assertEquals(Optional.of(Duration.ofHours(1)), e.retryAfter());
    assertEquals(List.of(Duration.ofHours(1)), f.time.waits(), "only the test's own sleep");
  }

  @Test
  @DisplayName("a 422 is REJECTED without retry, quotes the forge's error and closes no gate")
  void rejected() throws Exception {
    Forge gh = f.github();
    ForgeException e =
        assertThrows(
            ForgeException.class,
            () -> gh.post(new CommitRef("acme/llm", "nope"), status(CommitState.PENDING, "x")));
    assertEquals(ForgeException.Kind.REJECTED, e.kind());
    assertEquals(422, e.httpStatus());
    assertTrue(e.getMessage().contains("No commit found for SHA"), e.getMessage());
    assertEquals(1, f.forge.requests());
    gh.post(GH, status(CommitState.PENDING, "x"));
    assertEquals(1, f.forge.accepted().size());
  }

  @Test
  @DisplayName(
      "what counts as a rate limit: 429; 403 with Retry-After, remaining 0, 'rate limit' or 'abuse detection' in the body")
  void rateLimitedShapes() {
    assertTrue(RetryingTransport.rateLimited(answer(429, Map.of())));
    assertTrue(RetryingTransport.rateLimited(answer(403, Map.of("Retry-After", "5"))));
    assertTrue(RetryingTransport.rateLimited(answer(403, Map.of("X-RateLimit-Remaining", "0"))));
    assertTrue(
        RetryingTransport.rateLimited(
            new HttpAnswer(
                403, Map.of(), "{\"message\":\"API rate limit exceeded for user ID 1.\"}")));
    assertTrue(
        RetryingTransport.rateLimited(
            new HttpAnswer(403, Map.of(), "You have triggered an abuse detection mechanism")));
    assertFalse(
        RetryingTransport.rateLimited(
            new HttpAnswer(
                403, Map.of(), "{\"message\":\"Resource not accessible by integration\"}")));
    assertFalse(RetryingTransport.rateLimited(answer(403, Map.of("X-RateLimit-Remaining", "4"))));
    assertFalse(RetryingTransport.rateLimited(new HttpAnswer(404, Map.of(), "rate limit")));
    assertFalse(RetryingTransport.rateLimited(answer(500, Map.of("Retry-After", "5"))));
  }

  @Test
  @DisplayName(
      "Retry-After as an HTTP date or seconds; garbled or no reset names no wait (the silent back-off applies)")
  void limitWaits() {
    RetryingTransport t =
        new RetryingTransport(c -> null, RetryPolicy.standard(), f.time, f.time, f.events);
    String date =
        DateTimeFormatter.RFC_1123_DATE_TIME.format(T0.plusSeconds(90).atZone(ZoneOffset.UTC));
    assertEquals(
        Duration.ofSeconds(90),
        t.limitWait(answer(429, Map.of("Retry-After", date))).orElseThrow());
    assertEquals(
        Duration.ZERO,
        t.limitWait(
                answer(
                    429,
                    Map.of(
                        "Retry-After",
                        DateTimeFormatter.RFC_1123_DATE_TIME.format(
                            T0.minusSeconds(5).atZone(ZoneOffset.UTC)))))
            .orElseThrow());
    assertTrue(t.limitWait(answer(429, Map.of("Retry-After", "soon"))).isEmpty());
    assertEquals(
        Duration.ZERO, t.limitWait(answer(429, Map.of("Retry-After", "-3"))).orElseThrow());
    assertTrue(t.limitWait(answer(403, Map.of("X-RateLimit-Remaining", "4"))).isEmpty());
    assertTrue(t.limitWait(answer(403, Map.of("X-RateLimit-Remaining", "0"))).isEmpty());
    assertTrue(
        t.limitWait(answer(403, Map.of("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "x")))
            .isEmpty());
    assertTrue(
        t.limitWait(answer(403, Map.of("X-RateLimit-Remaining", "3", "X-RateLimit-Reset", "99")))
            .isEmpty());
  }

  @Test
  @DisplayName("a 429 without headers is a 60-s limit")
  void silent429() {
    RetryingTransport t =
        new RetryingTransport(
            c -> answer(429, Map.of()), RetryPolicy.standard(), f.time, f.time, f.events);
    ForgeException e =
        assertThrows(ForgeException.class, () -> t.send("github", new ForgeGate("g"), CALL));
    assertEquals(Optional.of(Duration.ofSeconds(60)), e.retryAfter());
    assertEquals(List.of(), f.time.waits());
  }

  @Test
  @DisplayName(
      "an interrupted wait stops the call as UNAVAILABLE and keeps the interrupt flag; so does an interrupted send")
  void interrupted() {
    RetryingTransport t =
        new RetryingTransport(
            c -> answer(500, Map.of()),
            RetryPolicy.standard(),
            f.time,
            d -> {
              throw new InterruptedException();
            },
            f.events);
    ForgeException e =
        assertThrows(ForgeException.class, () -> t.send("github", new ForgeGate("g"), CALL));
    assertEquals(ForgeException.Kind.UNAVAILABLE, e.kind());
    assertTrue(Thread.interrupted());
    RetryingTransport sending =
        new RetryingTransport(
            c -> {
              throw new InterruptedException();
            },
            RetryPolicy.standard(),
            f.time,
            f.time,
            f.events);
    assertThrows(ForgeException.class, () -> sending.send("github", new ForgeGate("g"), CALL));
    assertTrue(Thread.interrupted());
  }

  @Test
  @DisplayName("a 3xx is not success")
  void bounds() {
    assertFalse(new HttpAnswer(300, Map.of(), "").ok());
    assertTrue(new HttpAnswer(299, Map.of(), "").ok());
    assertTrue(new HttpAnswer(200, Map.of(), "").ok());
    assertFalse(new HttpAnswer(199, Map.of(), "").ok());
  }

  @Test
  @DisplayName("error bodies are quoted on one line, cut after 200 characters")
  void excerpt() {
    assertEquals("a b", Excerpt.of(" a\n  b "));
    assertEquals("x".repeat(200), Excerpt.of("x".repeat(200)));
    assertEquals("x".repeat(200) + "...", Excerpt.of("x".repeat(201)));
    assertEquals("", Excerpt.of(null));
    assertEquals("", new PostedStatus("pending", null, null).description());
  }

  @Test
  @DisplayName(
      "back-offs: 1 s doubling to 5 min; silent limits 60 s doubling to 1 h; a named wait capped at 1 h")
  void backoff() {
    RetryPolicy p = RetryPolicy.standard();
    assertEquals(Duration.ofSeconds(1), p.backoff(1));
    assertEquals(Duration.ofSeconds(2), p.backoff(2));
    assertEquals(Duration.ofSeconds(256), p.backoff(9));
    assertEquals(Duration.ofMinutes(5), p.backoff(10));
    assertEquals(Duration.ofMinutes(5), p.backoff(40));
    assertEquals(Duration.ofSeconds(60), p.limitBackoff(1));
    assertEquals(Duration.ofSeconds(1920), p.limitBackoff(6));
    assertEquals(Duration.ofHours(1), p.limitBackoff(7));
    assertEquals(Duration.ofMinutes(15), p.limitWait(Duration.ofMinutes(15)));
    assertEquals(Duration.ofHours(1), p.limitWait(Duration.ofHours(1)));
    assertEquals(Duration.ofHours(1), p.limitWait(Duration.ofHours(2)));
  }

  private static HttpAnswer answer(int status, Map<String, String> headers) {
    Map<String, List<String>> h = new TreeMap<>();
    headers.forEach((k, v) -> h.put(k, List.of(v)));
    return new HttpAnswer(status, h, "");
  }
}
