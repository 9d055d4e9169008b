package dev.trainyard.gitops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which jobs a change starts: a changed file in a train.yaml's folder, in a real repository written by the git CLI. */
class ChangedJobsTest {
  @TempDir Path temp;

  private Path repo() throws IOException {
    Path work = Files.createDirectories(temp.resolve("src"));
    GitCli.git(work, "init", "-q");
    write(work, "jobs/a/train.yaml", "run: torchrun a.py\n");
    write(work, "jobs/a/a.py", "print(1)\n");
    write(work, "jobs/b/train.yaml", "run: torchrun b.py\n");
    write(work, "jobs/b/nested/train.yaml", "run: torchrun n.py\n");
    write(work, "jobs/bee/train.yaml", "run: torchrun bee.py\n");
    write(work, ".github/train.yaml", "run: not a job\n");
    write(work, "README.md", "docs\n");
    commit(work, "first");
    return work;
  }

  private static void write(Path work, String path, String text) throws IOException {
    Files.createDirectories(work.resolve(path).getParent());
    Files.writeString(work.resolve(path), text);
  }

  private static void commit(Path work, String message) {
    GitCli.git(work, "add", "-A");
    GitCli.git(work, "commit", "-q", "-m", message);
  }

  private static List<String> changedSince(Path work, String base) throws GitOpsException {
    try (GitOpsRepository source = GitOpsRepository.local(work)) {
      return ChangedJobs.between(source, source.snapshot(base), source.snapshot("HEAD"));
    }
  }

  @Test
  @DisplayName("a change to the code next to a train.yaml starts that job, and no other")
  void codeChangeStartsItsJob() throws Exception {
    Path work = repo();
    write(work, "jobs/a/a.py", "print(2)\n");
    commit(work, "code");
    assertEquals(List.of("jobs/a/train.yaml"), changedSince(work, "HEAD~1"));
  }

  @Test
  @DisplayName("a folder's job owns its sub-folders: a change in a nested job starts both; a sibling with a common prefix is not inside")
  void nestedFolders() throws Exception {
    Path work = repo();
    write(work, "jobs/b/nested/n.py", "print(3)\n");
    commit(work, "nested");
    assertEquals(List.of("jobs/b/nested/train.yaml", "jobs/b/train.yaml"), changedSince(work, "HEAD~1"));
  }

  @Test
  @DisplayName("a change outside every job folder starts nothing; a train.yaml under a dot-folder is never a job")
  void outsideStartsNothing() throws Exception {
    Path work = repo();
    write(work, "README.md", "more docs\n");
    write(work, ".github/train.yaml", "run: still not a job\n");
    commit(work, "docs");
    assertEquals(List.of(), changedSince(work, "HEAD~1"));
  }

  @Test
  @DisplayName("a deleted job starts nothing; a new job starts; a train.yaml at the root owns the whole repository")
  void deletedNewAndRoot() throws Exception {
    Path work = repo();
    GitCli.git(work, "rm", "-r", "-q", "jobs/b");
    write(work, "jobs/c/train.yaml", "run: torchrun c.py\n");
    commit(work, "swap");
    assertEquals(List.of("jobs/c/train.yaml"), changedSince(work, "HEAD~1"));
    write(work, "train.yaml", "run: torchrun root.py\n");
    commit(work, "root job");
    write(work, "README.md", "again\n");
    commit(work, "docs");
    assertEquals(List.of("train.yaml"), changedSince(work, "HEAD~1"));
  }

  @Test
  @DisplayName("submit --changed-since: paths relative to the folder submit runs in; the null SHA means every job; an unknown commit is a usage error")
  void sinceFromASubfolder() throws Exception {
    Path work = repo();
    write(work, "jobs/a/a.py", "print(2)\n");
    commit(work, "code");
    assertEquals(List.of(Path.of("a/train.yaml")), ChangedJobs.since(work.resolve("jobs"), "HEAD~1"));
    assertEquals(List.of(Path.of("a/train.yaml"), Path.of("b/nested/train.yaml"), Path.of("b/train.yaml"), Path.of("bee/train.yaml")),
        ChangedJobs.since(work.resolve("jobs"), ChangedJobs.NULL_SHA), "a push that created the branch submits every job");
    GitOpsException e = org.junit.jupiter.api.Assertions.assertThrows(GitOpsException.class, () -> ChangedJobs.since(work, "0123456"));
    assertTrue(e.isUsage());
    assertEquals("--changed-since 0123456: no such commit in the source repo", e.getMessage());
  }

  @Test
  @DisplayName("job paths: the file name must be exactly train.yaml, and a folder is a prefix only up to a slash")
  void pathRules() {
    assertTrue(ChangedJobs.isJob("train.yaml"));
    assertTrue(ChangedJobs.isJob("a/b/train.yaml"));
    assertFalse(ChangedJobs.isJob("a/my-train.yaml"));
    assertFalse(ChangedJobs.isJob("a/.hidden/train.yaml"));
    assertEquals("", ChangedJobs.folderOf("train.yaml"));
    assertEquals("a/b", ChangedJobs.folderOf("a/b/train.yaml"));
    assertTrue(ChangedJobs.inFolder("x.py", ""));
    assertTrue(ChangedJobs.inFolder("a/b/x.py", "a/b"));
    assertFalse(ChangedJobs.inFolder("a/bee/x.py", "a/b"));
    assertFalse(ChangedJobs.inFolder("a/b", "a/b"));
  }
}
