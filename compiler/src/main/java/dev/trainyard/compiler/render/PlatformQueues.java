package dev.trainyard.compiler.render;

import dev.trainyard.compiler.manifest.Manifest;
import dev.trainyard.compiler.manifest.QueueSet;
import dev.trainyard.compiler.platform.Platform;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The Kueue objects of a whole platform.yaml, cluster by cluster, made by the same code that gives
 * a run's compile its queue folders ({@link QueueObjects}), with the same provenance: what {@code
 * trainyard platform render} writes is byte for byte what the next {@code submit} to any namespace
 * would write.
 *
 * <pre>
 * List&lt;QueueSet&gt; sets = PlatformQueues.of(platform, Compiler.VERSION);   // one per cluster
 * </pre>
 */
public final class PlatformQueues {
  private PlatformQueues() {}

  /**
   * One {@link QueueSet} per cluster of {@code platform}, in its order: the ResourceFlavors and
   * ClusterQueues behind the LocalQueues of the cluster's namespaces, and each namespace's queue
   * folder.
   *
   * @param compilerVersion stamped as {@code trainyard.dev/compiler-version}
   */
  public static List<QueueSet> of(Platform platform, String compilerVersion) {
    Map<String, String> annotations = QueueObjects.annotations(platform, compilerVersion);
    List<QueueSet> out = new ArrayList<>();
    for (Platform.Cluster cluster : platform.clusters()) {
      SortedMap<String, List<Manifest>> local = new TreeMap<>();
      platform.namespaces().stream()
          .filter(n -> n.cluster().equals(cluster.name()))
          .forEach(
              n -> local.put(n.name(), QueueObjects.localQueues(platform, n.name(), annotations)));
      out.add(
          new QueueSet(
              cluster.name(),
              QueueObjects.clusterScoped(platform, cluster.name(), annotations),
              local));
    }
    return out;
  }
}
