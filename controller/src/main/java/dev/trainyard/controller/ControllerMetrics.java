package dev.trainyard.controller;

import dev.trainyard.controller.forge.ForgeEvents;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntSupplier;

/**
 * The controller's Prometheus metrics in the text exposition format
 * (prometheus.io/docs/instrumenting/ exposition_formats, version 0.0.4): forge calls by forge and
 * result, retries by forge and reason, reconciles by outcome, queue depth, leadership, and
 * reconcile latency as a histogram in seconds.
 *
 * <pre>
 * trainyard_forge_calls_total{forge="github",result="posted"} 3
 * trainyard_reconcile_seconds_bucket{le="0.01"} 12
 * </pre>
 */
public final class ControllerMetrics implements ForgeEvents {

  static final double[] BUCKETS = {0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30};
  private final Map<String, Long> counters = new TreeMap<>();
  private final long[] bucketCounts = new long[BUCKETS.length];
  private long latencyCount;
  private double latencySum;
  private IntSupplier queueDepth = () -> 0;
  private java.util.function.Supplier<Map<String, Integer>> cached = Map::of;
  private boolean leader;
  private final Map<String, Object[]> gauges = new TreeMap<>();

  /**
   * Gauge {@code name} (a Prometheus metric name) with {@code help}, read from {@code value} at
   * each scrape; e.g. {@code trainyard_runs_stalled}.
   */
  public synchronized void gauge(String name, String help, java.util.function.LongSupplier value) {
    gauges.put(name, new Object[] {help, value});
  }

  @Override
  public synchronized void called(String kind, String result) {
    count("trainyard_forge_calls_total{forge=\"" + kind + "\",result=\"" + result + "\"}");
  }

  @Override
  public synchronized void retried(String kind, String reason) {
    count("trainyard_forge_retries_total{forge=\"" + kind + "\",reason=\"" + reason + "\"}");
  }

  /** One reconcile ended with {@code outcome} after {@code took}. */
  public synchronized void reconciled(Reconciler.Outcome outcome, Duration took) {
    count(
        "trainyard_reconciles_total{outcome=\""
            + outcome.name().toLowerCase(java.util.Locale.ROOT)
            + "\"}");
    double seconds = took.toNanos() / 1e9;
    latencyCount++;
    latencySum += seconds;
    for (int i = 0; i < BUCKETS.length; i++) {
      if (seconds <= BUCKETS[i]) {
        bucketCounts[i]++;
      }
    }
  }

  public synchronized void queueDepth(IntSupplier depth) {
    this.queueDepth = depth;
  }

  /** Objects held in the informer caches, by kind (jobsets, pods, workloads). */
  public synchronized void cached(java.util.function.Supplier<Map<String, Integer>> counts) {
    this.cached = counts;
  }

  /**
   * One retention pass: {@code runs} pruned, or {@code failed} when the GitOps repo could not be
   * written.
   */
  public synchronized void pruned(int runs, boolean failed) {
    counters.merge("trainyard_pruned_runs_total{}", (long) runs, Long::sum);
    count("trainyard_prune_passes_total{result=\"" + (failed ? "error" : "ok") + "\"}");
  }

  /** One progress push answered with HTTP status {@code code} ({@link ProgressEndpoint}). */
  public synchronized void pushed(int code) {
    count("trainyard_progress_pushes_total{code=\"" + code + "\"}");
  }

  public synchronized void leader(boolean leading) {
    this.leader = leading;
  }

  /**
   * The value of counter line {@code series} (e.g. {@code trainyard_forge_calls_total{...}}), 0 if
   * never counted.
   */
  public synchronized long counter(String series) {
    return counters.getOrDefault(series, 0L);
  }

  /** All metrics as Prometheus text, series sorted. */
  public synchronized String render() {
    StringBuilder b = new StringBuilder();
    family(b, "trainyard_forge_calls_total", "Forge posts by forge and result.");
    family(b, "trainyard_forge_retries_total", "Forge call retries by forge and reason.");
    family(b, "trainyard_reconciles_total", "Reconciles by outcome.");
    family(
        b,
        "trainyard_pruned_runs_total",
        "Finished runs removed from the GitOps repo after their retention.");
    family(b, "trainyard_prune_passes_total", "Retention passes by result.");
    family(b, "trainyard_progress_pushes_total", "Progress pushes from runs' pods by HTTP status.");
    type(b, "trainyard_queue_depth", "gauge", "Run keys waiting in the work queue.");
    b.append("trainyard_queue_depth ").append(queueDepth.getAsInt()).append('\n');
    type(b, "trainyard_leader", "gauge", "1 when this replica holds the Lease and posts.");
    b.append("trainyard_leader ").append(leader ? 1 : 0).append('\n');
    type(b, "trainyard_cached_objects", "gauge", "Objects in the informer caches, by kind.");
    new TreeMap<>(cached.get())
        .forEach(
            (kind, n) ->
                b.append("trainyard_cached_objects{kind=\"")
                    .append(kind)
                    .append("\"} ")
                    .append(n)
                    .append('\n'));
    gauges.forEach(
        (name, g) -> {
          type(b, name, "gauge", (String) g[0]);
          b.append(name)
              .append(' ')
              .append(((java.util.function.LongSupplier) g[1]).getAsLong())
              .append('\n');
        });
    type(b, "trainyard_jvm_heap_used_bytes", "gauge", "JVM heap in use, in bytes.");
    b.append("trainyard_jvm_heap_used_bytes ")
        .append(
            java.lang.management.ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed())
        .append('\n');
    type(b, "trainyard_reconcile_seconds", "histogram", "Reconcile latency in seconds.");
    for (int i = 0; i < BUCKETS.length; i++) {
      b.append("trainyard_reconcile_seconds_bucket{le=\"")
          .append(BUCKETS[i])
          .append("\"} ")
          .append(bucketCounts[i])
          .append('\n');
    }
    b.append("trainyard_reconcile_seconds_bucket{le=\"+Inf\"} ").append(latencyCount).append('\n');
    b.append("trainyard_reconcile_seconds_sum ").append(latencySum).append('\n');
    b.append("trainyard_reconcile_seconds_count ").append(latencyCount).append('\n');
    return b.toString();
  }

  /**
   * One counter family: its HELP and TYPE lines, then its series (the exposition format keeps them
   * together).
   */
  private void family(StringBuilder b, String name, String help) {
    type(b, name, "counter", help);
    counters.forEach(
        (k, v) -> {
          if (k.startsWith(name + "{")) {
            b.append(k).append(' ').append(v).append('\n');
          }
        });
  }

  private void count(String series) {
    counters.merge(series, 1L, Long::sum);
  }

  private static void type(StringBuilder b, String name, String type, String help) {
    b.append("# HELP ").append(name).append(' ').append(help).append('\n');
    b.append("# TYPE ").append(name).append(' ').append(type).append('\n');
  }
}
