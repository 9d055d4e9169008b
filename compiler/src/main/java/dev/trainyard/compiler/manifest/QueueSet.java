package dev.trainyard.compiler.manifest;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The Kueue objects platform.yaml gives one cluster, grouped by the folder they belong in (the same
 * folders a run's compile writes, {@link ManifestSet}):
 *
 * <pre>
 * clusters/&lt;cluster&gt;/_cluster/              ResourceFlavors and ClusterQueues
 * clusters/&lt;cluster&gt;/&lt;namespace&gt;/_queues/   LocalQueues (and the controller's log RoleBinding, the CA ConfigMap)
 * </pre>
 *
 * @param cluster cluster name
 * @param clusterQueues cluster-scoped Kueue objects, sorted by kind and name
 * @param localQueues each namespace's queue-folder objects, by namespace name (sorted); a namespace
 *     without any is absent
 */
public record QueueSet(
    String cluster, List<Manifest> clusterQueues, SortedMap<String, List<Manifest>> localQueues) {
  public QueueSet {
    Objects.requireNonNull(cluster, "cluster");
    clusterQueues = List.copyOf(clusterQueues);
    SortedMap<String, List<Manifest>> copy = new TreeMap<>();
    for (Map.Entry<String, List<Manifest>> e : localQueues.entrySet()) {
      if (!e.getValue().isEmpty()) {
        copy.put(e.getKey(), List.copyOf(e.getValue()));
      }
    }
    localQueues = Collections.unmodifiableSortedMap(copy);
  }
}
