package dev.trainyard.gitops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.testing.TrainProject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Twenty submits from twenty processes (each with its own cache, as on twenty CI machines) race on
 * one GitOps repository: every run lands, history stays linear, and every commit's tree builds with
 * kubectl kustomize.
 */
class ConcurrentSubmitTest {
  static final int SUBMITS = 20;
  @TempDir Path temp;

  @Test
  @DisplayName(
      "20 racing submits from separate processes: all 20 runs present, none lost, linear history, every commit builds")
  void twentyRacingSubmits() throws Exception {
    Path bare = GitCli.bare(temp.resolve("gitops.git"));
    List<Process> processes = new ArrayList<>();
    for (int i = 0; i < SUBMITS; i++) {
      TrainProject p =
          TrainProject.create(
              temp.resolve("p" + i), "jobs/job" + i, "run: torchrun train.py\n", Map.of());
      processes.add(
          new ProcessBuilder(
                  java(),
                  "-XX:TieredStopAtLevel=1",
                  "-XX:+UseSerialGC",
                  "-cp",
                  System.getProperty("java.class.path"),
                  SubmitProcess.class.getName(),
                  p.trainYaml().toString(),
                  bare.toUri().toString(),
                  temp.resolve("cache" + i).toString())
              .redirectErrorStream(true)
              .start());
    }
    TreeSet<String> runs = new TreeSet<>();
    int raced = 0;
    for (Process p : processes) {
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(p.waitFor(240, TimeUnit.SECONDS), "a submit did not finish in 240 s");
      assertEquals(0, p.exitValue(), out);
      String[] words = out.strip().split("\\s+");
      runs.add(words[words.length - 2]);
      raced += Integer.parseInt(words[words.length - 1]) > 1 ? 1 : 0;
    }
    assertEquals(SUBMITS, runs.size());
    List<String> commits = GitCli.git(bare, "rev-list", "main").lines().toList();
    assertEquals(SUBMITS, commits.size(), "one commit per submit");
    assertEquals("", GitCli.git(bare, "rev-list", "--merges", "main").strip(), "linear history");
    String root = GitCli.show(bare, "clusters/local/default/kustomization.yaml");
    runs.forEach(
        r ->
            assertTrue(
                root.contains("- " + r + "\n"), r + " lost from the namespace root:\n" + root));
    everyCommitBuilds(bare, commits);
    System.out.println(
        "ConcurrentSubmitTest: "
            + raced
            + " of "
            + SUBMITS
            + " submits lost at least one push race and retried");
  }

  private void everyCommitBuilds(Path bare, List<String> commits) {
    Path work = temp.resolve("checkout");
    GitCli.git(temp, "clone", "-q", bare.toString(), work.toString());
    for (int i = 0; i < commits.size(); i++) {
      GitCli.git(work, "checkout", "-q", "--detach", commits.get(i));
      long jobSets =
          Kustomize.objects(Kustomize.build(work.resolve("clusters/local"))).stream()
              .filter(o -> o.startsWith("JobSet/"))
              .count();
      assertEquals(
          commits.size() - i,
          jobSets,
          "commit " + commits.get(i) + " holds one JobSet per submit so far");
    }
  }

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}
