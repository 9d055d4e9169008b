package dev.trainyard.compiler.resolve;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Processes per node: one per GPU, else whole CPUs; JAX and plain start one process per node. */
class ProcsPerNodeTest {
  @TempDir Path temp;

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"plain", "jax"})
  @DisplayName(
      "JAX and plain on 2-GPU nodes without procsPerNode get one process per node, so no E408 fires")
  void onePerNode(String runtime) {
    CompileResult r =
        TrainProject.create(
                temp, "run: python train.py\nruntime: " + runtime + "\nresources: {gpus: 2}\n")
            .compile();
    assertEquals(List.of(), TrainProject.withCode(r, DiagnosticCode.TOO_MANY_PROCESSES));
    TrainProject.tree(r);
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "resources: {gpus: 2} | 2",
        "resources: {cpu: 3} | 3",
        "resources: {cpu: 3}\\nprocsPerNode: 5 | 5",
        "resources: {gpus: 4}\\nprocsPerNode: auto | 4"
      })
  @DisplayName(
      "torch gets procsPerNode as written, else one process per GPU, else one per whole CPU (PET_NPROC_PER_NODE)")
  void torch(String yaml, String procs) {
    CompileResult r =
        TrainProject.create(temp, "run: torchrun train.py\n" + yaml.replace("\\n", "\n") + "\n")
            .compile();
    assertEquals(
        procs,
        TrainProject.env(TrainProject.object(r, "JobSet"), "node", "PET_NPROC_PER_NODE")
            .path("value")
            .asText());
  }
}
