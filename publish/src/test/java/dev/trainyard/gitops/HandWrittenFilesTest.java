package dev.trainyard.gitops;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
    return HandWrittenFiles.inTheWay(
            new FolderSnapshot(root), tree, "compile --out", "nothing was written")
        .stream()
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
}
