package dev.trainyard.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * A plain-text report of a {@link LocalCluster}'s cost: start duration per step (milliseconds) and
 * resident memory per process (MiB, VmRSS from /proc). Written next to the cluster's logs, e.g.
 * {@code target/cluster/shared/footprint-at-start.txt}, and printed to the test output.
 */
final class ClusterFootprint {

  private ClusterFootprint() {}

  static String describe(LocalCluster cluster) {
    StringBuilder out = new StringBuilder("startup (ms):\n");
    long total = 0;
    for (Map.Entry<String, Duration> step : cluster.startupTimes().entrySet()) {
      out.append(String.format("  %-24s %6d%n", step.getKey(), step.getValue().toMillis()));
      total += step.getValue().toMillis();
    }
    out.append(String.format("  %-24s %6d%nresident memory (MiB):%n", "total", total));
    long rss = 0;
    for (ClusterProcess process : cluster.processes()) {
      long bytes = process.residentBytes().orElse(0L);
      rss += bytes;
      out.append(
          String.format("  %-24s %6d  pid %d%n", process.name(), bytes >> 20, process.pid()));
    }
    return out.append(String.format("  %-24s %6d%n", "total", rss >> 20)).toString();
  }

  static void write(LocalCluster cluster, Path file) {
    String text = describe(cluster);
    System.out.print(text);
    try {
      Files.writeString(file, text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
