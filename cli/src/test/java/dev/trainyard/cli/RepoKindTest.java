package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How {@code preview} tells a source repo (train.yaml files) from a GitOps repo, on real files. */
class RepoKindTest {
  @TempDir Path temp;

  private Path file(String path) throws IOException {
    Path f = temp.resolve(path);
    Files.createDirectories(f.getParent());
    return Files.writeString(f, "run: x\n");
  }

  @Test
  @DisplayName("a train.yaml at the root or up to 6 folders below it makes a source repo")
  void depth() throws Exception {
    assertFalse(RepoKind.hasTrainYaml(temp), "an empty folder");
    file("a/b/c/d/e/f/g/train.yaml");
    assertFalse(RepoKind.hasTrainYaml(temp), "7 folders below is too deep");
    file("a/b/c/d/e/train.yaml");
    assertTrue(RepoKind.hasTrainYaml(temp), "6 levels: 5 folders and the file");
  }

  @Test
  @DisplayName("a train.yaml at the root itself counts, a relative root is read as given")
  void atRoot() throws Exception {
    file("train.yaml");
    assertTrue(RepoKind.hasTrainYaml(temp));
  }

  @Test
  @DisplayName(
      "train.yaml files in hidden folders, a folder named train.yaml and other names do not count; the root's own hidden name does not matter")
  void ignored() throws Exception {
    file(".git/x/train.yaml");
    file("jobs/.cache/train.yaml");
    file("jobs/train.yaml.bak");
    Files.createDirectories(temp.resolve("other/train.yaml"));
    assertFalse(RepoKind.hasTrainYaml(temp));
    Path hiddenRoot = Files.createDirectories(temp.resolve(".repo"));
    Files.writeString(hiddenRoot.resolve("train.yaml"), "run: x\n");
    assertTrue(RepoKind.hasTrainYaml(hiddenRoot));
  }

  @Test
  @DisplayName("a root that does not exist holds no train.yaml (no exception)")
  void missingRoot() {
    assertFalse(RepoKind.hasTrainYaml(temp.resolve("nowhere")));
  }

  @Test
  @DisplayName(
      "trainYamlAbove finds the nearest train.yaml walking up to the repo root, relative to it")
  void above() throws Exception {
    file("train.yaml");
    file("jobs/a/train.yaml");
    Path deep = Files.createDirectories(temp.resolve("jobs/a/out/x"));
    assertEquals(Optional.of(Path.of("jobs/a/train.yaml")), RepoKind.trainYamlAbove(deep, temp));
    Path b = Files.createDirectories(temp.resolve("jobs/b"));
    assertEquals(Optional.of(Path.of("train.yaml")), RepoKind.trainYamlAbove(b, temp));
    assertEquals(Optional.of(Path.of("train.yaml")), RepoKind.trainYamlAbove(temp, temp));
  }

  @Test
  @DisplayName(
      "trainYamlAbove is empty for a folder outside the repo root, and when no train.yaml lies above within it")
  void aboveEmpty() throws Exception {
    Path repo = Files.createDirectories(temp.resolve("repo"));
    file("train.yaml");
    assertEquals(Optional.empty(), RepoKind.trainYamlAbove(temp.resolve("elsewhere"), repo));
    Path inside = Files.createDirectories(repo.resolve("jobs/x"));
    assertEquals(Optional.empty(), RepoKind.trainYamlAbove(inside, repo), "the parent's file");
    Files.createDirectories(repo.resolve("jobs/train.yaml"));
    assertEquals(Optional.empty(), RepoKind.trainYamlAbove(inside, repo), "a folder, not a file");
  }
}
