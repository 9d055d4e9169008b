package dev.trainyard.compiler.provenance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Trainyard output trees left out of the uncommitted files, and the .gitignore lines suggested for
 * the rest.
 */
class OutputTreesTest {
  @Test
  @DisplayName(
      "every file under a folder holding clusters/<c>/_cluster/kustomization.yaml is dropped, at any depth")
  void outputTreesDropped() {
    Set<String> untracked =
        new TreeSet<>(
            List.of(
                "out/clusters/prod/_cluster/kustomization.yaml",
                "out/clusters/prod/team-a/jobset.yaml",
                "out/clusters/stage/x.yaml",
                "out/notes.txt",
                "clusters-notes.txt",
                "train.py",
                "clusters/dev/_cluster/kustomization.yaml",
                "clusters/dev/a.yaml",
                "more/clusters/x/y.yaml"));
    OutputTrees.remove(untracked);
    assertEquals(
        Set.of("out/notes.txt", "clusters-notes.txt", "train.py", "more/clusters/x/y.yaml"),
        untracked);
  }

  @Test
  @DisplayName("a kustomization.yaml outside _cluster marks no output tree")
  void onlyClusterKustomization() {
    Set<String> untracked =
        new TreeSet<>(List.of("out/clusters/prod/kustomization.yaml", "out/clusters/prod/a.yaml"));
    OutputTrees.remove(untracked);
    assertEquals(
        Set.of("out/clusters/prod/kustomization.yaml", "out/clusters/prod/a.yaml"), untracked);
  }

  @Test
  @DisplayName(
      ".gitignore lines: relative to train.yaml's folder, first folder or file name, sorted, at most 3")
  void patterns() {
    Set<String> untracked =
        Set.of("src/__pycache__/a.pyc", "src/b.log", "other/c.txt", "src/d/e/f");
    assertEquals(List.of("__pycache__/", "b.log", "d/"), OutputTrees.patterns(untracked, "src"));
    assertEquals(List.of("other/", "src/"), OutputTrees.patterns(untracked, ""));
    assertEquals(List.of("a.txt"), OutputTrees.patterns(Set.of("a.txt"), "src"));
  }
}
