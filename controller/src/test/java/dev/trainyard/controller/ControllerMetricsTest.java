package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ControllerMetrics} through the Prometheus Java client: the families dashboards read
 * (names, HELP, TYPE), label values escaped, and the text a real parser (the Python {@code
 * prometheus_client}, from scripts/python-envs) reads back from a live {@code /metrics}.
 */
class ControllerMetricsTest {

  /** A forge name no forge has, holding every character the text format must escape. */
  static final String ODD = "gi\"t\\hub\nnext";

  /** Every family the controller serves once wired (Controller adds the last three gauges). */
  static final List<String> FAMILIES =
      List.of(
          "# HELP trainyard_cached_objects Objects in the informer caches, by kind.",
          "# TYPE trainyard_cached_objects gauge",
          "# HELP trainyard_forge_calls_total Forge posts by forge and result.",
          "# TYPE trainyard_forge_calls_total counter",
          "# HELP trainyard_forge_retries_total Forge call retries by forge and reason.",
          "# TYPE trainyard_forge_retries_total counter",
          "# HELP trainyard_jvm_heap_used_bytes JVM heap in use, in bytes.",
          "# TYPE trainyard_jvm_heap_used_bytes gauge",
          "# HELP trainyard_leader 1 when this replica holds the Lease and posts.",
          "# TYPE trainyard_leader gauge",
          "# HELP trainyard_log_bytes_dropped Log bytes dropped over the follow budget since the start.",
          "# TYPE trainyard_log_bytes_dropped gauge",
          "# HELP trainyard_logs_followed Rank 0 logs followed for progress.",
          "# TYPE trainyard_logs_followed gauge",
          "# HELP trainyard_progress_pushes_total Progress pushes from runs' pods by HTTP status.",
          "# TYPE trainyard_progress_pushes_total counter",
          "# HELP trainyard_prune_passes_total Retention passes by result.",
          "# TYPE trainyard_prune_passes_total counter",
          "# HELP trainyard_pruned_runs_total Finished runs removed from the GitOps repo after their retention.",
          "# TYPE trainyard_pruned_runs_total counter",
          "# HELP trainyard_queue_depth Run keys waiting in the work queue.",
          "# TYPE trainyard_queue_depth gauge",
          "# HELP trainyard_reconcile_seconds Reconcile latency in seconds.",
          "# TYPE trainyard_reconcile_seconds histogram",
          "# HELP trainyard_reconciles_total Reconciles by outcome.",
          "# TYPE trainyard_reconciles_total counter",
          "# HELP trainyard_runs_stalled Running runs whose progress and log stood still for progressStallAfter.",
          "# TYPE trainyard_runs_stalled gauge");

  @TempDir Path tmp;

  /** Metrics as a running controller has them: Controller's gauges, a few of every event. */
  static ControllerMetrics busy() {
    ControllerMetrics m = new ControllerMetrics();
    m.gauge(
        "trainyard_runs_stalled",
        "Running runs whose progress and log stood still for progressStallAfter.",
        () -> 2);
    m.gauge("trainyard_logs_followed", "Rank 0 logs followed for progress.", () -> 3);
    m.gauge(
        "trainyard_log_bytes_dropped",
        "Log bytes dropped over the follow budget since the start.",
        () -> 4096);
    m.queueDepth(() -> 5);
    m.cached(() -> Map.of("pods", 4, "jobsets", 2));
    m.leader(true);
    m.called("github", "posted");
    m.called("github", "posted");
    m.called(ODD, "posted");
    m.retried("gitlab", "5xx");
    m.reconciled(Reconciler.Outcome.POSTED, Duration.ofMillis(500));
    m.reconciled(Reconciler.Outcome.REFUSED, Duration.ofSeconds(2));
    m.pruned(3, false);
    m.pruned(0, true);
    m.pushed(200);
    m.pushed(429);
    return m;
  }

  @Test
  @DisplayName("every family keeps its name, HELP text and TYPE, in name order")
  void familiesKept() {
    List<String> meta = busy().render().lines().filter(l -> l.startsWith("# ")).toList();
    assertEquals(FAMILIES, meta);
  }

  @Test
  @DisplayName(
      "the whole text: series sorted by labels, counters and gauges as floats, histogram buckets cumulative")
  void wholeText() {
    List<String> series =
        busy()
            .render()
            .lines()
            .filter(l -> !l.startsWith("#") && !l.startsWith("trainyard_jvm_heap_used_bytes "))
            .toList();
    assertEquals(
        List.of(
            "trainyard_cached_objects{kind=\"jobsets\"} 2.0",
            "trainyard_cached_objects{kind=\"pods\"} 4.0",
            "trainyard_forge_calls_total{forge=\"gi\\\"t\\\\hub\\nnext\",result=\"posted\"} 1.0",
            "trainyard_forge_calls_total{forge=\"github\",result=\"posted\"} 2.0",
            "trainyard_forge_retries_total{forge=\"gitlab\",reason=\"5xx\"} 1.0",
            "trainyard_leader 1.0",
            "trainyard_log_bytes_dropped 4096.0",
            "trainyard_logs_followed 3.0",
            "trainyard_progress_pushes_total{code=\"200\"} 1.0",
            "trainyard_progress_pushes_total{code=\"429\"} 1.0",
            "trainyard_prune_passes_total{result=\"error\"} 1.0",
            "trainyard_prune_passes_total{result=\"ok\"} 1.0",
            "trainyard_pruned_runs_total 3.0",
            "trainyard_queue_depth 5.0",
            "trainyard_reconcile_seconds_bucket{le=\"0.001\"} 0",
            "trainyard_reconcile_seconds_bucket{le=\"0.005\"} 0",
            "trainyard_reconcile_seconds_bucket{le=\"0.01\"} 0",
            "trainyard_reconcile_seconds_bucket{le=\"0.05\"} 0",
            "trainyard_reconcile_seconds_bucket{le=\"0.1\"} 0",
            "trainyard_reconcile_seconds_bucket{le=\"0.5\"} 1",
            "trainyard_reconcile_seconds_bucket{le=\"1.0\"} 1",
            "trainyard_reconcile_seconds_bucket{le=\"5.0\"} 2",
            "trainyard_reconcile_seconds_bucket{le=\"30.0\"} 2",
            "trainyard_reconcile_seconds_bucket{le=\"+Inf\"} 2",
            "trainyard_reconcile_seconds_count 2",
            "trainyard_reconcile_seconds_sum 2.5",
            "trainyard_reconciles_total{outcome=\"posted\"} 1.0",
            "trainyard_reconciles_total{outcome=\"refused\"} 1.0",
            "trainyard_runs_stalled 2.0"),
        series);
  }

  @Test
  @DisplayName("a label value's quote, backslash and line break come out escaped")
  void labelValuesEscaped() {
    ControllerMetrics m = busy();
    String text = m.render();
    assertTrue(
        text.contains(
            "trainyard_forge_calls_total{forge=\"gi\\\"t\\\\hub\\nnext\",result=\"posted\"} 1.0\n"),
        text);
    assertEquals(
        1,
        m.counter(
            "trainyard_forge_calls_total{forge=\"gi\\\"t\\\\hub\\nnext\",result=\"posted\"}"));
    assertTrue(
        text.lines().allMatch(l -> l.isEmpty() || l.startsWith("#") || l.startsWith("trainyard_")),
        "no line starts inside a label value: " + text);
  }

  @Test
  @DisplayName(
      "counter() reads a series as the text writes it: labels in any order, {} or none for none, 0 when unknown")
  void counterReads() {
    ControllerMetrics m = busy();
    assertEquals(2, m.counter("trainyard_forge_calls_total{forge=\"github\",result=\"posted\"}"));
    assertEquals(2, m.counter("trainyard_forge_calls_total{result=\"posted\",forge=\"github\"}"));
    assertEquals(0, m.counter("trainyard_forge_calls_total{forge=\"gitlab\",result=\"posted\"}"));
    assertEquals(0, m.counter("trainyard_forge_calls_total{forge=\"github\"}"));
    assertEquals(1, m.counter("trainyard_forge_retries_total{forge=\"gitlab\",reason=\"5xx\"}"));
    assertEquals(1, m.counter("trainyard_reconciles_total{outcome=\"refused\"}"));
    assertEquals(3, m.counter("trainyard_pruned_runs_total{}"));
    assertEquals(3, m.counter("trainyard_pruned_runs_total"));
    assertEquals(1, m.counter("trainyard_prune_passes_total{result=\"error\"}"));
    assertEquals(1, m.counter("trainyard_progress_pushes_total{code=\"429\"}"));
    assertEquals(0, m.counter("trainyard_queue_depth"), "a gauge is no counter");
    assertEquals(0, m.counter("nothing{a=\"b\"}"));
    m.called("a\\nb", "x");
    assertEquals(
        1,
        m.counter("trainyard_forge_calls_total{forge=\"a\\\\nb\",result=\"x\"}"),
        "an escaped backslash before n is a backslash and n, not a line break");
  }

  @Test
  @DisplayName(
      "gauges read their source at each scrape; a second gauge() of a name replaces the source")
  void gaugesRead() {
    ControllerMetrics m = new ControllerMetrics();
    AtomicLong stalled = new AtomicLong(1);
    m.gauge("trainyard_runs_stalled", "Stalled.", stalled::get);
    assertTrue(m.render().contains("\ntrainyard_runs_stalled 1.0\n"), m.render());
    stalled.set(6);
    assertTrue(m.render().contains("\ntrainyard_runs_stalled 6.0\n"), m.render());
    m.gauge("trainyard_runs_stalled", "Other words.", () -> 9);
    String text = m.render();
    assertTrue(text.contains("\ntrainyard_runs_stalled 9.0\n"), text);
    assertTrue(text.contains("# HELP trainyard_runs_stalled Stalled.\n"), text);
    assertTrue(text.contains("\ntrainyard_leader 0.0\n"), "not leading until told: " + text);
    assertTrue(text.contains("\ntrainyard_queue_depth 0.0\n"), text);
    assertFalse(text.contains("trainyard_cached_objects{"), "no caches, no series: " + text);
    m.leader(true);
    m.leader(false);
    assertTrue(m.render().contains("\ntrainyard_leader 0.0\n"), m.render());
    assertThrows(
        IllegalArgumentException.class,
        () -> m.gauge("trainyard_leader", "again", () -> 1),
        "a fixed metric's name is taken");
  }

  @Test
  @DisplayName(
      "the Python prometheus_client parser reads a live /metrics: families, types, samples, the escaped label value")
  void realParserReadsLiveMetrics() throws Exception {
    Path venv = pythonEnv();
    ControllerMetrics m = busy();
    String body;
    try (HealthServer s =
        new HealthServer(new InetSocketAddress("127.0.0.1", 0), () -> true, m::render)) {
      HttpResponse<String> r =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + "/metrics"))
                      .timeout(Duration.ofSeconds(10))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertEquals(200, r.statusCode());
      body = r.body();
    }
    JsonNode families = parse(venv, body);
    Map<String, String> types = new TreeMap<>();
    families.forEach(f -> types.put(f.get("name").asText(), f.get("type").asText()));
    assertEquals(
        new TreeMap<>(
            Map.ofEntries(
                Map.entry("trainyard_cached_objects", "gauge"),
                Map.entry("trainyard_forge_calls", "counter"),
                Map.entry("trainyard_forge_retries", "counter"),
                Map.entry("trainyard_jvm_heap_used_bytes", "gauge"),
                Map.entry("trainyard_leader", "gauge"),
                Map.entry("trainyard_log_bytes_dropped", "gauge"),
                Map.entry("trainyard_logs_followed", "gauge"),
                Map.entry("trainyard_progress_pushes", "counter"),
                Map.entry("trainyard_prune_passes", "counter"),
                Map.entry("trainyard_pruned_runs", "counter"),
                Map.entry("trainyard_queue_depth", "gauge"),
                Map.entry("trainyard_reconcile_seconds", "histogram"),
                Map.entry("trainyard_reconciles", "counter"),
                Map.entry("trainyard_runs_stalled", "gauge"))),
        types,
        body);
    List<String> calls = samples(families, "trainyard_forge_calls");
    assertEquals(
        List.of(
            "trainyard_forge_calls_total{forge=" + ODD + ",result=posted} 1.0",
            "trainyard_forge_calls_total{forge=github,result=posted} 2.0"),
        calls,
        "the parser gives back the raw value, quote, backslash and line break: " + body);
    assertEquals(
        List.of(
            "trainyard_reconcile_seconds_bucket{le=0.001} 0.0",
            "trainyard_reconcile_seconds_bucket{le=0.005} 0.0",
            "trainyard_reconcile_seconds_bucket{le=0.01} 0.0",
            "trainyard_reconcile_seconds_bucket{le=0.05} 0.0",
            "trainyard_reconcile_seconds_bucket{le=0.1} 0.0",
            "trainyard_reconcile_seconds_bucket{le=0.5} 1.0",
            "trainyard_reconcile_seconds_bucket{le=1.0} 1.0",
            "trainyard_reconcile_seconds_bucket{le=5.0} 2.0",
            "trainyard_reconcile_seconds_bucket{le=30.0} 2.0",
            "trainyard_reconcile_seconds_bucket{le=+Inf} 2.0",
            "trainyard_reconcile_seconds_count{} 2.0",
            "trainyard_reconcile_seconds_sum{} 2.5"),
        samples(families, "trainyard_reconcile_seconds"));
    assertEquals(
        List.of(
            "trainyard_cached_objects{kind=jobsets} 2.0",
            "trainyard_cached_objects{kind=pods} 4.0"),
        samples(families, "trainyard_cached_objects"));
    assertEquals(List.of("trainyard_leader{} 1.0"), samples(families, "trainyard_leader"));
    assertEquals(
        List.of("trainyard_queue_depth{} 5.0"), samples(families, "trainyard_queue_depth"));
    assertEquals(
        List.of("trainyard_pruned_runs_total{} 3.0"), samples(families, "trainyard_pruned_runs"));
    assertEquals(
        List.of(
            "trainyard_progress_pushes_total{code=200} 1.0",
            "trainyard_progress_pushes_total{code=429} 1.0"),
        samples(families, "trainyard_progress_pushes"));
    assertEquals(
        List.of("trainyard_log_bytes_dropped{} 4096.0"),
        samples(families, "trainyard_log_bytes_dropped"));
    List<String> heap = samples(families, "trainyard_jvm_heap_used_bytes");
    assertEquals(1, heap.size(), body);
    assertTrue(Double.parseDouble(heap.get(0).substring(heap.get(0).indexOf(' ') + 1)) > 0, body);
  }

  /**
   * The families of {@code text} as prometheus_client's {@code text_string_to_metric_families}
   * reads them, as JSON: [{name, type, help, samples: [{name, labels, value}]}].
   */
  private JsonNode parse(Path venv, String text) throws IOException, InterruptedException {
    Path in = Files.writeString(tmp.resolve("metrics.txt"), text, StandardCharsets.UTF_8);
    String script =
        String.join(
            "\n",
            "import json, sys",
            "from prometheus_client.parser import text_string_to_metric_families",
            "text = open(sys.argv[1], encoding='utf-8').read()",
            "print(json.dumps([{'name': f.name, 'type': f.type, 'help': f.documentation,",
            "  'samples': [{'name': s.name, 'labels': s.labels, 'value': s.value}",
            "              for s in f.samples]}",
            "  for f in text_string_to_metric_families(text)]))");
    Process p =
        new ProcessBuilder(venv.resolve("bin/python").toString(), "-c", script, in.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the parser did not finish in 60 s");
    assertEquals(0, p.exitValue(), "the parser refused the text: " + out + "\n" + text);
    return new ObjectMapper().readTree(out);
  }

  /** One family's samples as {@code name{k=v,...} value}, labels sorted, in the text's order. */
  private static List<String> samples(JsonNode families, String family) {
    List<String> found = new ArrayList<>();
    for (JsonNode f : families) {
      if (f.get("name").asText().equals(family)) {
        for (JsonNode s : f.get("samples")) {
          Map<String, String> labels = new TreeMap<>();
          s.get("labels").properties().forEach(e -> labels.put(e.getKey(), e.getValue().asText()));
          found.add(
              s.get("name").asText()
                  + labels.toString().replace(", ", ",")
                  + " "
                  + s.get("value").asDouble());
        }
      }
    }
    return found;
  }

  /** scripts/python-envs' prometheus_client venv, or NOT RUN naming the reason. */
  private static Path pythonEnv() {
    String prop = System.getProperty("trainyard.python.dir", "");
    String cache = System.getenv("TRAINYARD_CACHE");
    Path root =
        !prop.isBlank()
            ? Path.of(prop)
            : cache != null
                ? Path.of(cache, "python")
                : Path.of(System.getProperty("user.home"), ".cache", "trainyard", "python");
    Path dir = root.resolve("prometheus-client-" + PROMETHEUS_CLIENT_VERSION);
    assumeTrue(
        Files.exists(dir.resolve("ready")),
        "NOT RUN: no prometheus_client venv at " + dir + " (scripts/python-envs makes it)");
    return dir;
  }

  /** The version scripts/python-envs installs (PROMETHEUS_CLIENT_VERSION there). */
  static final String PROMETHEUS_CLIENT_VERSION = "0.26.0";
}
