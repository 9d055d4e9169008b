package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.controller.PodTokenReview.Identity;
import dev.trainyard.controller.state.Progress;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The progress endpoint over real HTTPS on 127.0.0.1 (an openssl certificate), with the token
 * review and the pod cache given as tables: each answer of the contract, and a push from the Python
 * standard library client docs/progress-push.md shows. The TokenReview itself runs against the real
 * API server in {@code PodTokenReviewTest} and, end to end, in cluster-it's {@code ProgressPushIT}.
 */
class ProgressEndpointTest {

  static final Instant NOW = Instant.parse("2026-12-02T08:00:00Z");
  static final String NS = "team-a";
  static final String PATH =
      "/apis/trainer.kubeflow.org/v1alpha1/namespaces/team-a/trainjobs/run-a/status";

  @TempDir static Path certs;
  static SSLContext client;
  static final Map<String, Identity> TOKENS =
      Map.of(
          "tok-a", new Identity(Identity.Kind.POD_USER, NS, "run-a-node-0-0-x", "uid-a"),
          "tok-b", new Identity(Identity.Kind.POD_USER, NS, "run-b-node-0-0-y", "uid-b"),
          "tok-other-ns",
              new Identity(Identity.Kind.POD_USER, "team-b", "run-a-node-0-0-x", "uid-a"),
          "tok-account", new Identity(Identity.Kind.POD_USER, NS, "", ""),
          "tok-stale", new Identity(Identity.Kind.POD_USER, NS, "run-a-node-0-0-x", "uid-old"),
          "tok-down", Identity.UNAVAILABLE,
          "tok-bare", new Identity(Identity.Kind.POD_USER, NS, "bare-pod", "uid-bare"),
          "tok-busy", Identity.BUSY);
  static final Map<String, Pod> PODS =
      Map.of(
          "bare-pod",
          new PodBuilder()
              .withNewMetadata()
              .withName("bare-pod")
              .withNamespace(NS)
              .withUid("uid-bare")
              .endMetadata()
              .build(),
          "run-a-node-0-0-x",
          pod("run-a-node-0-0-x", "uid-a", "run-a"),
          "run-b-node-0-0-y",
          pod("run-b-node-0-0-y", "uid-b", "run-b"));
  static final PushedProgress STORE = new PushedProgress();
  static final ControllerMetrics METRICS = new ControllerMetrics();
  static final List<RunKey> QUEUED = new CopyOnWriteArrayList<>();
  static ProgressEndpoint endpoint;

  static Pod pod(String name, String uid, String run) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(NS)
        .withUid(uid)
        .addToLabels(Snapshots.JOBSET_NAME, run)
        .endMetadata()
        .build();
  }

  @BeforeAll
  static void start() throws Exception {
    TestCertificates.ec(certs.resolve("tls"));
    client = TestCertificates.trusting(certs.resolve("tls"));
    endpoint =
        new ProgressEndpoint(
            new InetSocketAddress("127.0.0.1", 0),
            new ServingCertificate(certs.resolve("tls"), System::nanoTime).context(),
            new ProgressEndpoint.Parts(
                t -> TOKENS.getOrDefault(t, Identity.INVALID),
                (ns, name) ->
                    ns.equals(NS) ? Optional.ofNullable(PODS.get(name)) : Optional.empty(),
                STORE,
                QUEUED::add,
                Clock.fixed(NOW, ZoneOffset.UTC),
                METRICS::pushed));
  }

  @AfterAll
  static void stop() {
    endpoint.close();
  }

  record Answer(int code, String body, String retryAfter, String type, String allow) {}

  static Answer send(String method, String path, String auth, String body) throws IOException {
    HttpsURLConnection c =
        (HttpsURLConnection)
            new URL("https://127.0.0.1:" + endpoint.port() + path).openConnection();
    c.setSSLSocketFactory(client.getSocketFactory());
    c.setRequestMethod(method);
    c.setConnectTimeout(5000);
    c.setReadTimeout(10000);
    if (auth != null) {
      c.setRequestProperty("Authorization", auth);
    }
    if (body != null) {
      c.setDoOutput(true);
      c.setRequestProperty("Content-Type", "application/json");
      try (OutputStream out = c.getOutputStream()) {
        out.write(body.getBytes(StandardCharsets.UTF_8));
      }
    }
    int code = c.getResponseCode();
    InputStream in = code < 400 ? c.getInputStream() : c.getErrorStream();
    String text = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
    return new Answer(
        code,
        text,
        c.getHeaderField("Retry-After"),
        c.getHeaderField("Content-Type"),
        c.getHeaderField("Allow"));
  }

  static final String KEP_BODY =
      "{\"trainerStatus\": {\"progressPercentage\": 45, \"estimatedRemainingSeconds\": 795649,"
          + " \"metrics\": [{\"name\": \"loss\", \"value\": \"0.2347\"},"
          + " {\"name\": \"eval_loss\", \"value\": \"0.2451\"}],"
          + " \"lastUpdatedTime\": \"2025-01-23T10:30:45Z\"}}";

  @Test
  @DisplayName("a pod of the run pushes the KEP's example: 200 with the body, kept and queued")
  void accepted() throws Exception {
    RunKey run = new RunKey(NS, "run-a");
    STORE.forget(run);
    QUEUED.clear();
    long before = METRICS.counter("trainyard_progress_pushes_total{code=\"200\"}");
    Answer a = send("POST", PATH, "Bearer tok-a", KEP_BODY);
    assertEquals(200, a.code(), a.body());
    assertEquals(KEP_BODY, a.body());
    assertEquals(before + 1, METRICS.counter("trainyard_progress_pushes_total{code=\"200\"}"));
    assertTrue(
        METRICS.render().contains("# TYPE trainyard_progress_pushes_total counter\n"),
        METRICS.render());
    assertEquals("application/json", a.type());
    Progress p = STORE.latest(run).orElseThrow();
    assertEquals(45, p.percent());
    assertEquals(795649, p.remaining().toSeconds());
    assertEquals(
        List.of(new Progress.Metric("loss", "0.2347"), new Progress.Metric("eval_loss", "0.2451")),
        p.metrics());
    assertEquals(Instant.parse("2025-01-23T10:30:45Z"), p.updatedAt());
    assertEquals(Progress.Source.PUSH, p.source());
    assertEquals(List.of(run), QUEUED);
  }

  @Test
  @DisplayName("a body without trainerStatus is answered 200 and changes nothing")
  void nothingToReport() throws Exception {
    RunKey run = new RunKey(NS, "run-b");
    STORE.forget(run);
    QUEUED.clear();
    Answer a =
        send(
            "POST",
            "/apis/trainer.kubeflow.org/v1alpha1/namespaces/team-a/trainjobs/run-b/status",
            "Bearer tok-b",
            "{}");
    assertEquals(200, a.code(), a.body());
    assertEquals(Optional.empty(), STORE.latest(run));
    assertEquals(List.of(), QUEUED);
  }

  @Test
  @DisplayName("no token, a malformed header or a token the API server does not accept: 401")
  void unauthenticated() throws Exception {
    long before = METRICS.counter("trainyard_progress_pushes_total{code=\"401\"}");
    Answer none = send("POST", PATH, null, KEP_BODY);
    assertEquals(401, none.code());
    assertEquals(before + 1, METRICS.counter("trainyard_progress_pushes_total{code=\"401\"}"));
    assertTrue(none.body().contains("\"reason\":\"Unauthorized\""), none.body());
    assertTrue(none.body().contains("no bearer token"), none.body());
    assertEquals(401, send("POST", PATH, "Basic dXNlcjpwdw==", KEP_BODY).code());
    assertEquals(401, send("POST", PATH, "Bearer a b", KEP_BODY).code());
    Answer invalid = send("POST", PATH, "Bearer made-up", KEP_BODY);
    assertEquals(401, invalid.code());
    assertTrue(invalid.body().contains("progress.trainyard.dev"), invalid.body());
    assertTrue(!invalid.body().contains("made-up"), "never echoes the token: " + invalid.body());
  }

  @Test
  @DisplayName("another run's pod, another namespace, a gone pod or a token of no pod: 403")
  void forbidden() throws Exception {
    Answer other = send("POST", PATH, "Bearer tok-b", KEP_BODY);
    assertEquals(403, other.code());
    assertTrue(
        other.body().contains("pod run-b-node-0-0-y belongs to run run-b, not run-a"),
        other.body());
    Answer ns = send("POST", PATH, "Bearer tok-other-ns", KEP_BODY);
    assertEquals(403, ns.code());
    assertTrue(ns.body().contains("in namespace team-b, not team-a"), ns.body());
    Answer stale = send("POST", PATH, "Bearer tok-stale", KEP_BODY);
    assertEquals(403, stale.code());
    assertTrue(stale.body().contains("is gone or belongs to no run"), stale.body());
    Answer account = send("POST", PATH, "Bearer tok-account", KEP_BODY);
    assertEquals(403, account.code());
    assertTrue(account.body().contains("not bound to a pod"), account.body());
    Answer gone =
        send(
            "POST",
            "/apis/trainer.kubeflow.org/v1alpha1/namespaces/team-a/trainjobs/run-c/status",
            "Bearer tok-a",
            KEP_BODY);
    assertEquals(403, gone.code());
    assertTrue(gone.body().contains("belongs to run run-a, not run-c"), gone.body());
    Answer bare = send("POST", PATH, "Bearer tok-bare", KEP_BODY);
    assertEquals(403, bare.code());
    assertTrue(bare.body().contains("pod bare-pod belongs to no run, not run-a"), bare.body());
    assertEquals("application/json", bare.type());
  }

  @Test
  @DisplayName("a bad payload is 400 naming the field; the review down 503; reviews busy 429")
  void refusals() throws Exception {
    Answer bad =
        send(
            "POST",
            PATH,
            "Bearer tok-a",
            "{\"trainerStatus\": {\"metrics\": [{\"name\": \"loss\", \"value\": 0.5}]}}");
    assertEquals(400, bad.code());
    assertTrue(
        bad.body().contains("trainerStatus.metrics[0].value must be a non-empty string"),
        bad.body());
    assertEquals(503, send("POST", PATH, "Bearer tok-down", KEP_BODY).code());
    Answer busy = send("POST", PATH, "Bearer tok-busy", KEP_BODY);
    assertEquals(429, busy.code());
    assertEquals("1", busy.retryAfter());
  }

  @Test
  @DisplayName("other paths 404, other methods 405, a body over 64 KiB 413")
  void shape() throws Exception {
    assertEquals(404, send("POST", "/apis/other", "Bearer tok-a", KEP_BODY).code());
    assertEquals(
        404,
        send(
                "POST",
                "/apis/trainer.kubeflow.org/v1alpha1/namespaces/Team_A/trainjobs/run-a/status",
                "Bearer tok-a",
                KEP_BODY)
            .code());
    Answer other = send("POST", "/apis/other", "Bearer tok-a", KEP_BODY);
    assertTrue(other.body().contains("(the URL in $KUBEFLOW_TRAINER_SERVER_URL)"), other.body());
    Answer get = send("GET", PATH, "Bearer tok-a", null);
    assertEquals(405, get.code());
    assertEquals("POST", get.allow());
    String big = "{\"trainerStatus\": {\"metrics\": [], \"x\": \"" + "a".repeat(70_000) + "\"}}";
    Answer a = send("POST", PATH, "Bearer tok-a", big);
    assertEquals(413, a.code());
    assertTrue(a.body().contains("65536 bytes"), a.body());
    assertEquals(
        413, send("POST", PATH, null, big).code(), "refused by its length before any review");
    STORE.forget(new RunKey(NS, "run-a"));
    assertEquals(200, send("POST", PATH, "Bearer tok-a", sized(ProgressEndpoint.MAX_BODY)).code());
    assertEquals(
        413, send("POST", PATH, "Bearer tok-a", sized(ProgressEndpoint.MAX_BODY + 1)).code());
  }

  /** A valid body of exactly {@code bytes} bytes. */
  static String sized(int bytes) {
    String head = "{\"trainerStatus\": {\"progressPercentage\": 1}, \"pad\": \"";
    String tail = "\"}";
    return head + "a".repeat(bytes - head.length() - tail.length()) + tail;
  }

  @Test
  @DisplayName("Authorization: Bearer with any case and spacing; anything else is no token")
  void bearer() {
    assertEquals("abc", ProgressEndpoint.bearer("Bearer abc"));
    assertEquals("abc", ProgressEndpoint.bearer("  bearer   abc  "));
    assertEquals("abc", ProgressEndpoint.bearer("BEARER abc"));
    assertEquals("x", ProgressEndpoint.bearer("Bearer x"));
    assertEquals("", ProgressEndpoint.bearer(null));
    assertEquals("", ProgressEndpoint.bearer("Bearer"));
    assertEquals("", ProgressEndpoint.bearer("Bearer "));
    assertEquals("", ProgressEndpoint.bearer("Bearer a b"));
    assertEquals("", ProgressEndpoint.bearer("Basic abc"));
    assertEquals("", ProgressEndpoint.bearer("Bearerabc"));
  }

  @Test
  @DisplayName("Retry-After is the wait in whole seconds rounded up, at least 1")
  void retryAfter() {
    assertEquals(1, ProgressEndpoint.retryAfterSeconds(Duration.ZERO));
    assertEquals(1, ProgressEndpoint.retryAfterSeconds(Duration.ofMillis(1)));
    assertEquals(1, ProgressEndpoint.retryAfterSeconds(Duration.ofMillis(1000)));
    assertEquals(2, ProgressEndpoint.retryAfterSeconds(Duration.ofMillis(1001)));
    assertEquals(3, ProgressEndpoint.retryAfterSeconds(Duration.ofMillis(2500)));
  }

  @Test
  @DisplayName("a closed endpoint no longer listens")
  void closed() throws Exception {
    ProgressEndpoint own =
        new ProgressEndpoint(
            new InetSocketAddress("127.0.0.1", 0),
            new ServingCertificate(certs.resolve("tls"), System::nanoTime).context(),
            new ProgressEndpoint.Parts(
                t -> Identity.INVALID,
                (ns, n) -> Optional.empty(),
                STORE,
                k -> {},
                Clock.systemUTC(),
                c -> {}));
    int port = own.port();
    own.close();
    Assertions.assertThrows(ConnectException.class, () -> new Socket("127.0.0.1", port).close());
  }

  @Test
  @DisplayName("a flood from one run is refused 429 after its burst of 20, with Retry-After")
  void flood() throws Exception {
    PushedProgress store = new PushedProgress(() -> 0L);
    try (ProgressEndpoint own =
        new ProgressEndpoint(
            new InetSocketAddress("127.0.0.1", 0),
            new ServingCertificate(certs.resolve("tls"), System::nanoTime).context(),
            new ProgressEndpoint.Parts(
                t -> TOKENS.getOrDefault(t, Identity.INVALID),
                (ns, name) -> Optional.ofNullable(PODS.get(name)),
                store,
                k -> {},
                Clock.fixed(NOW, ZoneOffset.UTC),
                METRICS::pushed))) {
      ProgressEndpoint shared = endpoint;
      endpoint = own;
      try {
        List<Integer> codes = new ArrayList<>();
        for (int i = 0; i < PushedProgress.BURST + 5; i++) {
          codes.add(send("POST", PATH, "Bearer tok-a", KEP_BODY).code());
        }
        assertEquals(List.of(200), codes.subList(0, 20).stream().distinct().toList());
        assertEquals(List.of(429), codes.subList(20, 25).stream().distinct().toList());
        Answer a = send("POST", PATH, "Bearer tok-a", KEP_BODY);
        assertEquals("1", a.retryAfter());
        assertTrue(a.body().contains("more than 2 a second (bursts of 20)"), a.body());
      } finally {
        endpoint = shared;
      }
    }
  }

  @Test
  @DisplayName("docs/progress-push.md's Python standard-library client pushes and is accepted")
  void pythonClient(@TempDir Path dir) throws Exception {
    RunKey run = new RunKey(NS, "run-a");
    STORE.forget(run);
    Files.writeString(dir.resolve("token"), "tok-a\n");
    Files.copy(certs.resolve("tls/tls.crt"), dir.resolve("ca.crt"));
    Path script = dir.resolve("push.py");
    Files.writeString(script, DocsExample.PYTHON);
    ProcessBuilder pb = new ProcessBuilder("python3", script.toString()).redirectErrorStream(true);
    pb.environment()
        .put("KUBEFLOW_TRAINER_SERVER_URL", "https://127.0.0.1:" + endpoint.port() + PATH);
    pb.environment().put("KUBEFLOW_TRAINER_SERVER_CA_CERT", dir.resolve("ca.crt").toString());
    pb.environment().put("KUBEFLOW_TRAINER_SERVER_TOKEN", dir.resolve("token").toString());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
    assertEquals(0, p.exitValue(), out);
    assertTrue(out.contains("reported: 200"), out);
    Progress pushed = STORE.latest(run).orElseThrow();
    assertEquals(37, pushed.percent());
    assertEquals(105, pushed.remaining().toSeconds());
    assertTrue(pushed.metrics().contains(new Progress.Metric("loss", "0.53")), pushed.toString());
    assertTrue(
        pushed.updatedAt().isAfter(Instant.parse("2026-01-01T00:00:00Z")), pushed.toString());
  }
}
