package dev.trainyard.compiler.manifest;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Stage 7: lays a {@link ManifestSet} out as files in the {@link TreeLayout} (ClusterQueues and
 * ResourceFlavors in {@code _cluster/}, LocalQueues in {@code _queues/}, the run in its folder),
 * one object per file ({@code <kind>-<name>.yaml}) and a {@code kustomization.yaml} per folder, so
 * Argo CD, Flux and {@code kubectl kustomize} read each folder. Pure: no disk.
 */
public final class EmitStage {
  /**
   * The queue folders last laid out, by their {@link QueueSet} (equal objects, compared deeply):
   * every run of a preview or submit brings the same platform's queue folders, and writing them as
   * YAML was ~7 % of a warm compile. A pure function's memo; a race recomputes it, harmlessly.
   */
  private static volatile QueueFiles lastQueues;

  private record QueueFiles(QueueSet set, SortedMap<String, String> files, List<String> owned) {}

  /** The files of {@code set}. */
  public OutputTree emit(ManifestSet set) {
    SortedMap<String, String> files = new TreeMap<>();
    String runDir = TreeLayout.runFolder(set.cluster(), set.namespace(), set.runName());
    folder(files, runDir, set.run());
    String checkpoint = "";
    if (!set.checkpoint().isEmpty()) {
      checkpoint =
          TreeLayout.checkpointFolder(
              set.cluster(), set.namespace(), set.checkpoint().get(0).name());
      folder(files, checkpoint, set.checkpoint());
    }
    List<String> owned = new ArrayList<>(List.of(runDir));
    queueFolders(
        new QueueSet(
            set.cluster(),
            set.clusterQueues(),
            new TreeMap<>(Map.of(set.namespace(), set.localQueues()))),
        files,
        owned);
    if (!checkpoint.isEmpty()) {
      owned.add(checkpoint);
    }
    return new OutputTree(files, owned);
  }

  /**
   * The queue folders of {@code set} alone: {@code _cluster} and each namespace's {@code _queues},
   * laid out exactly as a run's compile lays out its own ({@code trainyard platform render}).
   */
  public OutputTree emit(QueueSet set) {
    SortedMap<String, String> files = new TreeMap<>();
    List<String> owned = new ArrayList<>();
    queueFolders(set, files, owned);
    return new OutputTree(files, owned);
  }

  /** Writes the queue folders of {@code set} into {@code files} and lists them in {@code owned}. */
  private static void queueFolders(
      QueueSet set, SortedMap<String, String> files, List<String> owned) {
    QueueFiles last = lastQueues;
    if (last == null || !last.set().equals(set)) {
      SortedMap<String, String> laidOut = new TreeMap<>();
      List<String> folders = new ArrayList<>();
      layOutQueues(set, laidOut, folders);
      last = new QueueFiles(set, Collections.unmodifiableSortedMap(laidOut), List.copyOf(folders));
      lastQueues = last;
    }
    files.putAll(last.files());
    owned.addAll(last.owned());
  }

  private static void layOutQueues(
      QueueSet set, SortedMap<String, String> files, List<String> owned) {
    String clusterDir = TreeLayout.clusterFolder(set.cluster());
    if (!set.clusterQueues().isEmpty()) {
      String clusterQueues = clusterDir + "/" + TreeLayout.CLUSTER_FOLDER;
      folder(files, clusterQueues, set.clusterQueues());
      owned.add(clusterQueues);
    }
    set.localQueues()
        .forEach(
            (namespace, objects) -> {
              String localQueues = clusterDir + "/" + namespace + "/" + TreeLayout.QUEUES_FOLDER;
              folder(files, localQueues, objects);
              owned.add(localQueues);
            });
  }

  private static void folder(SortedMap<String, String> files, String dir, List<Manifest> objects) {
    if (objects.isEmpty()) {
      return;
    }
    List<String> names = new ArrayList<>();
    for (Manifest m : objects) {
      names.add(m.fileName());
      files.put(dir + "/" + m.fileName(), YamlWriter.write(m.tree()));
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
