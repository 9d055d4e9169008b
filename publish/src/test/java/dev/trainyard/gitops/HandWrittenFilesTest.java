package dev.trainyard.gitops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.manifest.OutputTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link HandWrittenFiles} on a working tree: which files in a queue folder count as Trainyard's
 * and which stop the write (E814).
 */
class HandWrittenFilesTest {
  @TempDir Path root;

  static final String QUEUES = "clusters/local/default/_queues";
  static final String OURS =
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata:\n  annotations:\n"
          + "    trainyard.dev/platform: <embedded default platform>\n  name: default\n";

  private void file(String path, String text) throws Exception {
    Path p = root.resolve(path);
    Files.createDirectories(p.getParent());
    Files.writeString(p, text);
  }

  private List<String> refused() {
    TreeMap<String, String> files = new TreeMap<>();
    files.put(QUEUES + "/kustomization.yaml", "resources:\n- localqueue-default.yaml\n");
    files.put(QUEUES + "/localqueue-default.yaml", OURS);
    OutputTree tree = new OutputTree(files, List.of(QUEUES));
    return HandWrittenFiles.onDisk(root, tree, "compile --out", "nothing was written").stream()
        .map(Diagnostic::location)
        .map(Object::toString)
        .toList();
  }

  @Test
  @DisplayName(
      "Trainyard's own files (annotated, or the folder's kustomization), edited or not, are rewritten without a word")
  void ownFiles() throws Exception {
    file(QUEUES + "/kustomization.yaml", "resources: []\n");
    file(QUEUES + "/localqueue-default.yaml", OURS.replace("default\n", "edited\n"));
    file(QUEUES + "/localqueue-old.yaml", OURS);
    assertEquals(List.of(), refused());
  }

  @Test
  @DisplayName(
      "a kustomization.yaml in a subfolder of _queues/, and a file that names the annotation only in a comment, are hand-written: E814 for each")
  void nestedKustomizationAndComment() throws Exception {
    file(QUEUES + "/limits/kustomization.yaml", "resources:\n- lr.yaml\n");
    file(
        QUEUES + "/limitrange.yaml",
        "# trainyard.dev/platform: copied from a queue file\napiVersion: v1\nkind: LimitRange\n");
    file(QUEUES + "/flat.yaml", "trainyard.dev/platform: at the top level\n");
    assertEquals(
        List.of(
            QUEUES + "/flat.yaml",
            QUEUES + "/limitrange.yaml",
            QUEUES + "/limits/kustomization.yaml"),
        refused());
  }

  @Test
  @DisplayName(
      "symbolic links in a queue folder, or the queue folder itself a link, are E814 too (the write would replace them; their targets are never read)")
  void links() throws Exception {
    file("outside/limitrange.yaml", "kind: LimitRange\n");
    file(QUEUES + "/localqueue-default.yaml", OURS);
    Files.createSymbolicLink(
        root.resolve(QUEUES + "/limitrange.yaml"), root.resolve("outside/limitrange.yaml"));
    Files.createSymbolicLink(root.resolve(QUEUES + "/dangling.yaml"), root.resolve("nowhere"));
    assertEquals(List.of(QUEUES + "/dangling.yaml", QUEUES + "/limitrange.yaml"), refused());
    Path queues = root.resolve(QUEUES);
    Files.move(queues, root.resolve("elsewhere"));
    Files.createSymbolicLink(queues, root.resolve("elsewhere"));
    assertEquals(List.of(QUEUES), refused());
  }

  @Test
  @DisplayName(
      "the hint names where the object can go instead: beside the namespace's queue folder, or the cluster's for _cluster/")
  void hintByFolder() throws Exception {
    String cluster = "clusters/local/_cluster";
    file(cluster + "/notes.md", "ours\n");
    file(QUEUES + "/limitrange.yaml", "kind: LimitRange\n");
    TreeMap<String, String> files = new TreeMap<>();
    files.put(cluster + "/kustomization.yaml", "resources: []\n");
    files.put(QUEUES + "/kustomization.yaml", "resources: []\n");
    List<Diagnostic> found =
        HandWrittenFiles.onDisk(
            root,
            new OutputTree(files, List.of(cluster, QUEUES)),
            "submit",
            "nothing was committed");
    assertEquals(2, found.size(), found.toString());
    assertEquals(
        "ask the platform team to move it beside the folder, to clusters/local/notes.md, and list it"
            + " in the resources of clusters/local/kustomization.yaml with _cluster and the namespaces"
            + " (trainyard keeps entries it did not write); nothing was committed",
        found.get(0).hint());
    assertEquals(
        "hand-written file in a folder trainyard owns: this submit rewrites the folder whole from"
            + " platform.yaml and would delete it",
        found.get(1).message());
    assertEquals(
        "ask the platform team to move it beside the folder, to"
            + " clusters/local/default/limitrange.yaml, and list it in the resources of"
            + " clusters/local/default/kustomization.yaml with _queues and the run folders (trainyard"
            + " keeps entries it did not write); nothing was committed",
        found.get(1).hint());
    Path clusterDir = root.resolve(cluster);
    Files.delete(clusterDir.resolve("notes.md"));
    Files.move(clusterDir, root.resolve("cluster-elsewhere"));
    Files.createSymbolicLink(clusterDir, root.resolve("cluster-elsewhere"));
    Files.delete(root.resolve(QUEUES + "/limitrange.yaml"));
    List<Diagnostic> linked =
        HandWrittenFiles.onDisk(
            root,
            new OutputTree(files, List.of(cluster, QUEUES)),
            "submit",
            "nothing was committed");
    assertEquals(1, linked.size(), linked.toString());
    assertEquals(cluster, linked.get(0).location().toString());
    assertEquals(
        "ask the platform team to make clusters/local/_cluster a plain folder (trainyard writes it"
            + " whole) and keep their own objects beside it, listed in the resources of"
            + " clusters/local/kustomization.yaml (trainyard keeps entries it did not write);"
            + " nothing was committed",
        linked.get(0).hint(),
        "the linked _cluster folder itself");
  }

  @Test
  @DisplayName(
      "a hand-written sub-folder of a queue folder: the hint moves the file beside the folder and lists the sub-folder")
  void hintForSubFolder() {
    assertEquals(
        "ask the platform team to move it beside the folder, to"
            + " clusters/local/default/quota/kustomization.yaml, and list quota in the resources of"
            + " clusters/local/default/kustomization.yaml with _queues and the run folders (trainyard"
            + " keeps entries it did not write)",
        HandWrittenFiles.instead(QUEUES + "/quota/kustomization.yaml"));
    assertThrows(
        IllegalArgumentException.class,
        () -> HandWrittenFiles.instead("clusters/local/default/run/job.yaml"));
  }

  @Test
  @DisplayName(
      "only queue folders are checked: a run folder's extra file or link is Trainyard's to replace; a hand-written file the write leaves byte-identical is no loss")
  void onlyQueueFoldersAndOnlyLosses() throws Exception {
    String run = "clusters/local/default/llama-1a2b3c";
    file(run + "/notes.md", "mine\n");
    Files.createSymbolicLink(root.resolve(run + "/link.yaml"), root.resolve("nowhere"));
    file(QUEUES + "/same.yaml", "kind: LimitRange\n");
    TreeMap<String, String> files = new TreeMap<>();
    files.put(run + "/kustomization.yaml", "resources: []\n");
    files.put(QUEUES + "/kustomization.yaml", "resources: []\n");
    files.put(QUEUES + "/same.yaml", "kind: LimitRange\n");
    assertEquals(
        List.of(),
        HandWrittenFiles.onDisk(
            root, new OutputTree(files, List.of(run, QUEUES)), "compile --out", "nothing"));
  }

  @Test
  @DisplayName("files and links come back in path order, whichever check found them")
  void pathOrder() throws Exception {
    file(QUEUES + "/z-limitrange.yaml", "kind: LimitRange\n");
    Files.createSymbolicLink(root.resolve(QUEUES + "/a-link.yaml"), root.resolve("nowhere"));
    assertEquals(List.of(QUEUES + "/a-link.yaml", QUEUES + "/z-limitrange.yaml"), refused());
  }

  @Test
  @DisplayName(
      "the annotation counts only where Trainyard writes it (metadata.annotations of a one-document file): as a label, a line of a block scalar, or beside a second document it is hand-written; a renamed copy of a queue file keeps the claim")
  void annotationWhereTrainyardWritesIt() throws Exception {
    file(
        QUEUES + "/label.yaml",
        "apiVersion: v1\nkind: LimitRange\nmetadata:\n  labels:\n    trainyard.dev/platform: team\n");
    file(
        QUEUES + "/scalar.yaml",
        "apiVersion: v1\ndata:\n  notes: |\n    trainyard.dev/platform: see runbook\nkind: ConfigMap\n");
    file(QUEUES + "/two.yaml", OURS + "---\napiVersion: v1\nkind: LimitRange\n");
    file(QUEUES + "/localqueue-team-a.yaml", OURS.replace("name: default", "name: team-a"));
    assertEquals(
        List.of(QUEUES + "/label.yaml", QUEUES + "/scalar.yaml", QUEUES + "/two.yaml"), refused());
  }
}
