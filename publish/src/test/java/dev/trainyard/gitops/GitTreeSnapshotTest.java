package dev.trainyard.gitops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link GitTreeSnapshot} reads a real repository's tree (made by the git CLI) through JGit. */
class GitTreeSnapshotTest {
  @TempDir Path temp;

  private static final Map<String, String> FILES =
      Map.of(
          "a-b", "dash\n",
          "a.txt", "dot\n",
          "a/x.yaml", "x: 1\n",
          "a/deep/y.yaml", "y: 2\n",
          "top.yaml", "top: 0\n");

  private Path repo() {
    Path bare = GitCli.bare(temp.resolve("gitops.git"));
    GitCli.pushFiles(bare, temp.resolve("work"), FILES, "files");
    return bare;
  }

  @Test
  @DisplayName(
      "children are sorted as strings with folders ending in /, so a-b and a.txt come before a/ (not git's tree order)")
  void children() throws Exception {
    try (GitOpsRepository r = GitOpsRepository.local(repo())) {
      Snapshot s = r.snapshot("main");
      assertEquals(List.of("a-b", "a.txt", "a/", "top.yaml"), s.children(""));
      assertEquals(List.of("deep/", "x.yaml"), s.children("a"));
      assertEquals(List.of(), s.children("top.yaml"));
      assertEquals(List.of(), s.children("nope"));
    }
  }

  @Test
  @DisplayName(
      "blobId is git's id of a file's content (as git rev-parse gives it) at any depth; a folder or a missing file has none; a locked snapshot gives the same")
  void blobId() throws Exception {
    Path bare = repo();
    try (GitOpsRepository r = GitOpsRepository.local(bare)) {
      Snapshot s = r.snapshot("main");
      for (String path : List.of("top.yaml", "a/deep/y.yaml", "a-b")) {
        String git = GitCli.git(bare, "rev-parse", "main:" + path).strip();
        assertEquals(Optional.of(git), s.blobId(path), path);
        assertEquals(Optional.of(git), new LockedSnapshot(s).blobId(path), path);
      }
      assertEquals(Optional.empty(), s.blobId("a"));
      assertEquals(Optional.empty(), s.blobId("a/none.yaml"));
      assertEquals(Optional.empty(), new EmptySnapshot().blobId("top.yaml"));
    }
  }

  @Test
  @DisplayName(
      "read gives a file's text at any depth; a folder, a missing file or a path through a file is empty")
  void read() throws Exception {
    try (GitOpsRepository r = GitOpsRepository.local(repo())) {
      Snapshot s = r.snapshot("main");
      assertEquals(Optional.of("top: 0\n"), s.read("top.yaml"));
      assertEquals(Optional.of("y: 2\n"), s.read("a/deep/y.yaml"));
      assertEquals(Optional.of("y: 2\n"), s.read("a/deep/y.yaml"), "read again, from the cache");
      assertEquals(Optional.empty(), s.read("a"));
      assertEquals(Optional.empty(), s.read("a/deep"));
      assertEquals(Optional.empty(), s.read("a/none.yaml"));
      assertEquals(Optional.empty(), s.read("top.yaml/x"));
    }
  }

  @Test
  @DisplayName(
      "hasFolder is true for folders only; folder() lists every file below one by relative path, and nothing for a file or a missing folder")
  void folders() throws Exception {
    try (GitOpsRepository r = GitOpsRepository.local(repo())) {
      Snapshot s = r.snapshot("main");
      assertTrue(s.hasFolder("a"));
      assertTrue(s.hasFolder("a/deep"));
      assertFalse(s.hasFolder("top.yaml"));
      assertFalse(s.hasFolder("a/x.yaml"));
      assertFalse(s.hasFolder("nope"));
      assertFalse(s.hasFolder("nope/deeper"));
      assertEquals(Map.of("x.yaml", "x: 1\n", "deep/y.yaml", "y: 2\n"), s.folder("a"));
      assertEquals(Map.of("y.yaml", "y: 2\n"), s.folder("a/deep"));
      assertEquals(FILES, s.folder(""));
      assertEquals(Map.of(), s.folder("top.yaml"));
      assertEquals(Map.of(), s.folder("nope"));
      assertEquals(Map.of(), s.folder("a/x.yaml"));
    }
  }

  @Test
  @DisplayName(
      "two snapshots are equal when repository, commit and tree are the same; toString names the commit (or unbuilt) and the tree")
  void identity() throws Exception {
    Path bare = repo();
    try (GitOpsRepository r = GitOpsRepository.local(bare);
        GitOpsRepository other = GitOpsRepository.local(bare)) {
      GitTreeSnapshot s = (GitTreeSnapshot) r.snapshot("main");
      GitTreeSnapshot again = (GitTreeSnapshot) r.snapshot("main");
      assertEquals(s, again);
      assertEquals(s.hashCode(), again.hashCode());
      assertNotEquals(s, other.snapshot("main"), "another repository object");
      GitTreeSnapshot unbuilt = new GitTreeSnapshot(s.repo(), Optional.empty(), s.tree());
      assertNotEquals(s, unbuilt, "same tree, no commit");
      assertNotEquals(s, r.emptyTree(), "another tree");
      assertNotEquals(s, "not a snapshot");
      String commit = s.commit().orElseThrow();
      assertEquals("GitTreeSnapshot[" + commit + " tree " + s.tree().name() + "]", s.toString());
      assertEquals("GitTreeSnapshot[unbuilt tree " + s.tree().name() + "]", unbuilt.toString());
    }
  }
}
