package dev.trainyard.gitops;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The kustomize roots, computed from a base tree and pending edits without git. */
class ClusterRootsTest {
  private static final String K = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n";

  /** A tree held in a map, for pure tests. */
  record MapSnapshot(SortedMap<String, String> files) implements Snapshot {
    @Override
    public Optional<String> commit() {
      return Optional.empty();
    }

    @Override
    public Optional<String> read(String path) {
      return Optional.ofNullable(files.get(path));
    }

    @Override
    public List<String> children(String folder) {
      String prefix = folder.isEmpty() ? "" : folder + "/";
      java.util.TreeSet<String> names = new java.util.TreeSet<>();
      for (String f : files.keySet()) {
        if (f.startsWith(prefix)) {
          String rest = f.substring(prefix.length());
          int slash = rest.indexOf('/');
          names.add(slash < 0 ? rest : rest.substring(0, slash + 1));
        }
      }
      return new ArrayList<>(names);
    }

    @Override
    public SortedMap<String, String> folder(String folder) {
      SortedMap<String, String> out = new TreeMap<>();
      files.forEach((k, v) -> {
        if (k.startsWith(folder + "/")) {
          out.put(k.substring(folder.length() + 1), v);
        }
      });
      return out;
    }
  }

  static MapSnapshot tree(String... paths) {
    SortedMap<String, String> files = new TreeMap<>();
    for (String p : paths) {
      files.put(p, "x");
    }
    return new MapSnapshot(files);
  }

  static Map<String, String> written(List<TreeEdit> edits) {
    Map<String, String> out = new TreeMap<>();
    for (TreeEdit e : edits) {
      out.put(e.path(), e instanceof TreeEdit.WriteFile w ? w.text() : "DELETED");
    }
    return out;
  }

  @Test
  @DisplayName("a new run in a new namespace lists _cluster first, then namespaces; the namespace lists _queues and its runs")
  void newRun() {
    MapSnapshot base = tree("clusters/c1/_cluster/kustomization.yaml", "clusters/c1/team-a/_queues/kustomization.yaml",
        "clusters/c1/team-a/run-1/kustomization.yaml", "README.md");
    List<TreeEdit> edits = List.of(new TreeEdit.ReplaceFolder("clusters/c1/team-b/run-2", new TreeMap<>(Map.of("kustomization.yaml", "k"))),
        new TreeEdit.ReplaceFolder("clusters/c1/team-b/_queues", new TreeMap<>(Map.of("kustomization.yaml", "k"))));
    assertEquals(Map.of(
        "clusters/c1/kustomization.yaml", K + "- _cluster\n- team-a\n- team-b\n",
        "clusters/c1/team-a/kustomization.yaml", K + "- _queues\n- run-1\n",
        "clusters/c1/team-b/kustomization.yaml", K + "- _queues\n- run-2\n"), written(ClusterRoots.after(base, edits)));
  }

  @Test
  @DisplayName("a namespace left with no folder is removed and dropped from the cluster root, which stays even when empty")
  void emptied() {
    MapSnapshot base = tree("clusters/c1/team-a/run-1/kustomization.yaml", "clusters/c1/pruned-runs.txt");
    List<TreeEdit> edits = List.of(new TreeEdit.DeleteFolder("clusters/c1/team-a/run-1"));
    assertEquals(Map.of("clusters/c1/team-a", "DELETED", "clusters/c1/kustomization.yaml", "apiVersion: kustomize.config.k8s.io/v1beta1\n"
        + "kind: Kustomization\nresources: []\n"), written(ClusterRoots.after(base, edits)));
  }

  @Test
  @DisplayName("only clusters the edits touch get new roots; files and dot-folders are not resources")
  void onlyTouched() {
    MapSnapshot base = tree("clusters/c1/ns/r/kustomization.yaml", "clusters/c2/ns/r/kustomization.yaml", "clusters/c2/.trainyard/x",
        "clusters/c2/pruned-runs.txt");
    List<TreeEdit> edits = List.of(new TreeEdit.WriteFile("clusters/c2/pruned-runs.txt", "ns/r\n"));
    assertEquals(Map.of("clusters/c2/kustomization.yaml", K + "- ns\n", "clusters/c2/ns/kustomization.yaml", K + "- r\n"),
        written(ClusterRoots.after(base, edits)));
  }

  @Test
  @DisplayName("edits are applied in order: a folder deleted then replaced exists, replaced with nothing does not")
  void overlayOrder() {
    MapSnapshot base = tree("clusters/c/ns/a/k", "clusters/c/ns/b/k");
    List<TreeEdit> edits = List.of(new TreeEdit.DeleteFolder("clusters/c/ns/a"), new TreeEdit.ReplaceFolder("clusters/c/ns/a", new TreeMap<>(Map.of("k", "v"))),
        new TreeEdit.ReplaceFolder("clusters/c/ns/b", new TreeMap<>()), new TreeEdit.WriteFile("clusters/c/ns/d/k", "v"));
    assertEquals(java.util.Set.of("a", "d"), ClusterRoots.folders(base, edits, "clusters/c/ns"));
  }
}
