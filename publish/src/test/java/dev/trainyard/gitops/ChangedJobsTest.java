package dev.trainyard.gitops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.Wording;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which jobs a change starts: a changed file in a train.yaml's folder, in a real repository written
 * by the git CLI.
 */
class ChangedJobsTest {
  @RegisterExtension static final Wording WORDING = new Wording();

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
  @DisplayName(
      "a folder's job owns its sub-folders: a change in a nested job starts both; a sibling with a common prefix is not inside")
  void nestedFolders() throws Exception {
    Path work = repo();
    write(work, "jobs/b/nested/n.py", "print(3)\n");
    commit(work, "nested");
    assertEquals(
        List.of("jobs/b/nested/train.yaml", "jobs/b/train.yaml"), changedSince(work, "HEAD~1"));
  }

  @Test
  @DisplayName(
      "a change outside every job folder starts nothing; a train.yaml under a dot-folder is never a job")
  void outsideStartsNothing() throws Exception {
    Path work = repo();
    write(work, "README.md", "more docs\n");
    write(work, ".github/train.yaml", "run: still not a job\n");
    commit(work, "docs");
    assertEquals(List.of(), changedSince(work, "HEAD~1"));
  }

  @Test
  @DisplayName(
      "a deleted job starts nothing; a new job starts; a train.yaml at the root owns the whole repository")
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
  @DisplayName(
      "submit --changed-since: paths relative to the folder submit runs in; the null SHA means every job; an unknown commit is a usage error")
  void sinceFromASubfolder() throws Exception {
    Path work = repo();
    write(work, "jobs/a/a.py", "print(2)\n");
    commit(work, "code");
    assertEquals(
        List.of(Path.of("a/train.yaml")),
        ChangedJobs.since(work.resolve("jobs"), "HEAD~1").trainYamls());
    assertEquals(List.of(), ChangedJobs.since(work.resolve("jobs"), "HEAD~1").warnings());
    assertEquals(
        List.of(
            Path.of("a/train.yaml"),
            Path.of("b/nested/train.yaml"),
            Path.of("b/train.yaml"),
            Path.of("bee/train.yaml")),
        ChangedJobs.since(work.resolve("jobs"), ChangedJobs.NULL_SHA).trainYamls(),
        "a push that created the branch submits every job");
    for (String ref :
        List.of("0123456", "no-such-branch", "0123456789ABCDEF0123456789ABCDEF01234567")) {
      GitOpsException e =
          Assertions.assertThrows(GitOpsException.class, () -> ChangedJobs.since(work, ref));
      assertTrue(e.isUsage(), ref);
      assertEquals(
          "--changed-since " + ref + ": no such commit, branch or tag in the source repo",
          e.getMessage());
      assertTrue(e.hint().contains("fetch-depth: 0"), e.hint());
    }
  }

  @Test
  @DisplayName(
      "after a force push (git CLI), CI's --changed-since SHA is not in its clone: W810 naming the SHA, and the jobs HEAD's own commit changed")
  void forcePushedBase() throws Exception {
    Path origin = Files.createDirectories(temp.resolve("remotes")).resolve("origin.git");
    GitCli.git(origin.getParent(), "init", "-q", "--bare", "origin.git");
    Path mine = repo();
    GitCli.git(mine, "remote", "add", "origin", origin.toString());
    GitCli.git(mine, "push", "-q", "origin", "HEAD:main");
    write(mine, "jobs/a/a.py", "print(2)\n");
    commit(mine, "change a");
    GitCli.git(mine, "push", "-q", "origin", "HEAD:main");
    String before = GitCli.git(mine, "rev-parse", "HEAD").strip();
    write(mine, "jobs/b/b.py", "print(3)\n");
    GitCli.git(mine, "add", "-A");
    GitCli.git(mine, "commit", "-q", "--amend", "-m", "change a and b");
    GitCli.git(mine, "push", "-q", "--force", "origin", "HEAD:main");
    // CI clones over a transport, so only reachable objects arrive: the replaced tip is not among
    // them.
    GitCli.git(temp, "clone", "-q", "file://" + origin, "ci");
    Path ci = temp.resolve("ci");
    ChangedJobs.Selection s = ChangedJobs.since(ci, before);
    assertEquals(
        List.of(Path.of("jobs/a/train.yaml"), Path.of("jobs/b/train.yaml")), s.trainYamls());
    assertEquals(1, s.warnings().size());
    var w = s.warnings().get(0);
    assertEquals(DiagnosticCode.BASE_COMMIT_MISSING, w.code());
    assertFalse(w.isError());
    assertEquals("--changed-since", w.location().toString());
    assertEquals(
        "commit "
            + before
            + " is not in the source repo (a force push replaced it, or the clone is shallow); submitting the jobs"
            + " HEAD's own commit changed (since HEAD~1)",
        w.message());
    WORDING.approve(w.hint());
    assertEquals(
        List.of(Path.of("jobs/b/train.yaml")),
        ChangedJobs.since(mine, before).trainYamls(),
        "the developer's clone still has the replaced tip");
  }

  @Test
  @DisplayName(
      "a missing SHA in a depth-1 clone (no parent either) is an environment error naming fetch-depth; a root commit submits every job")
  void missingBaseShallowAndRoot() throws Exception {
    Path origin = Files.createDirectories(temp.resolve("remotes")).resolve("origin.git");
    GitCli.git(origin.getParent(), "init", "-q", "--bare", "origin.git");
    Path mine = repo();
    GitCli.git(mine, "remote", "add", "origin", origin.toString());
    String missing = "0123456789abcdef0123456789abcdef01234567";
    ChangedJobs.Selection root = ChangedJobs.since(mine, missing);
    assertEquals(4, root.trainYamls().size(), root.toString());
    WORDING.approve(root.warnings().get(0).message());
    write(mine, "jobs/a/a.py", "print(2)\n");
    commit(mine, "change a");
    GitCli.git(mine, "push", "-q", "origin", "HEAD:main");
    GitCli.git(temp, "clone", "-q", "--depth", "1", "file://" + origin, "shallow");
    GitOpsException e =
        Assertions.assertThrows(
            GitOpsException.class, () -> ChangedJobs.since(temp.resolve("shallow"), missing));
    assertFalse(e.isUsage());
    assertEquals(
        "--changed-since "
            + missing
            + " is not in the source repo, and this shallow clone lacks HEAD's parent too, so no change can be computed",
        e.getMessage());
    WORDING.approve(e.hint());
  }

  @Test
  @DisplayName(
      "job paths: the file name must be exactly train.yaml, and a folder is a prefix only up to a slash")
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
