package dev.trainyard.gitops;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.manifest.OutputTree;
import dev.trainyard.compiler.testing.Wording;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The kustomize roots, computed from a base tree and pending edits without git. */
class ClusterRootsTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  private static final String K =
      "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n";

  static MapSnapshot tree(String... paths) {
    SortedMap<String, String> files = new TreeMap<>();
    for (String p : paths) {
      int eq = p.indexOf('=');
      files.put(eq < 0 ? p : p.substring(0, eq), eq < 0 ? "x" : p.substring(eq + 1));
    }
    return new MapSnapshot(files);
  }

  static Map<String, String> written(ClusterRoots.Result result) {
    assertEquals(List.of(), result.diagnostics());
    Map<String, String> out = new TreeMap<>();
    for (TreeEdit e : result.edits()) {
      out.put(e.path(), e instanceof TreeEdit.WriteFile w ? w.text() : "DELETED");
    }
    return out;
  }

  static TreeEdit.ReplaceFolder folder(String path) {
    return new TreeEdit.ReplaceFolder(path, new TreeMap<>(Map.of("kustomization.yaml", "k")));
  }

  @Test
  @DisplayName(
      "a new run in a new namespace: the cluster root gains the namespace, the namespace root lists _queues and the run")
  void newRun() {
    MapSnapshot base =
        tree(
            "clusters/c1/_cluster/kustomization.yaml",
            "clusters/c1/team-a/_queues/kustomization.yaml",
            "clusters/c1/team-a/run-1/kustomization.yaml",
            "clusters/c1/team-a/kustomization.yaml=" + K + "- _queues\n- run-1\n",
            "clusters/c1/kustomization.yaml=" + K + "- _cluster\n- team-a\n",
            "README.md");
    List<TreeEdit> edits =
        List.of(folder("clusters/c1/team-b/run-2"), folder("clusters/c1/team-b/_queues"));
    assertEquals(
        Map.of(
            "clusters/c1/kustomization.yaml", K + "- _cluster\n- team-a\n- team-b\n",
            "clusters/c1/team-b/kustomization.yaml", K + "- _queues\n- run-2\n"),
        written(ClusterRoots.after(base, edits)));
  }

  @Test
  @DisplayName(
      "entries and fields Trainyard does not own are kept; a deleted run leaves the list; the namespace folder stays")
  void keepsForeignEntries() {
    MapSnapshot base =
        tree(
            "clusters/c1/team-a/run-1/kustomization.yaml",
            "clusters/c1/team-a/handmade.yaml",
            "clusters/c1/team-a/kustomization.yaml="
                + K
                + "- handmade.yaml\n- run-1\nnamespace: team-a\n",
            "clusters/c1/apps/kustomization.yaml",
            "clusters/c1/apps/cm.yaml",
            "clusters/c1/kustomization.yaml=" + K + "- apps\n- team-a\n");
    assertEquals(
        Map.of(
            "clusters/c1/team-a/kustomization.yaml",
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: team-a\nresources:\n- handmade.yaml\n"),
        written(
            ClusterRoots.after(
                base, List.of(new TreeEdit.DeleteFolder("clusters/c1/team-a/run-1")))));
  }

  @Test
  @DisplayName(
      "a root whose resources do not change is not rewritten; a new sub-folder is listed only with a kustomization.yaml")
  void onlyWhatChanged() {
    MapSnapshot base =
        tree(
            "clusters/c1/ns/r/kustomization.yaml",
            "clusters/c1/ns/kustomization.yaml=" + K + "- r\n",
            "clusters/c1/kustomization.yaml=# mine\n" + K + "- ns\n",
            "clusters/c1/ns/data/notes.txt",
            "clusters/c1/ns/other/kustomization.yaml");
    assertEquals(
        Map.of("clusters/c1/ns/kustomization.yaml", K + "- other\n- r\n- r2\n"),
        written(ClusterRoots.after(base, List.of(folder("clusters/c1/ns/r2")))));
  }

  @Test
  @DisplayName("the last run pruned from a cluster leaves resources: [] in the roots, which stay")
  void emptied() {
    MapSnapshot base =
        tree(
            "clusters/c1/team-a/run-1/kustomization.yaml",
            "clusters/c1/pruned-runs.txt",
            "clusters/c1/team-a/kustomization.yaml=" + K + "- run-1\n",
            "clusters/c1/kustomization.yaml=" + K + "- team-a\n");
    assertEquals(
        Map.of(
            "clusters/c1/team-a/kustomization.yaml",
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\n"),
        written(
            ClusterRoots.after(
                base, List.of(new TreeEdit.DeleteFolder("clusters/c1/team-a/run-1")))));
  }

  @Test
  @DisplayName(
      "a root that is not a kustomization with a list of resources is E803, and no edit is made")
  void unreadableRoot() {
    for (String text :
        List.of("resources: [\n", "- a\n", "resources: {a: b}\n", "resources: [{a: b}]\n")) {
      ClusterRoots.Result r =
          ClusterRoots.after(
              tree("clusters/c1/ns/kustomization.yaml=" + text),
              List.of(folder("clusters/c1/ns/r")));
      assertEquals(List.of(), r.edits(), text);
      assertEquals(
          List.of(DiagnosticCode.GITOPS_ROOT_UNREADABLE),
          r.diagnostics().stream().map(Diagnostic::code).toList(),
          text);
    }
  }

  @Test
  @DisplayName(
      "a file where the layout needs a folder (clusters, a namespace) is E804 naming the path")
  void fileInTheWay() {
    ClusterRoots.Result r =
        ClusterRoots.after(tree("clusters/c1/ns"), List.of(folder("clusters/c1/ns/r")));
    assertEquals(List.of(), r.edits());
    WORDING.approve(r.diagnostics().get(0).message());
    assertEquals(
        DiagnosticCode.GITOPS_FILE_IN_THE_WAY,
        ClusterRoots.after(tree("clusters"), List.of(folder("clusters/c/ns/r")))
            .diagnostics()
            .get(0)
            .code());
    assertEquals(
        List.of(),
        ClusterRoots.after(
                tree("clusters/c1/pruned-runs.txt"),
                List.of(new TreeEdit.WriteFile("clusters/c1/pruned-runs.txt", "x")))
            .diagnostics(),
        "writing a file over a file is fine");
  }

  @Test
  @DisplayName(
      "edits are applied in order: a folder deleted then replaced exists, replaced with nothing does not")
  void overlayOrder() {
    MapSnapshot base = tree("clusters/c/ns/a/k", "clusters/c/ns/b/k");
    List<TreeEdit> edits =
        List.of(
            new TreeEdit.DeleteFolder("clusters/c/ns/a"),
            new TreeEdit.ReplaceFolder("clusters/c/ns/a", new TreeMap<>(Map.of("k", "v"))),
            new TreeEdit.ReplaceFolder("clusters/c/ns/b", new TreeMap<>()),
            new TreeEdit.WriteFile("clusters/c/ns/d/k", "v"));
    assertEquals(Set.of("a", "d"), ClusterRoots.folders(base, edits, "clusters/c/ns"));
  }

  @Test
  @DisplayName(
      "W815 for each written folder the kustomization.yaml beside it does not list (a trailing / counts as listed); none where there is no such file or it cannot be read")
  void unlisted() {
    MapSnapshot disk =
        tree(
            "clusters/c1/team-a/kustomization.yaml=" + K + "- _queues/\n- run-1\n",
            "clusters/c1/kustomization.yaml=resources: {not: a list}\n");
    OutputTree written =
        new OutputTree(
            new TreeMap<>(
                Map.of(
                    "clusters/c1/team-a/run-2/kustomization.yaml", "k",
                    "clusters/c1/team-a/run-1/kustomization.yaml", "k",
                    "clusters/c1/team-a/_queues/kustomization.yaml", "k",
                    "clusters/c1/_cluster/kustomization.yaml", "k",
                    "clusters/c2/team-b/run-3/kustomization.yaml", "k")),
            List.of(
                "clusters/c1/team-a/run-2",
                "clusters/c1/team-a/run-1",
                "clusters/c1/team-a/_queues",
                "clusters/c1/_cluster",
                "clusters/c2/team-b/run-3"));
    List<Diagnostic> found = ClusterRoots.unlisted(disk, written);
    assertEquals(1, found.size(), found.toString());
    Diagnostic d = found.get(0);
    assertEquals(DiagnosticCode.FOLDER_NOT_LISTED, d.code());
    assertEquals("clusters/c1/team-a/kustomization.yaml", d.location().toString());
    assertEquals(
        "the folder run-2 was written but is not in the resources of"
            + " clusters/c1/team-a/kustomization.yaml: a sync of clusters/c1/team-a does not apply"
            + " it",
        d.message());
    assertEquals(
        "add `- run-2` to its resources, or publish with `trainyard submit`, which keeps that list",
        d.hint());
    assertEquals(false, d.isError());
  }
}
