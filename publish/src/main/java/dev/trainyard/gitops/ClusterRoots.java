package dev.trainyard.gitops;

import dev.trainyard.compiler.manifest.EmitStage;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Keeps the kustomize roots that Flux and Argo CD point at in step with the runs, after any change:
 *
 * <pre>
 * clusters/&lt;cluster&gt;/kustomization.yaml              resources: [_cluster, &lt;namespace&gt;, …]   (everything)
 * clusters/&lt;cluster&gt;/&lt;namespace&gt;/kustomization.yaml  resources: [_queues, &lt;run&gt;, …]           (one team)
 * </pre>
 *
 * A Flux Kustomization (or Argo CD Application) per namespace can then sync one team's runs and depend on the
 * cluster's queue objects ({@code _cluster}); a namespace left with no folder is removed, a cluster root is
 * kept even when it lists nothing. Pure: it reads the
 * base tree and the pending edits, and returns more edits.
 */
public final class ClusterRoots {
  private ClusterRoots() {}

  /** The edits that rewrite the roots of every cluster {@code edits} touch, as the tree will be after them. */
  public static List<TreeEdit> after(Snapshot base, List<TreeEdit> edits) {
    SortedSet<String> clusters = new TreeSet<>();
    for (TreeEdit e : edits) {
      String[] parts = e.path().split("/");
      if (parts.length >= 3 && parts[0].equals("clusters")) {
        clusters.add(parts[1]);
      }
    }
    List<TreeEdit> roots = new ArrayList<>();
    for (String cluster : clusters) {
      roots.addAll(cluster(base, edits, "clusters/" + cluster));
    }
    return roots;
  }

  private static List<TreeEdit> cluster(Snapshot base, List<TreeEdit> edits, String clusterDir) {
    List<TreeEdit> roots = new ArrayList<>();
    List<String> resources = new ArrayList<>();
    for (String child : folders(base, edits, clusterDir)) {
      if (child.equals(EmitStage.CLUSTER_FOLDER)) {
        resources.add(child);
        continue;
      }
      if (RunFolder.reserved(child)) {
        continue;
      }
      String nsDir = clusterDir + "/" + child;
      SortedSet<String> inside = folders(base, edits, nsDir);
      if (inside.isEmpty()) {
        roots.add(new TreeEdit.DeleteFolder(nsDir));
      } else {
        roots.add(new TreeEdit.WriteFile(nsDir + "/kustomization.yaml", EmitStage.kustomization(List.copyOf(inside))));
        resources.add(child);
      }
    }
    // Kept even when empty ("resources: []" builds to nothing): the sync tools point here, and pruned-runs.txt lives here.
    roots.add(new TreeEdit.WriteFile(clusterDir + "/kustomization.yaml", EmitStage.kustomization(resources)));
    return roots;
  }

  /** The sub-folders of {@code folder} once {@code edits} are applied to {@code base}. */
  static SortedSet<String> folders(Snapshot base, List<TreeEdit> edits, String folder) {
    SortedSet<String> names = new TreeSet<>();
    for (String child : base.children(folder)) {
      if (child.endsWith("/")) {
        names.add(child.substring(0, child.length() - 1));
      }
    }
    for (TreeEdit e : edits) {
      if (!e.path().startsWith(folder + "/")) {
        continue;
      }
      String rest = e.path().substring(folder.length() + 1);
      int slash = rest.indexOf('/');
      String first = slash < 0 ? rest : rest.substring(0, slash);
      boolean direct = slash < 0;
      if (e instanceof TreeEdit.DeleteFolder || e instanceof TreeEdit.ReplaceFolder r && r.files().isEmpty()) {
        if (direct) {
          names.remove(first);
        }
      } else if (!direct || e instanceof TreeEdit.ReplaceFolder) {
        names.add(first);
      }
    }
    return names;
  }
}
