package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --source-repo} with {@code --source-commit} outside any git repository: compiled, and W315
 * says the commit was not checked.
 */
class PinnedOutsideRepoTest {
  @TempDir Path temp;

  @Test
  @DisplayName(
      "validate with both flags in a folder that is no git repository (a real process, cwd there): exit 0 with W315 naming the SHA")
  void uncheckedOutsideRepository() throws Exception {
    for (Path dir = temp; dir != null; dir = dir.getParent()) {
      assumeTrue(
          !Files.exists(dir.resolve(".git")),
          "NOT RUN: the temp folder " + temp + " lies in a git repository (" + dir + ")");
    }
    Files.createDirectories(temp.resolve("jobs/demo"));
    Files.writeString(temp.resolve("jobs/demo/train.yaml"), "run: torchrun train.py\n");
    String sha = "0123456789abcdef0123456789abcdef01234567";
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process p =
        new ProcessBuilder(
                List.of(
                    java.toString(),
                    "-cp",
                    System.getProperty("java.class.path"),
                    "dev.trainyard.cli.Main",
                    "validate",
                    "jobs/demo/train.yaml",
                    "--source-repo",
                    "https://github.com/acme/llm.git",
                    "--source-commit",
                    sha))
            .directory(temp.toFile())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "validate did not finish in 120 s");
    assertEquals(0, p.exitValue(), out);
    assertTrue(
        out.contains(
            "jobs/demo/train.yaml: warning[W315]: --source-commit "
                + sha
                + " is not checked: train.yaml is in no git repository,"
                + " so nothing tells whether that commit exists and holds this train.yaml"),
        out);
    assertTrue(
        out.contains(
            "hint: run in a checkout of the source repo (CI's work tree) to have it checked"),
        out);
  }
}
