package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileRequest;
import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import dev.trainyard.compiler.manifest.OutputTree;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.gitops.TreeWriter;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same inputs give byte-identical files; only fresh key material differs, and an existing run
 * keeps its key.
 */
class DeterminismTest {
  private static final String MPI =
      "runtime: deepspeed\nrun: python train.py\nnodes: 2\nenv: {B: '2', A: '1'}\n";

  @TempDir Path temp;

  @Test
  @DisplayName("compiling a torch job twice gives byte-identical trees")
  void torchTwice() {
    TrainProject p =
        TrainProject.create(temp, "run: torchrun train.py\nnodes: 4\nresources: {gpus: 8}\n");
    assertEquals(TrainProject.tree(p.compile()).files(), TrainProject.tree(p.compile()).files());
  }

  @Test
  @DisplayName(
      "an MPI run re-compiled into its existing GitOps tree reuses its SSH Secret, so nothing changes")
  void mpiRecompileReusesSecret() throws Exception {
    TrainProject p = TrainProject.create(temp, MPI);
    Path gitops = temp.resolve("gitops");
    Compiler fresh = new Compiler(SshSecretProvider.system());
    OutputTree first =
        TrainProject.tree(
            fresh.compile(p.compile().job().map(j -> request(p, gitops)).orElseThrow()));
    TreeWriter.write(first, gitops);
    OutputTree second = TrainProject.tree(fresh.compile(request(p, gitops)));
    assertEquals(first.files(), second.files(), "a re-compile must be byte-identical");
    OutputTree elsewhere = TrainProject.tree(fresh.compile(request(p, temp.resolve("empty"))));
    String secret =
        first.files().keySet().stream()
            .filter(f -> f.contains("/secret-"))
            .findFirst()
            .orElseThrow();
    assertTrue(elsewhere.files().containsKey(secret));
    assertNotEquals(
        first.files().get(secret),
        elsewhere.files().get(secret),
        "without the existing tree, keys are fresh");
    assertEquals(
        first.files().keySet(), elsewhere.files().keySet(), "only the key material differs");
  }

  private static CompileRequest request(TrainProject p, Path existing) {
    return new CompileRequest(
        p.trainYaml(),
        "train.yaml",
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        1,
        Optional.of(existing),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        false,
        false,
        Path.of(""));
  }
}
