package dev.trainyard.compiler.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link WorkingCopies} against repositories the real {@code git} command made. */
class WorkingCopiesTest {
  @TempDir Path tmp;
  Path repo;

  @BeforeEach
  void repo() throws Exception {
    repo = Files.createDirectories(tmp.resolve("repo"));
    git(repo, "init", "-q", "-b", "main");
    Files.writeString(repo.resolve("train.py"), "print('v1')\n");
    commit("v1");
  }

  @Test
  @DisplayName("repositoryRoot: the top of the work tree from a subfolder; a folder outside any")
  void repositoryRoot() throws Exception {
    Path sub = Files.createDirectories(repo.resolve("jobs/a"));
    assertEquals(repo.toRealPath(), WorkingCopies.repositoryRoot(sub).toRealPath());
    Path outside = Files.createDirectories(tmp.resolve("outside"));
    IOException e = assertThrows(IOException.class, () -> WorkingCopies.repositoryRoot(outside));
    assertTrue(
        e.getMessage().startsWith("git rev-parse --show-toplevel in " + outside + " failed: "),
        e.getMessage());
  }

  @Test
  @DisplayName("head: the full SHA of HEAD, as git rev-parse gives it")
  void head() throws Exception {
    String head = WorkingCopies.head(repo);
    assertEquals(git(repo, "rev-parse", "HEAD").strip(), head);
    assertTrue(head.matches("[0-9a-f]{40}"), head);
    assertEquals(Optional.of(head), WorkingCopies.headIfAny(repo));
  }

  @Test
  @DisplayName("ignored: what .gitignore names is ignored, other paths are not (git check-ignore)")
  void ignored() throws Exception {
    Files.writeString(repo.resolve(".gitignore"), "ckpt/\n");
    Path ckpt = Files.createDirectories(repo.resolve("ckpt"));
    Path kept = Files.createDirectories(repo.resolve("kept"));
    assertTrue(WorkingCopies.ignored(repo, ckpt));
    assertFalse(WorkingCopies.ignored(repo, kept));
  }

  @Test
  @DisplayName(
      "headIfAny: empty in a fresh git init (no commit yet); a folder outside any repository is an error")
  void headIfAny() throws Exception {
    Path fresh = Files.createDirectories(tmp.resolve("fresh"));
    git(fresh, "init", "-q");
    assertEquals(Optional.empty(), WorkingCopies.headIfAny(fresh));
    IOException e = assertThrows(IOException.class, () -> WorkingCopies.head(fresh));
    assertTrue(e.getMessage().startsWith("git rev-parse HEAD in " + fresh + " failed: "));
    Path outside = Files.createDirectories(tmp.resolve("outside"));
    IOException not = assertThrows(IOException.class, () -> WorkingCopies.headIfAny(outside));
    assertTrue(
        not.getMessage().startsWith("git rev-parse HEAD in " + outside + " failed: "),
        not.getMessage());
  }

  @Test
  @DisplayName(
      "remoteUrl: empty without remotes; the only remote's URL; origin's when origin is one of several")
  void remoteUrl() throws Exception {
    assertEquals(Optional.empty(), WorkingCopies.remoteUrl(repo));
    git(repo, "remote", "add", "upstream", "https://git.example/upstream.git");
    assertEquals(Optional.of("https://git.example/upstream.git"), WorkingCopies.remoteUrl(repo));
    git(repo, "remote", "add", "origin", "https://git.example/origin.git");
    git(repo, "remote", "add", "aaa", "https://git.example/aaa.git");
    assertEquals(Optional.of("https://git.example/origin.git"), WorkingCopies.remoteUrl(repo));
  }

  @Test
  @DisplayName(
      "clone: the commit's files, detached at that commit, whatever the work tree holds since")
  void cloneOfACommit() throws Exception {
    String v1 = WorkingCopies.head(repo);
    Files.writeString(repo.resolve("train.py"), "print('v2')\n");
    commit("v2");
    Files.writeString(repo.resolve("train.py"), "print('dirty')\n");
    Path into = tmp.resolve("clone");
    WorkingCopies.clone(repo, v1, into);
    assertEquals("print('v1')\n", Files.readString(into.resolve("train.py")));
    assertEquals(v1, WorkingCopies.head(into));
    IOException e =
        assertThrows(
            IOException.class, () -> WorkingCopies.clone(repo, "f".repeat(40), tmp.resolve("x")));
    assertTrue(
        e.getMessage().contains(" checkout --quiet --detach " + "f".repeat(40)), e.getMessage());
  }

  @Test
  @DisplayName(
      "copy (--working-tree): tracked and untracked files as they are now, with their modes;"
          + " ignored files and files deleted from the work tree left out")
  void copyOfTheWorkTree() throws Exception {
    Files.writeString(repo.resolve(".gitignore"), "*.ckpt\n");
    Files.writeString(repo.resolve("gone.txt"), "x\n");
    Files.createDirectories(repo.resolve("lib"));
    Files.writeString(repo.resolve("lib/run.sh"), "#!/bin/sh\n");
    Files.setPosixFilePermissions(
        repo.resolve("lib/run.sh"), PosixFilePermissions.fromString("rwxr-xr-x"));
    commit("more");
    Files.delete(repo.resolve("gone.txt"));
    Files.writeString(repo.resolve("train.py"), "print('edited')\n");
    Files.writeString(repo.resolve("new.py"), "print('new')\n");
    Files.writeString(repo.resolve("model.ckpt"), "weights\n");
    Path into = tmp.resolve("copy");
    WorkingCopies.copy(repo, into);
    assertEquals("print('edited')\n", Files.readString(into.resolve("train.py")));
    assertEquals("print('new')\n", Files.readString(into.resolve("new.py")));
    assertEquals("#!/bin/sh\n", Files.readString(into.resolve("lib/run.sh")));
    assertEquals(
        "rwxr-xr-x",
        PosixFilePermissions.toString(Files.getPosixFilePermissions(into.resolve("lib/run.sh"))));
    assertFalse(Files.exists(into.resolve("model.ckpt")));
    assertFalse(Files.exists(into.resolve("gone.txt")));
    assertFalse(Files.exists(into.resolve(".git")));
  }

  private void commit(String message) throws Exception {
    git(repo, "add", "-A");
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", message);
  }

  private static String git(Path dir, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("git", "-C", dir.toString()));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, out);
    return out;
  }
}
