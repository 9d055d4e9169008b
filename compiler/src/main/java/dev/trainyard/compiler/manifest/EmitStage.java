package dev.trainyard.compiler.manifest;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Stage 7: lays a {@link ManifestSet} out as files, one object per file ({@code
 * <kind>-<name>.yaml}) and a {@code kustomization.yaml} per folder, so Argo CD, Flux and {@code
 * kubectl kustomize} read each folder:
 *
 * <pre>
 * clusters/&lt;cluster&gt;/_cluster/                   ClusterQueues and ResourceFlavors (cluster-scoped)
 * clusters/&lt;cluster&gt;/&lt;namespace&gt;/_queues/        LocalQueues
 * clusters/&lt;cluster&gt;/&lt;namespace&gt;/&lt;run&gt;/          the run
 * </pre>
 *
 * The {@code _} folders cannot clash with a namespace or run name (those are DNS labels). Pure: no
 * disk.
 */
public final class EmitStage {
  /** Folder of cluster-scoped queue objects in a cluster's folder. */
  public static final String CLUSTER_FOLDER = "_cluster";

  /** Folder of a namespace's LocalQueues. */
  public static final String QUEUES_FOLDER = "_queues";

  /** The files of {@code set}. */
  public OutputTree emit(ManifestSet set) {
    SortedMap<String, String> files = new TreeMap<>();
    String clusterDir = "clusters/" + set.cluster();
    String runDir = clusterDir + "/" + set.namespace() + "/" + set.runName();
    String clusterQueues = clusterDir + "/" + CLUSTER_FOLDER;
    String localQueues = clusterDir + "/" + set.namespace() + "/" + QUEUES_FOLDER;
    folder(files, runDir, set.run());
    folder(files, clusterQueues, set.clusterQueues());
    folder(files, localQueues, set.localQueues());
    List<String> owned = new ArrayList<>(List.of(runDir));
    if (!set.clusterQueues().isEmpty()) {
      owned.add(clusterQueues);
    }
    if (!set.localQueues().isEmpty()) {
      owned.add(localQueues);
    }
    return new OutputTree(files, owned);
  }

  /** Where the run's folder goes. */
  public static String runFolder(String cluster, String namespace, String runName) {
    return "clusters/" + cluster + "/" + namespace + "/" + runName;
  }

  private static void folder(SortedMap<String, String> files, String dir, List<Manifest> objects) {
    if (objects.isEmpty()) {
      return;
    }
    List<String> names = new ArrayList<>();
    for (Manifest m : objects) {
      names.add(m.fileName());
      files.put(dir + "/" + m.fileName(), YamlWriter.write(m.object()));
    }
    files.put(dir + "/kustomization.yaml", kustomization(names));
  }

  /**
   * The text of a {@code kustomization.yaml} listing {@code resources} (files or folders relative
   * to it), sorted, so the same set always gives the same bytes.
   */
  public static String kustomization(List<String> resources) {
    ObjectNode k = CanonicalJson.mapper().createObjectNode();
    k.put("apiVersion", "kustomize.config.k8s.io/v1beta1").put("kind", "Kustomization");
    resources.stream().sorted().forEach(k.putArray("resources")::add);
    return YamlWriter.write(k);
  }
}
