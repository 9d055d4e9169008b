package dev.trainyard.compiler.manifest;

import java.util.List;
import java.util.Objects;

/**
 * Everything one compile emits, grouped by the folder it belongs in.
 *
 * <pre>
 * clusters/&lt;cluster&gt;/_cluster/                 cluster-scoped queue objects (ResourceFlavor, ClusterQueue)
 * clusters/&lt;cluster&gt;/&lt;namespace&gt;/_queues/      LocalQueues of the namespace
 * clusters/&lt;cluster&gt;/&lt;namespace&gt;/&lt;run&gt;/        the run: JobSet, Secret, ConfigMap, RBAC
 * clusters/&lt;cluster&gt;/&lt;namespace&gt;/_checkpoint-&lt;key&gt;/  the job's checkpoint claim, outliving runs
 * </pre>
 *
 * @param cluster cluster name
 * @param namespace target namespace
 * @param runName the run's folder and JobSet name
 * @param run the run's objects
 * @param clusterQueues cluster-scoped Kueue objects of the cluster
 * @param localQueues the namespace's LocalQueues
 * @param checkpoint the job's checkpoint claim (at most one object), empty when the run has none or
 *     mounts the namespace's shared claim
 */
public record ManifestSet(
    String cluster,
    String namespace,
    String runName,
    List<Manifest> run,
    List<Manifest> clusterQueues,
    List<Manifest> localQueues,
    List<Manifest> checkpoint) {
  /** A set without a checkpoint claim. */
  public ManifestSet(
      String cluster,
      String namespace,
      String runName,
      List<Manifest> run,
      List<Manifest> clusterQueues,
      List<Manifest> localQueues) {
    this(cluster, namespace, runName, run, clusterQueues, localQueues, List.of());
  }

  public ManifestSet {
    Objects.requireNonNull(cluster, "cluster");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(runName, "runName");
    run = List.copyOf(run);
    clusterQueues = List.copyOf(clusterQueues);
    localQueues = List.copyOf(localQueues);
    checkpoint = List.copyOf(checkpoint);
  }
}
