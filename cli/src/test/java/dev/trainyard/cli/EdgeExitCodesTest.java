package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue #9 edges at the CLI: the exit code and one clear line, never "internal error". */
class EdgeExitCodesTest {
  @TempDir Path temp;

  @Test
  @DisplayName(
      "validate --cluster with a kubeconfig that is not YAML: exit 3, file:line:col, no internal error")
  void brokenKubeconfig() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: torchrun t.py\n");
    Path k = Files.writeString(temp.resolve("kubeconfig"), "apiVersion: v1\nclusters: [\n");
    MainTest.Run r =
        MainTest.run(
            "validate", p.trainYaml().toString(), "--cluster", "--kubeconfig", k.toString());
    assertEquals(3, r.exit(), r.err());
    assertTrue(r.err().startsWith("trainyard: error: " + k + ":"), r.err());
    assertTrue(r.err().contains("the kubeconfig is not valid YAML"), r.err());
    assertFalse(r.err().contains("internal error"), r.err());
  }

  @Test
  @DisplayName("validate --cluster --kubeconfig naming no file: exit 3 naming it")
  void missingKubeconfig() {
    TrainProject p = TrainProject.create(temp, "run: torchrun t.py\n");
    MainTest.Run r =
        MainTest.run(
            "validate",
            p.trainYaml().toString(),
            "--cluster",
            "--kubeconfig",
            temp.resolve("nope").toString());
    assertEquals(3, r.exit(), r.err());
    assertEquals(
        "trainyard: error: --kubeconfig " + temp.resolve("nope") + ": no such file\n", r.err());
  }
}
