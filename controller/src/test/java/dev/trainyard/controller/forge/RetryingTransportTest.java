package dev.trainyard.controller.forge;

import static dev.trainyard.controller.forge.ForgeFixture.SHA;
import static dev.trainyard.controller.forge.ForgeFixture.T0;
import static dev.trainyard.controller.forge.ForgeFixture.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.controller.forge.FakeForge.Fault;
import java.net.URI;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class RetryingTransportTest {

  final ForgeFixture f = new ForgeFixture();
  static final CommitRef GH = new CommitRef("acme/llm", SHA);

  @AfterEach
  void close() {
    f.close();
  }

  @Test
  @DisplayName(
      "500 then 502 are retried with 1 s then 2 s back-off, and the status arrives exactly once")
  void serverErrors() throws Exception {
    f.forge.script(Fault.status(500), Fault.status(502));
    f.github().post(GH, status(CommitState.SUCCESS, "succeeded"));
    assertEquals(1, f.forge.accepted().size());
    assertEquals(3, f.forge.requests());
    assertEquals(List.of(Duration.ofSeconds(1), Duration.ofSeconds(2)), f.time.waits());
    assertEquals(List.of("github:retry:5xx", "github:retry:5xx"), f.events.lines);
  }

  @Test
  @DisplayName("429 with Retry-After waits exactly that many seconds")
  void retryAfter() throws Exception {
    f.forge.script(Fault.retryAfter(7));
    f.github().post(GH, status(CommitState.PENDING, "queued"));
    assertEquals(List.of(Duration.ofSeconds(7)), f.time.waits());
    assertEquals(1, f.forge.accepted().size());
    assertEquals(List.of("github:retry:rate-limit"), f.events.lines);
  }

  @Test
  @DisplayName(
      "403 with X-RateLimit-Remaining 0 waits until X-RateLimit-Reset (plus 1 s), by the injected clock")
  void rateLimitReset() throws Exception {
    f.forge.script(Fault.rateLimited(T0.getEpochSecond() + 30));
    f.github().post(GH, status(CommitState.PENDING, "queued"));
    assertEquals(List.of(Duration.ofSeconds(31)), f.time.waits());
    assertEquals(1, f.forge.accepted().size());
  }

  @Test
  @DisplayName("a reset already past waits 1 s")
  void resetInThePast() throws Exception {
    f.forge.script(Fault.rateLimited(T0.getEpochSecond() - 100));
    f.github().post(GH, status(CommitState.PENDING, "queued"));
    assertEquals(List.of(Duration.ofSeconds(1)), f.time.waits());
  }

  @Test
  @DisplayName("a bare 403 is a permission error at once: one request, no wait, no retry")
  void bareForbidden() {
    f.forge.script(Fault.bareForbidden());
    ForgeException e =
        assertThrows(
            ForgeException.class, () -> f.github().post(GH, status(CommitState.PENDING, "queued")));
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
  @DisplayName("a stalled forge times out and is retried; the status arrives once")
  void stall() throws Exception {
    try (ForgeFixture quick = new ForgeFixture(Duration.ofMillis(300))) {
      quick.forge.script(Fault.stall(Duration.ofSeconds(2)));
      quick.github().post(GH, status(CommitState.RUNNING, "running"));
      assertEquals(1, quick.forge.accepted().size());
      assertEquals(List.of("github:retry:timeout"), quick.events.lines);
      assertEquals(List.of(Duration.ofSeconds(1)), quick.time.waits());
    }
  }

  @Test
  @DisplayName("six 502s in a row: UNAVAILABLE after 6 requests and 1, 2, 4, 8, 16 s of back-off")
  void givesUp() {
    f.forge.script(
        Fault.status(502),
        Fault.status(502),
        Fault.status(502),
        Fault.status(502),
        Fault.status(502),
        Fault.status(502));
    ForgeException e =
        assertThrows(
            ForgeException.class, () -> f.github().post(GH, status(CommitState.PENDING, "queued")));
    assertEquals(ForgeException.Kind.UNAVAILABLE, e.kind());
    assertEquals(502, e.httpStatus());
    assertEquals(6, f.forge.requests());
    assertEquals(
        List.of(1L, 2L, 4L, 8L, 16L), f.time.waits().stream().map(Duration::toSeconds).toList());
    assertTrue(e.getMessage().contains("gave up after 6 attempts (HTTP 502)"), e.getMessage());
  }

  @Test
  @DisplayName(
      "a Retry-After longer than the longest allowed wait gives up at once instead of blocking")
  void retryAfterTooLong() {
    f.forge.script(Fault.retryAfter(3600));
    ForgeException e =
        assertThrows(
            ForgeException.class, () -> f.github().post(GH, status(CommitState.PENDING, "queued")));
    assertEquals(ForgeException.Kind.UNAVAILABLE, e.kind());
    assertEquals(List.of(), f.time.waits());
  }

  @Test
  @DisplayName("a 422 is REJECTED without retry and quotes the forge's error")
  void rejected() {
    ForgeException e =
        assertThrows(
            ForgeException.class,
            () ->
                f.github()
                    .post(new CommitRef("acme/llm", "nope"), status(CommitState.PENDING, "x")));
    assertEquals(ForgeException.Kind.REJECTED, e.kind());
    assertEquals(422, e.httpStatus());
    assertTrue(e.getMessage().contains("No commit found for SHA"), e.getMessage());
    assertEquals(1, f.forge.requests());
  }

  @Test
  @DisplayName("Retry-After as an HTTP date, a silent 429 and a garbled Retry-After")
  void limitWaits() {
    RetryingTransport t =
        new RetryingTransport(c -> null, RetryPolicy.standard(), f.time, f.time, f.events);
    String date =
        DateTimeFormatter.RFC_1123_DATE_TIME.format(T0.plusSeconds(90).atZone(ZoneOffset.UTC));
    assertEquals(
        Duration.ofSeconds(90),
        t.limitWait(answer(429, Map.of("Retry-After", date))).orElseThrow());
    assertEquals(
        Duration.ofSeconds(60),
        t.limitWait(answer(429, Map.of("Retry-After", "soon"))).orElseThrow());
    assertEquals(
        Duration.ZERO, t.limitWait(answer(429, Map.of("Retry-After", "-3"))).orElseThrow());
    assertTrue(t.limitWait(answer(403, Map.of("X-RateLimit-Remaining", "4"))).isEmpty());
    assertTrue(t.limitWait(answer(403, Map.of("X-RateLimit-Remaining", "0"))).isEmpty());
    assertEquals(
        Duration.ofSeconds(60),
        t.limitWait(answer(403, Map.of("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "x")))
            .orElseThrow());
  }

  @Test
  @DisplayName("a 429 without headers waits the one-minute minimum")
  void silent429() throws Exception {
    List<HttpAnswer> answers =
        new java.util.ArrayList<>(List.of(answer(429, Map.of()), answer(201, Map.of())));
    RetryingTransport t =
        new RetryingTransport(
            c -> answers.remove(0), RetryPolicy.standard(), f.time, f.time, f.events);
    t.send("github", new HttpCall("POST", URI.create("http://127.0.0.1:9/x"), Map.of(), "{}"));
    assertEquals(List.of(Duration.ofSeconds(60)), f.time.waits());
  }

  @Test
  @DisplayName("an interrupted wait stops the call as UNAVAILABLE and keeps the interrupt flag")
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
        assertThrows(
            ForgeException.class,
            () ->
                t.send(
                    "github",
                    new HttpCall("GET", URI.create("http://127.0.0.1:9/x"), Map.of(), "")));
    assertEquals(ForgeException.Kind.UNAVAILABLE, e.kind());
    assertTrue(Thread.interrupted());
  }

  @Test
  @DisplayName("a Retry-After of exactly the longest allowed wait is waited; a 3xx is not success")
  void bounds() throws Exception {
    f.forge.script(Fault.retryAfter(15 * 60));
    f.github().post(GH, status(CommitState.PENDING, "queued"));
    assertEquals(List.of(Duration.ofMinutes(15)), f.time.waits());
    assertFalse(new HttpAnswer(300, Map.of(), "").ok());
    assertTrue(new HttpAnswer(299, Map.of(), "").ok());
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
  @DisplayName("back-off doubles from the first value and stops at the maximum")
  void backoff() {
    RetryPolicy p = RetryPolicy.standard();
    assertEquals(Duration.ofSeconds(1), p.backoff(1));
    assertEquals(Duration.ofSeconds(16), p.backoff(5));
    assertEquals(Duration.ofSeconds(30), p.backoff(6));
    assertEquals(Duration.ofSeconds(30), p.backoff(40));
  }

  private static HttpAnswer answer(int status, Map<String, String> headers) {
    Map<String, List<String>> h = new java.util.TreeMap<>();
    headers.forEach((k, v) -> h.put(k, List.of(v)));
    return new HttpAnswer(status, h, "");
  }
}
