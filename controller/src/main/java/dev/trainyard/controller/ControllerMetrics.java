package dev.trainyard.controller;

import dev.trainyard.controller.forge.ForgeEvents;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Labels;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The controller's Prometheus metrics, kept and written by the Prometheus Java client
 * (io.prometheus:prometheus-metrics-core, text format 0.0.4 by prometheus-metrics-exposition-
 * textformats, which also escapes label values: {@code \\}, {@code \"} and {@code \n}, as
 * prometheus.io/docs/instrumenting/exposition_formats says): forge calls by forge and result,
 * retries by forge and reason, reconciles by outcome, queue depth, leadership, informer cache
 * sizes, heap, and reconcile latency as a histogram in seconds. The only class that imports the
 * Prometheus client. Thread-safe.
 *
 * <pre>
 * trainyard_forge_calls_total{forge="github",result="posted"} 3.0
 * trainyard_reconcile_seconds_bucket{le="0.01"} 12
 * </pre>
 */
public final class ControllerMetrics implements ForgeEvents {

  /** Upper bounds of the reconcile latency buckets, in seconds. */
  static final double[] BUCKETS = {0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30};

  private static final Pattern LABEL = Pattern.compile("(\\w+)=\"((?:[^\"\\\\]|\\\\.)*)\"");

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final Map<String, Counter> counters = new TreeMap<>();
  private final Counter forgeCalls =
      counter("trainyard_forge_calls_total", "Forge posts by forge and result.", "forge", "result");
  private final Counter forgeRetries =
      counter(
          "trainyard_forge_retries_total",
          "Forge call retries by forge and reason.",
          "forge",
          "reason");
  private final Counter reconciles =
      counter("trainyard_reconciles_total", "Reconciles by outcome.", "outcome");
  private final Counter prunedRuns =
      counter(
          "trainyard_pruned_runs_total",
          "Finished runs removed from the GitOps repo after their retention.");
  private final Counter prunePasses =
      counter("trainyard_prune_passes_total", "Retention passes by result.", "result");
  private final Counter pushes =
      counter(
          "trainyard_progress_pushes_total",
          "Progress pushes from runs' pods by HTTP status.",
          "code");
  private final Histogram latency =
      Histogram.builder()
          .name("trainyard_reconcile_seconds")
          .help("Reconcile latency in seconds.")
          .classicOnly()
          .classicUpperBounds(BUCKETS)
          .withoutExemplars()
          .register(registry);
  private final Gauge leader =
      Gauge.builder()
          .name("trainyard_leader")
          .help("1 when this replica holds the Lease and posts.")
          .withoutExemplars()
          .register(registry);
  private final Map<String, LongSupplier> gauges = new ConcurrentHashMap<>();
  private volatile IntSupplier queueDepth = () -> 0;
  private volatile Supplier<Map<String, Integer>> cached = Map::of;

  /** All metrics at zero (labelled families empty), read by {@link #render()}. */
  public ControllerMetrics() {
    GaugeWithCallback.builder()
        .name("trainyard_queue_depth")
        .help("Run keys waiting in the work queue.")
        .callback(cb -> cb.call(queueDepth.getAsInt()))
        .register(registry);
    GaugeWithCallback.builder()
        .name("trainyard_cached_objects")
        .help("Objects in the informer caches, by kind.")
        .labelNames("kind")
        .callback(cb -> cached.get().forEach((kind, n) -> cb.call(n, kind)))
        .register(registry);
    GaugeWithCallback.builder()
        .name("trainyard_jvm_heap_used_bytes")
        .help("JVM heap in use, in bytes.")
        .callback(cb -> cb.call(ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed()))
        .register(registry);
  }

  /**
   * Gauge {@code name} (a Prometheus metric name) with {@code help}, read from {@code value} at
   * each scrape; e.g. {@code trainyard_runs_stalled}. A second call with the same name replaces the
   * value's source and keeps the first help text.
   *
   * @throws IllegalArgumentException when {@code name} is one of the fixed metrics (the registry's
   *     "duplicate metric name")
   */
  public synchronized void gauge(String name, String help, LongSupplier value) {
    if (gauges.containsKey(name)) {
      gauges.put(name, value);
      return;
    }
    GaugeWithCallback.builder()
        .name(name)
        .help(help)
        .callback(cb -> cb.call(gauges.getOrDefault(name, value).getAsLong()))
        .register(registry);
    gauges.put(name, value);
  }

  @Override
  public void called(String kind, String result) {
    forgeCalls.labelValues(kind, result).inc();
  }

  @Override
  public void retried(String kind, String reason) {
    forgeRetries.labelValues(kind, reason).inc();
  }

  /** One reconcile ended with {@code outcome} after {@code took}. */
  public void reconciled(Reconciler.Outcome outcome, Duration took) {
    reconciles.labelValues(outcome.name().toLowerCase(Locale.ROOT)).inc();
    latency.observe(took.toNanos() / 1e9);
  }

  /** The work queue's depth, read at each scrape. */
  public void queueDepth(IntSupplier depth) {
    this.queueDepth = depth;
  }

  /** Objects held in the informer caches, by kind (jobsets, pods, workloads, localqueues). */
  public void cached(Supplier<Map<String, Integer>> counts) {
    this.cached = counts;
  }

  /**
   * One retention pass: {@code runs} pruned, or {@code failed} when the GitOps repo could not be
   * written.
   */
  public void pruned(int runs, boolean failed) {
    prunedRuns.inc(runs);
    prunePasses.labelValues(failed ? "error" : "ok").inc();
  }

  /** One progress push answered with HTTP status {@code code} ({@link ProgressEndpoint}). */
  public void pushed(int code) {
    pushes.labelValues(Integer.toString(code)).inc();
  }

  /** Whether this replica holds the Lease: {@code trainyard_leader} 1 or 0. */
  public void leader(boolean leading) {
    leader.set(leading ? 1 : 0);
  }

  /**
   * The value of one counter series written as the text format writes it, e.g. {@code
   * trainyard_forge_calls_total{forge="github",result="posted"}} or {@code
   * trainyard_pruned_runs_total{}} (labels in any order, values escaped as in the text format); 0
   * for a series never counted or a name that is no counter here.
   */
  public long counter(String series) {
    Counter counter = counters.get(series.split("\\{", 2)[0]);
    if (counter == null) {
      return 0;
    }
    Labels labels = labels(series);
    return counter.collect().getDataPoints().stream()
        .filter(p -> p.getLabels().equals(labels))
        .mapToLong(p -> Math.round(p.getValue()))
        .sum();
  }

  /** All metrics in the Prometheus text format 0.0.4, families sorted by name, series by labels. */
  public String render() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      PrometheusTextFormatWriter.create().write(out, registry.scrape());
    } catch (IOException e) {
      throw new UncheckedIOException("writing metrics to memory failed", e);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  private Counter counter(String name, String help, String... labelNames) {
    Counter counter =
        Counter.builder()
            .name(name)
            .help(help)
            .labelNames(labelNames)
            .withoutExemplars()
            .register(registry);
    counters.put(name, counter);
    return counter;
  }

  /** The labels of {@code name{a="x",b="y\"z"}}, values unescaped; none without braces. */
  private static Labels labels(String series) {
    List<String> names = new ArrayList<>();
    List<String> values = new ArrayList<>();
    Matcher m = LABEL.matcher(series);
    while (m.find()) {
      names.add(m.group(1));
      values.add(unescape(m.group(2)));
    }
    return Labels.of(names, values);
  }

  /**
   * The text format's escapes undone: {@code \n} a line break, {@code \X} the character X ({@link
   * #LABEL} matched no value that ends in a lone backslash).
   */
  private static String unescape(String value) {
    StringBuilder b = new StringBuilder(value.length());
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '\\') {
        char next = value.charAt(++i);
        b.append(next == 'n' ? '\n' : next);
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }
}
