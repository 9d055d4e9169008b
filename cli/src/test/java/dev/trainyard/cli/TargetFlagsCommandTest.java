package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.testing.TrainProject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A --target-cluster or --namespace the platform lacks: one usage error naming the flag (exit 2),
 * not E310 per train.yaml.
 */
class TargetFlagsCommandTest {
  private static final String NO_CLUSTER =
      "trainyard: --target-cluster nosuch: no such cluster in <embedded default platform> (clusters: local)\n";
  @TempDir Path temp;

  @AfterEach
  void tearDown() {
    System.clearProperty("trainyard.cache");
  }

  @Test
  @DisplayName(
      "compile and validate --target-cluster nosuch: exit 2, the flag named with the clusters, nothing written")
  void compileAndValidate() {
    TrainProject p = TrainProject.create(temp, "run: torchrun train.py\n");
    Path out = temp.resolve("out");
    MainTest.Run compile =
        MainTest.run(
            "compile",
            p.trainYaml().toString(),
            "--out",
            out.toString(),
            "--target-cluster",
            "nosuch");
    assertEquals(2, compile.exit(), compile.err());
    assertTrue(compile.err().startsWith(NO_CLUSTER), compile.err());
    assertFalse(compile.err().contains("E310"), compile.err());
    assertFalse(Files.exists(out));
    MainTest.Run validate =
        MainTest.run("validate", p.trainYaml().toString(), "--namespace", "nosuch");
    assertEquals(2, validate.exit(), validate.err());
    assertTrue(
        validate
            .err()
            .startsWith(
                "trainyard: --namespace nosuch: no such namespace of cluster local in <embedded default platform>"
                    + " (namespaces of local: default)\n"),
        validate.err());
    MainTest.Run ok =
        MainTest.run(
            "validate",
            p.trainYaml().toString(),
            "--target-cluster",
            "local",
            "--namespace",
            "default");
    assertEquals(0, ok.exit(), ok.err());
  }

  @Test
  @DisplayName(
      "submit of two train.yaml files with --target-cluster nosuch: the usage error once, exit 2, nothing pushed")
  void submitOnce() throws Exception {
    System.setProperty("trainyard.cache", temp.resolve("cache").toString());
    Path bare = temp.resolve("gitops.git");
    Process git =
        new ProcessBuilder("git", "init", "-q", "--bare", bare.toString())
            .redirectErrorStream(true)
            .start();
    assertTrue(git.waitFor(30, TimeUnit.SECONDS));
    assertEquals(
        0,
        git.exitValue(),
        new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    TrainProject p =
        TrainProject.create(
            temp,
            "jobs/a",
            "run: torchrun a.py\n",
            Map.of("../b/train.yaml", "run: torchrun b.py\n"));
    Path b = p.trainYaml().getParent().resolveSibling("b").resolve("train.yaml");
    MainTest.Run r =
        MainTest.run(
            "submit",
            p.trainYaml().toString(),
            b.toString(),
            "--gitops",
            bare.toString(),
            "--target-cluster",
            "nosuch");
    assertEquals(2, r.exit(), r.err());
    assertEquals(1, r.err().split("no such cluster", -1).length - 1, r.err());
    assertTrue(
        r.err().startsWith("trainyard: error: --target-cluster nosuch: no such cluster in "),
        r.err());
    assertTrue(r.err().contains("    hint: clusters: local"), r.err());
    Process refs =
        new ProcessBuilder("git", "--git-dir", bare.toString(), "for-each-ref")
            .redirectErrorStream(true)
            .start();
    assertTrue(refs.waitFor(30, TimeUnit.SECONDS));
    assertEquals(
        "",
        new String(refs.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
        "nothing pushed");
  }

  @Test
  @DisplayName(
      "compile, validate, submit and preview share one --target-cluster/--namespace option set (one mixin)")
  void sharedOptions() {
    for (String command : new String[] {"compile", "validate", "submit", "preview"}) {
      MainTest.Run help = MainTest.run(command, "--help");
      String text = help.out().replaceAll("\\s+", " ");
      assertTrue(
          text.contains(
              "--target-cluster=NAME target cluster from platform.yaml (default: the first)"),
          command + ": " + help.out());
      assertTrue(
          text.contains(
              "--namespace=NAME target namespace (default: the first that accepts the source repo)"),
          command + ": " + help.out());
    }
  }
}
