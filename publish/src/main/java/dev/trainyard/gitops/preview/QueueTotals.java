package dev.trainyard.gitops.preview;

import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.units.Quantities;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * GPUs per LocalQueue of the added and changed runs, beside the ClusterQueue's nominal quota from
 * platform.yaml.
 */
final class QueueTotals {
  private QueueTotals() {}

  static List<QueueTotal> of(List<RunChange> runs, Platform platform) {
    String gpu = platform.gpu().resourceName();
    Map<String, List<RunFacts>> byQueue = new TreeMap<>();
    for (RunChange r : runs) {
      r.after()
          .ifPresent(
              f ->
                  byQueue
                      .computeIfAbsent(
                          f.folder().namespace() + "/" + f.queue(), k -> new ArrayList<>())
                      .add(f));
    }
    List<QueueTotal> out = new ArrayList<>();
    for (List<RunFacts> facts : byQueue.values()) {
      RunFacts first = facts.get(0);
      BigDecimal gpus =
          facts.stream().map(f -> f.total(gpu)).reduce(BigDecimal.ZERO, BigDecimal::add);
      Optional<Platform.ClusterQueue> cq =
          clusterQueue(platform, first.folder().namespace(), first.queue());
      out.add(
          new QueueTotal(
              first.folder().namespace(),
              first.queue(),
              cq.map(Platform.ClusterQueue::name),
              facts.size(),
              gpus,
              cq.flatMap(q -> nominal(q, gpu)),
              cq.flatMap(Platform.ClusterQueue::cohort)));
    }
    return out;
  }

  static Optional<Platform.ClusterQueue> clusterQueue(
      Platform platform, String namespace, String queue) {
    return platform
        .localQueue(namespace, queue)
        .flatMap(lq -> platform.clusterQueue(lq.clusterQueue()));
  }

  /**
   * The nominal quota of {@code resource}, summed over flavors; empty when the queue does not cover
   * it.
   */
  static Optional<BigDecimal> nominal(Platform.ClusterQueue cq, String resource) {
    if (!cq.coveredResources().contains(resource)) {
      return Optional.empty();
    }
    BigDecimal sum = BigDecimal.ZERO;
    for (Platform.FlavorQuota f : cq.flavors()) {
      sum =
          sum.add(Quantities.parse(f.quota().getOrDefault(resource, "0")).orElse(BigDecimal.ZERO));
    }
    return Optional.of(sum);
  }
}
