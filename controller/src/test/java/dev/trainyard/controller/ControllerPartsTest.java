package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.controller.forge.CommitState;
import dev.trainyard.controller.forge.PostedStatus;
import dev.trainyard.controller.state.Cause;
import dev.trainyard.controller.state.Phase;
import dev.trainyard.controller.state.RunState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ControllerPartsTest {

  static final RunKey KEY = new RunKey("team-a", "llama-ft-7f3a9c");
  static final RunProvenance P =
      new RunProvenance(
          "https://github.com/acme/llm.git", "abc", "jobs/train.yaml", "dev", "llama ft");

  @Test
  @DisplayName(
      "run phases map to commit states; a failure is FAILURE for the user and ERROR for the platform; a deleted run is CANCELED")
  void commitStates() {
    assertEquals(CommitState.PENDING, RunStatus.of(state(Phase.QUEUED, Cause.NONE)));
    assertEquals(CommitState.PENDING, RunStatus.of(state(Phase.ADMITTED, Cause.NONE)));
    assertEquals(CommitState.PENDING, RunStatus.of(state(Phase.STARTING, Cause.PLATFORM)));
    assertEquals(CommitState.RUNNING, RunStatus.of(state(Phase.RUNNING, Cause.NONE)));
    assertEquals(CommitState.RUNNING, RunStatus.of(state(Phase.RESTARTING, Cause.NONE)));
    assertEquals(CommitState.SUCCESS, RunStatus.of(state(Phase.SUCCEEDED, Cause.NONE)));
    assertEquals(CommitState.FAILURE, RunStatus.of(state(Phase.FAILED, Cause.USER)));
    assertEquals(CommitState.ERROR, RunStatus.of(state(Phase.FAILED, Cause.PLATFORM)));
    assertEquals(CommitState.CANCELED, RunStatus.of(state(Phase.DELETED, Cause.NONE)));
    assertTrue(CommitState.ERROR.terminal());
    assertTrue(CommitState.CANCELED.terminal());
    assertTrue(!CommitState.RUNNING.terminal() && !CommitState.PENDING.terminal());
  }

  @Test
  @DisplayName(
      "target URL placeholders are filled URL-encoded; an unknown placeholder is refused by name")
  void targetUrl() {
    assertEquals(
        "https://g.example/d?ns=team-a&run=llama+ft&js=llama-ft-7f3a9c&c=dev&sha=abc",
        new TargetUrl(
                "https://g.example/d?ns={namespace}&run={run}&js={jobset}&c={cluster}&sha={commit}")
            .render(KEY, P));
    assertEquals("", new TargetUrl(null).render(KEY, P));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new TargetUrl("https://g.example/{pod}/{run}/{zone}"));
    assertTrue(e.getMessage().contains("[pod, zone]"), e.getMessage());
  }

  @Test
  @DisplayName(
      "provenance comes from the compiler's keys; the context is trainyard/<cluster>/<namespace>/<run>")
  void provenance() {
    RunProvenance p =
        RunProvenance.of(
                Map.of(
                    "trainyard.dev/source-commit",
                    "abc",
                    "trainyard.dev/source-repo",
                    "https://github.com/acme/llm.git",
                    "trainyard.dev/source-path",
                    "t.yaml",
                    "trainyard.dev/cluster",
                    "dev"),
                Map.of("trainyard.dev/run", "run-1"),
                "jobset-1")
            .orElseThrow();
    assertEquals(
        new RunProvenance("https://github.com/acme/llm.git", "abc", "t.yaml", "dev", "run-1"), p);
    assertEquals("trainyard/dev/team-a/run-1", p.context("team-a"));
    assertNotEquals(
        p.context("team-a"), p.context("team-b"), "one run name in two namespaces: two contexts");
    RunProvenance bare =
        RunProvenance.of(Map.of("trainyard.dev/source-commit", "abc"), null, "js").orElseThrow();
    assertEquals("trainyard/default/ns/js", bare.context("ns"));
    assertTrue(RunProvenance.of(Map.of(), Map.of(), "js").isEmpty());
    assertTrue(RunProvenance.of(null, null, "js").isEmpty());
    assertTrue(RunProvenance.of(Map.of("trainyard.dev/source-commit", " "), null, "js").isEmpty());
  }

  @Test
  @DisplayName("terminal wire states are final on every forge; pending and running are not")
  void ledger() {
    for (String s : new String[] {"success", "failure", "error", "failed", "canceled", "skipped"}) {
      assertTrue(StatusLedger.terminal(new PostedStatus(s, "", "")), s);
    }
    assertTrue(
        !StatusLedger.terminal(new PostedStatus("pending", "", ""))
            && !StatusLedger.terminal(new PostedStatus("running", "", "")));
    StatusLedger l = new StatusLedger();
    StatusLedger.StatusKey k = new StatusLedger.StatusKey("github", "a/b", "sha", "ctx");
    l.record(k, new PostedStatus("pending", "q", ""));
    assertEquals(1, l.size());
    assertEquals("q", l.get(k).orElseThrow().description());
    l.clear();
    assertTrue(l.get(k).isEmpty());
  }

  @Test
  @DisplayName(
      "metrics render as Prometheus text: counter families together, histogram buckets cumulative")
  void metrics() {
    ControllerMetrics m = new ControllerMetrics();
    m.called("github", "posted");
    m.called("github", "posted");
    m.retried("gitlab", "5xx");
    m.reconciled(Reconciler.Outcome.POSTED, Duration.ofMillis(3));
    m.reconciled(Reconciler.Outcome.UNCHANGED, Duration.ofMillis(10));
    m.reconciled(Reconciler.Outcome.UNCHANGED, Duration.ofMillis(200));
    m.queueDepth(() -> 7);
    m.cached(() -> Map.of("pods", 4, "jobsets", 2));
    m.leader(true);
    String text = m.render();
    assertTrue(
        text.contains(
            "# TYPE trainyard_forge_calls_total counter\n"
                + "trainyard_forge_calls_total{forge=\"github\",result=\"posted\"} 2.0\n"),
        text);
    assertTrue(
        text.contains(
            "# TYPE trainyard_forge_retries_total counter\n"
                + "trainyard_forge_retries_total{forge=\"gitlab\",reason=\"5xx\"} 1.0\n"),
        text);
    assertTrue(text.contains("trainyard_reconciles_total{outcome=\"posted\"} 1.0\n"), text);
    assertTrue(text.contains("trainyard_queue_depth 7.0\n"), text);
    assertTrue(
        text.contains(
            "trainyard_cached_objects{kind=\"jobsets\"} 2.0\ntrainyard_cached_objects{kind=\"pods\"} 4.0\n"),
        text);
    assertTrue(
        text.matches("(?s).*trainyard_jvm_heap_used_bytes [1-9][0-9.]*(E[0-9]+)?\n.*"), text);
    assertTrue(text.contains("trainyard_leader 1.0\n"), text);
    assertTrue(text.contains("trainyard_reconcile_seconds_bucket{le=\"0.001\"} 0\n"), text);
    assertTrue(text.contains("trainyard_reconcile_seconds_bucket{le=\"0.005\"} 1\n"), text);
    assertTrue(
        text.contains("trainyard_reconcile_seconds_bucket{le=\"0.01\"} 2\n"),
        "a value on a bound counts in it");
    assertTrue(text.contains("trainyard_reconcile_seconds_bucket{le=\"0.5\"} 3\n"), text);
    assertTrue(text.contains("trainyard_reconcile_seconds_bucket{le=\"+Inf\"} 3\n"), text);
    assertTrue(text.contains("trainyard_reconcile_seconds_count 3\n"), text);
    assertTrue(text.contains("trainyard_reconcile_seconds_sum 0.213"), text);
    for (String family :
        List.of(
            "trainyard_queue_depth gauge",
            "trainyard_leader gauge",
            "trainyard_cached_objects gauge",
            "trainyard_jvm_heap_used_bytes gauge",
            "trainyard_reconcile_seconds histogram",
            "trainyard_reconciles_total counter")) {
      assertTrue(text.contains("# TYPE " + family + "\n"), family);
    }
    assertEquals(0, m.counter("nothing"));
    m.pruned(2, false);
    m.pruned(0, true);
    String pruned = m.render();
    assertTrue(
        pruned.contains(
            "# TYPE trainyard_pruned_runs_total counter\ntrainyard_pruned_runs_total 2.0\n"),
        pruned);
    assertTrue(
        pruned.contains(
            "# TYPE trainyard_prune_passes_total counter\ntrainyard_prune_passes_total{result=\"error\"} 1.0\n"
                + "trainyard_prune_passes_total{result=\"ok\"} 1.0\n"),
        pruned);
  }

  @Test
  @DisplayName(
      "/healthz is 200, /readyz follows readiness (503 before sync), /metrics serves the text format")
  void health() throws Exception {
    AtomicBoolean ready = new AtomicBoolean(false);
    try (HealthServer s =
        new HealthServer(new InetSocketAddress("127.0.0.1", 0), ready::get, () -> "m 1\n")) {
      HttpClient c = HttpClient.newHttpClient();
      String base = "http://127.0.0.1:" + s.port();
      assertEquals(200, get(c, base + "/healthz").statusCode());
      assertEquals(503, get(c, base + "/readyz").statusCode());
      ready.set(true);
      assertEquals(200, get(c, base + "/readyz").statusCode());
      HttpResponse<String> m = get(c, base + "/metrics");
      assertEquals("m 1\n", m.body());
      assertTrue(
          m.headers()
              .firstValue("Content-Type")
              .orElseThrow()
              .startsWith("text/plain; version=0.0.4"));
      assertEquals(404, get(c, base + "/other").statusCode());
      ready.set(false);
      assertEquals("informers not synced\n", get(c, base + "/readyz").body());
      ready.set(true);
      assertEquals("ok\n", get(c, base + "/readyz").body());
      assertTrue(
          threads("trainyard-health").stream().allMatch(Thread::isDaemon),
          "the handler threads never keep a stopping JVM alive");
      assertFalse(threads("trainyard-health").isEmpty());
      s.close();
      assertThrows(
          IOException.class,
          () -> get(HttpClient.newHttpClient(), base + "/healthz"),
          "closed: nothing listens");
      try (ServerSocket again = new ServerSocket(s.port(), 1, InetAddress.getLoopbackAddress())) {
        assertEquals(
            s.port(), again.getLocalPort(), "closed, the port is free for the next process");
      }
    }
  }

  @Test
  @DisplayName(
      "/readyz answers 503 with the not-ready reason (e.g. no Lease), and a port in use is one line naming it")
  void readinessReasonAndPortInUse() throws Exception {
    AtomicReference<String> why =
        new AtomicReference<>("no leader: cannot take Lease ns/l: namespaces \"ns\" not found");
    try (HealthServer s =
        new HealthServer(new InetSocketAddress("127.0.0.1", 0), why::get, () -> "")) {
      HttpResponse<String> r =
          get(HttpClient.newHttpClient(), "http://127.0.0.1:" + s.port() + "/readyz");
      assertEquals(503, r.statusCode());
      assertEquals("no leader: cannot take Lease ns/l: namespaces \"ns\" not found\n", r.body());
      why.set("");
      assertEquals(
          200,
          get(HttpClient.newHttpClient(), "http://127.0.0.1:" + s.port() + "/readyz").statusCode());
      UncheckedIOException taken =
          assertThrows(
              UncheckedIOException.class,
              () ->
                  new HealthServer(
                      new InetSocketAddress("127.0.0.1", s.port()), why::get, () -> ""));
      assertEquals(
          "cannot listen on 127.0.0.1:" + s.port() + ": address already in use",
          taken.getMessage());
    }
  }

  /** The live threads named {@code name}. */
  static List<Thread> threads(String name) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().equals(name))
        .toList();
  }

  private static HttpResponse<String> get(HttpClient c, String url) throws Exception {
    return c.send(
        HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static RunState state(Phase phase, Cause cause) {
    return new RunState(phase, cause, "", "", null, 0, 0, 1, 1, false, null);
  }
}
