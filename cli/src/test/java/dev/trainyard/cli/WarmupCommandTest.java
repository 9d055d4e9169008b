package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code trainyard warmup} is the workload the start-up archive is made from: what it does not run
 * starts slowly (issue #24: submit loaded ~840 classes outside the archive).
 */
class WarmupCommandTest {
  @TempDir Path temp;

  @Test
  @DisplayName(
      "warm-up's submit commits into a throw-away bare repo (real git and JGit), with a warm mirror the second time, and leaves the cache setting as it was")
  void submitsIntoBareRepo() throws Exception {
    Path trainYaml = warmupTrainYaml(temp, "run: torchrun train.py\nnodes: 2\n");
    assertNull(System.getProperty("trainyard.cache"));
    assertEquals(0, WarmupCommand.submit(Invocation.ofProcess(), temp, trainYaml));
    assertNull(System.getProperty("trainyard.cache"));
    Path bare = temp.resolve("gitops.git");
    boolean loose = Files.exists(bare.resolve("refs/heads/main"));
    boolean packed =
        Files.exists(bare.resolve("packed-refs"))
            && Files.readString(bare.resolve("packed-refs")).contains("refs/heads/main");
    assertTrue(loose || packed, "no main branch in the warm-up's GitOps repo");
    assertTrue(
        Files.isDirectory(temp.resolve("cache")), "the mirror was not kept in the temp folder");
  }

  @Test
  @DisplayName(
      "a submit that fails gives its exit code (1 for a broken train.yaml); a repo git cannot make skips the submit (-1)")
  void failuresReported() throws Exception {
    Path broken = warmupTrainYaml(temp.resolve("a"), "run: torchrun train.py\nnodes: many\n");
    assertEquals(1, WarmupCommand.submit(Invocation.ofProcess(), temp.resolve("a"), broken));
    Files.createDirectories(temp.resolve("b"));
    Files.writeString(temp.resolve("b/gitops.git"), "a file where the bare repo would go");
    assertEquals(-1, WarmupCommand.submit(Invocation.ofProcess(), temp.resolve("b"), broken));
    assertNull(System.getProperty("trainyard.cache"));
  }

  @Test
  @DisplayName(
      "warm-up previews a source repo against its GitOps repo and a GitOps repo whose last commit adds what the submit pushed (real git), each writing its comment; a repo git cannot make skips them (-1)")
  void previewsBothKinds() throws Exception {
    Path trainYaml =
        warmupTrainYaml(temp, "run: torchrun train.py\nnodes: 2\nresources: {gpus: 1}\n");
    assertEquals(0, WarmupCommand.submit(Invocation.ofProcess(), temp, trainYaml));
    assertEquals(0, WarmupCommand.preview(Invocation.ofProcess(), temp));
    assertNull(System.getProperty("trainyard.cache"));
    String source = Files.readString(temp.resolve("comments-source/preview-1.md"));
    assertTrue(source.contains("train.yaml"), source);
    String gitops = Files.readString(temp.resolve("comments-gitops/preview-1.md"));
    assertTrue(gitops.contains("added"), gitops);

    Path other = Files.createDirectories(temp.resolve("other"));
    Files.writeString(other.resolve("preview-source"), "a file where the source repo would go");
    assertEquals(-1, WarmupCommand.preview(Invocation.ofProcess(), other));
    Path noRuns = Files.createDirectories(temp.resolve("no-runs"));
    Path seed = Files.createDirectories(temp.resolve("seed"));
    Files.writeString(seed.resolve("README.md"), "no clusters/ here\n");
    for (String[] git :
        new String[][] {
          {"git", "init", "-q", "--bare", "-b", "main", noRuns.resolve("gitops.git").toString()},
          {"git", "init", "-q", "-b", "main", seed.toString()},
          {"git", "-C", seed.toString(), "add", "-A"},
          {
            "git",
            "-C",
            seed.toString(),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@e",
            "commit",
            "-qm",
            "x"
          },
          {
            "git",
            "-C",
            seed.toString(),
            "push",
            "-q",
            noRuns.resolve("gitops.git").toString(),
            "main"
          }
        }) {
      assertEquals(
          0, new ProcessBuilder(git).inheritIO().start().waitFor(), List.of(git).toString());
    }
    assertEquals(
        -1,
        WarmupCommand.preview(Invocation.ofProcess(), noRuns),
        "a GitOps repo without clusters/");
    Path empty = Files.createDirectories(temp.resolve("empty"));
    assertEquals(-1, WarmupCommand.preview(Invocation.ofProcess(), empty), "no bare repo to clone");
  }

  @Test
  @DisplayName("the whole warm-up exits 0 and leaves no temp folder setting behind")
  void warmupExitsZero() {
    StringWriter out = new StringWriter();
    int code = Main.run(new PrintWriter(out), new PrintWriter(out), "warmup");
    assertEquals(0, code, out.toString());
    assertNull(System.getProperty("trainyard.cache"));
  }

  /**
   * {@code dir}/warmup/train.yaml holding {@code text}, in the layout {@code git init} makes (as
   * the warm-up's own folder: enough for train.yaml's path in a work tree).
   */
  private static Path warmupTrainYaml(Path dir, String text) throws IOException {
    Path repo = dir.resolve("warmup");
    Files.createDirectories(repo.resolve(".git/objects"));
    Files.createDirectories(repo.resolve(".git/refs/heads"));
    Files.writeString(repo.resolve(".git/HEAD"), "ref: refs/heads/main\n");
    return Files.writeString(repo.resolve("train.yaml"), text, StandardCharsets.UTF_8);
  }
}
