package dev.trainyard.compiler.manifest;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Stage 7: lays a {@link ManifestSet} out as files in the {@link TreeLayout} (ClusterQueues and
 * ResourceFlavors in {@code _cluster/}, LocalQueues in {@code _queues/}, the run in its folder),
 * one object per file ({@code <kind>-<name>.yaml}) and a {@code kustomization.yaml} per folder, so
 * Argo CD, Flux and {@code kubectl kustomize} read each folder. Pure: no disk.
 */
public final class EmitStage {

  /** The files of {@code set}. */
  public OutputTree emit(ManifestSet set) {
    SortedMap<String, String> files = new TreeMap<>();
    String clusterDir = TreeLayout.clusterFolder(set.cluster());
    String runDir = TreeLayout.runFolder(set.cluster(), set.namespace(), set.runName());
    String clusterQueues = clusterDir + "/" + TreeLayout.CLUSTER_FOLDER;
    String localQueues = clusterDir + "/" + set.namespace() + "/" + TreeLayout.QUEUES_FOLDER;
    folder(files, runDir, set.run());
    folder(files, clusterQueues, set.clusterQueues());
    folder(files, localQueues, set.localQueues());
    String checkpoint = "";
    if (!set.checkpoint().isEmpty()) {
      checkpoint =
          TreeLayout.checkpointFolder(
              set.cluster(), set.namespace(), set.checkpoint().get(0).name());
      folder(files, checkpoint, set.checkpoint());
    }
    List<String> owned = new ArrayList<>(List.of(runDir));
    if (!set.clusterQueues().isEmpty()) {
      owned.add(clusterQueues);
    }
    if (!set.localQueues().isEmpty()) {
      owned.add(localQueues);
    }
    if (!checkpoint.isEmpty()) {
      owned.add(checkpoint);
    }
    return new OutputTree(files, owned);
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
