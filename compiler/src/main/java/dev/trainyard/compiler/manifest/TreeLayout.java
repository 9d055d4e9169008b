package dev.trainyard.compiler.manifest;

import java.util.Optional;

/**
 * The GitOps tree's layout, written by {@link EmitStage} and read back by publishing, pruning and
 * the leak check; the one place that knows it:
 *
 * <pre>
 * clusters/&lt;cluster&gt;/_cluster/               cluster-scoped Kueue objects
 * clusters/&lt;cluster&gt;/&lt;namespace&gt;/_queues/     the namespace's LocalQueues
 * clusters/&lt;cluster&gt;/&lt;namespace&gt;/&lt;run&gt;/       one run's objects, one per file
 * clusters/&lt;cluster&gt;/&lt;namespace&gt;/_checkpoint-&lt;key&gt;/  a job's checkpoint claim: outlives
 *                                               its runs, removed by checkpoint retention
 * </pre>
 *
 * Cluster, namespace and run names are DNS labels, so they never start with {@code _} (Trainyard's
 * own folders) or {@code .} (hidden ones).
 *
 * @param cluster the cluster folder the path lies inside, if any
 * @param namespace the namespace folder the path lies inside, if any
 * @param run the run folder the path lies inside, if any
 */
public record TreeLayout(
    Optional<String> cluster, Optional<String> namespace, Optional<String> run) {
  /** The top folder. */
  public static final String CLUSTERS = "clusters";

  /** Folder of a cluster's cluster-scoped Kueue objects, next to its namespaces. */
  public static final String CLUSTER_FOLDER = "_cluster";

  /** Folder of a namespace's LocalQueues, next to its runs. */
  public static final String QUEUES_FOLDER = "_queues";

  /** Prefix of a checkpoint claim's folder, next to the namespace's runs. */
  public static final String CHECKPOINT_PREFIX = "_checkpoint-";

  /** {@code clusters/<cluster>/<namespace>/_checkpoint-<key>}, without a trailing slash. */
  public static String checkpointFolder(String cluster, String namespace, String key) {
    return clusterFolder(cluster) + "/" + namespace + "/" + CHECKPOINT_PREFIX + key;
  }

  /**
   * The checkpoint key of a folder name inside a namespace folder ({@code _checkpoint-llama-3f2a1b}
   * → {@code llama-3f2a1b}), empty for any other name.
   */
  public static Optional<String> checkpointKey(String folderName) {
    return folderName.startsWith(CHECKPOINT_PREFIX)
            && folderName.length() > CHECKPOINT_PREFIX.length()
        ? Optional.of(folderName.substring(CHECKPOINT_PREFIX.length()))
        : Optional.empty();
  }

  /** {@code clusters/<cluster>}, without a trailing slash. */
  public static String clusterFolder(String cluster) {
    return CLUSTERS + "/" + cluster;
  }

  /** {@code clusters/<cluster>/<namespace>/<run>}, without a trailing slash. */
  public static String runFolder(String cluster, String namespace, String run) {
    return clusterFolder(cluster) + "/" + namespace + "/" + run;
  }

  /**
   * Where a repository path (file or folder, {@code /}-separated, no leading slash) lies: inside
   * {@code clusters/<cluster>/} (cluster), inside {@code clusters/<cluster>/<namespace>/} with a
   * namespace that is not one of Trainyard's folders (namespace), and inside {@code
   * clusters/<cluster>/<namespace>/<run>/} with none of the three Trainyard's or hidden (run). Each
   * is empty when the path does not lie that deep, e.g. {@code clusters/c/ns/_queues/q.yaml} has
   * cluster {@code c}, namespace {@code ns} and no run.
   */
  public static TreeLayout of(String path) {
    String[] parts = path.split("/");
    if (parts.length < 3 || !parts[0].equals(CLUSTERS)) {
      return new TreeLayout(Optional.empty(), Optional.empty(), Optional.empty());
    }
    Optional<String> namespace =
        parts.length >= 4 && !reserved(parts[2]) ? Optional.of(parts[2]) : Optional.empty();
    boolean inRun =
        parts.length >= 5 && namespace.isPresent() && !reserved(parts[1]) && !reserved(parts[3]);
    return new TreeLayout(
        Optional.of(parts[1]), namespace, inRun ? Optional.of(parts[3]) : Optional.empty());
  }

  /**
   * Whether a folder name is Trainyard's own ({@code _cluster}, {@code _queues}) or hidden, never a
   * cluster, namespace or run.
   */
  public static boolean reserved(String name) {
    return name.startsWith("_") || name.startsWith(".");
  }
}
