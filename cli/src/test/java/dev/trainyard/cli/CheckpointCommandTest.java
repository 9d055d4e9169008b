package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.eclipse.jgit.api.Git;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --fresh} and {@code --source-branch} on compile; {@code prune --checkpoints}'s usage. */
class CheckpointCommandTest {
  @TempDir Path temp;

  private static String jobSet(Path out) throws Exception {
    try (Stream<Path> files = Files.walk(out)) {
      Path js =
          files
              .filter(f -> f.getFileName().toString().startsWith("jobset-"))
              .findFirst()
              .orElseThrow();
      return Files.readString(js);
    }
  }

  private static String claimFolder(Path out) throws Exception {
    try (Stream<Path> files = Files.walk(out)) {
      return files
          .map(f -> f.getFileName().toString())
          .filter(n -> n.startsWith("_checkpoint-"))
          .findFirst()
          .orElseThrow();
    }
  }

  @Test
  @DisplayName(
      "compile --fresh marks the run fresh (annotation and TRAINYARD_CHECKPOINT_FRESH); --source-branch changes the checkpoint key, a blank one does not")
  void freshAndBranch() throws Exception {
    TrainProject p =
        TrainProject.create(temp.resolve("p"), "name: llm\nrun: python t.py\ncheckpoint: {}\n");
    Path plain = temp.resolve("plain");
    MainTest.Run a = MainTest.run("compile", p.trainYaml().toString(), "--out", plain.toString());
    assertEquals(0, a.exit(), a.err());
    assertTrue(jobSet(plain).contains("trainyard.dev/checkpoint-resume: latest"));
    assertFalse(jobSet(plain).contains("name: TRAINYARD_CHECKPOINT_FRESH"));
    Path fresh = temp.resolve("fresh");
    MainTest.Run b =
        MainTest.run("compile", p.trainYaml().toString(), "--out", fresh.toString(), "--fresh");
    assertEquals(0, b.exit(), b.err());
    assertTrue(jobSet(fresh).contains("trainyard.dev/checkpoint-resume: fresh"));
    assertTrue(jobSet(fresh).contains("name: TRAINYARD_CHECKPOINT_FRESH"));
    assertEquals(claimFolder(plain), claimFolder(fresh), "--fresh keeps the job's claim");
    Path branch = temp.resolve("branch");
    MainTest.Run c =
        MainTest.run(
            "compile",
            p.trainYaml().toString(),
            "--out",
            branch.toString(),
            "--source-branch",
            "exp");
    assertEquals(0, c.exit(), c.err());
    assertFalse(claimFolder(plain).equals(claimFolder(branch)), "another branch, another claim");
    Path blank = temp.resolve("blank");
    MainTest.Run d =
        MainTest.run(
            "compile", p.trainYaml().toString(), "--out", blank.toString(), "--source-branch", " ");
    assertEquals(0, d.exit(), d.err());
    assertEquals(claimFolder(plain), claimFolder(blank), "a blank branch (unset variable) is none");
  }

  @Test
  @DisplayName("compile --help and submit --help describe --fresh and --source-branch")
  void help() {
    for (String command : new String[] {"compile", "submit"}) {
      MainTest.Run h = MainTest.run(command, "--help");
      assertEquals(0, h.exit(), h.err());
      assertTrue(h.out().contains("--fresh"), h.out());
      assertTrue(h.out().contains("a run with `checkpoint:` starts over"), h.out());
      assertTrue(h.out().contains("--source-branch=NAME"), h.out());
    }
    MainTest.Run prune = MainTest.run("prune", "--help");
    assertTrue(prune.out().contains("--checkpoints"), prune.out());
    MainTest.Run run = MainTest.run("run", "--help");
    assertTrue(run.out().contains("--checkpoint-dir=DIR"), run.out());
    assertTrue(run.out().contains("--fresh"), run.out());
    assertTrue(run.out().contains("CHECKPOINT_DIR is its run folder"), run.out());
  }

  @Test
  @DisplayName("prune --checkpoints with run names or --older-than is a usage error (exit 2)")
  void pruneUsage() {
    MainTest.Run r =
        MainTest.run("prune", "--gitops", temp.toString(), "--checkpoints", "run-abcdef");
    assertEquals(2, r.exit(), r.err());
    assertTrue(r.err().contains("--checkpoints takes no run names and no --older-than"), r.err());
  }

  @Test
  @DisplayName(
      "compile --fresh and submit --fresh of a train.yaml without checkpoint: warn W318 naming the flag, exit 0")
  void freshWithoutCheckpoint() throws Exception {
    TrainProject p = TrainProject.create(temp.resolve("p"), "name: llm\nrun: python t.py\n");
    MainTest.Run r =
        MainTest.run(
            "compile", p.trainYaml().toString(), "--out", temp.resolve("o").toString(), "--fresh");
    assertEquals(0, r.exit(), r.err());
    assertTrue(
        r.err()
            .contains(
                "train.yaml:1:1: warning[W318]: --fresh does nothing here: train.yaml has no"
                    + " `checkpoint:`, so every run starts at step 0 anyway\n"),
        r.err());
    MainTest.Run without =
        MainTest.run("compile", p.trainYaml().toString(), "--out", temp.resolve("w").toString());
    assertFalse(without.err().contains("W318"), without.err());
    Path bare = temp.resolve("gitops.git");
    Git.init().setBare(true).setDirectory(bare.toFile()).call().close();
    System.setProperty("trainyard.cache", temp.resolve("cache").toString());
    try {
      MainTest.Run submit =
          MainTest.run("submit", p.trainYaml().toString(), "--gitops", bare.toString(), "--fresh");
      assertEquals(0, submit.exit(), submit.err());
      assertTrue(submit.err().contains("warning[W318]: --fresh does nothing here"), submit.err());
    } finally {
      System.clearProperty("trainyard.cache");
    }
  }
}
