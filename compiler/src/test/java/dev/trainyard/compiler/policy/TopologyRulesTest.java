package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.Severity;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Settings that compile but would not do what the user expects: procsPerNode, shm, unpinned image.
 */
class TopologyRulesTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  private static final String PINNED = "docker.io/library/python:3.12@sha256:" + "a".repeat(64);
  @TempDir Path temp;

  private CompileResult compile(String trainYaml) {
    return TrainProject.create(temp, trainYaml).compile();
  }

  private static Diagnostic only(CompileResult r, DiagnosticCode code) {
    List<Diagnostic> found = TrainProject.withCode(r, code);
    assertEquals(1, found.size(), r.diagnostics().toString());
    return found.get(0);
  }

  @Test
  @DisplayName(
      "JAX with procsPerNode 2 is E408 at the procsPerNode line: one process uses every GPU of a node")
  void jaxProcsPerNode() {
    CompileResult r =
        compile("run: python train.py\nruntime: jax\nprocsPerNode: 2\nimage: " + PINNED + "\n");
    Diagnostic d = only(r, DiagnosticCode.TOO_MANY_PROCESSES);
    assertEquals(Severity.ERROR, d.severity());
    WORDING.approve(d.message());
    assertEquals("/procsPerNode", d.pointer());
    assertEquals(3, d.location().line());
    WORDING.approve(d.hint());
    assertFalse(r.tree().isPresent());
  }

  @Test
  @DisplayName(
      "plain with procsPerNode 3 is E408 with the plain hint: start your own processes or use torch/mpi")
  void plainProcsPerNode() {
    CompileResult r = compile("run: python train.py\nruntime: plain\nnodes: 2\nprocsPerNode: 3\n");
    Diagnostic d = only(r, DiagnosticCode.TOO_MANY_PROCESSES);
    WORDING.approve(d.message());
    assertEquals(4, d.location().line());
    WORDING.approve(d.hint());
  }

  @Test
  @DisplayName(
      "an explicit procsPerNode 1 on JAX or plain, and procsPerNode 2 on torch, are accepted")
  void procsPerNodeAccepted() {
    for (String yaml :
        List.of(
            "run: python train.py\nruntime: jax\nprocsPerNode: 1\n",
            "run: python train.py\nruntime: plain\nprocsPerNode: 1\n",
            "run: torchrun train.py\nruntime: torch\nprocsPerNode: 2\n")) {
      CompileResult r = compile(yaml);
      assertEquals(List.of(), TrainProject.withCode(r, DiagnosticCode.TOO_MANY_PROCESSES), yaml);
      assertTrue(r.tree().isPresent(), yaml + r.diagnostics());
      temp = temp.resolve("next");
    }
  }

  @Test
  @DisplayName(
      "resources.shm larger than resources.memory is warning W414 at the shm line; the run still compiles")
  void shmOverMemory() {
    CompileResult r = compile("run: torchrun train.py\nresources:\n  memory: 8Gi\n  shm: 9Gi\n");
    Diagnostic d = only(r, DiagnosticCode.SHM_EXCEEDS_MEMORY);
    assertEquals(Severity.WARNING, d.severity());
    WORDING.approve(d.message());
    assertEquals("/resources/shm", d.pointer());
    assertEquals(4, d.location().line());
    WORDING.approve(d.hint());
    assertTrue(r.tree().isPresent());
  }

  @Test
  @DisplayName("resources.shm equal to resources.memory gives no shm warning")
  void shmEqualMemory() {
    CompileResult r = compile("run: torchrun train.py\nresources:\n  memory: 8Gi\n  shm: 8192Mi\n");
    assertEquals(List.of(), TrainProject.withCode(r, DiagnosticCode.SHM_EXCEEDS_MEMORY));
  }

  @Test
  @DisplayName(
      "an image without @sha256: is warning W412 at the image line; a digest-pinned image gives none")
  void imagePinning() {
    CompileResult r = compile("run: torchrun train.py\nimage: docker.io/acme/train:latest\n");
    Diagnostic d = only(r, DiagnosticCode.IMAGE_NOT_PINNED);
    assertEquals(Severity.WARNING, d.severity());
    WORDING.approve(d.message());
    assertEquals("/image", d.pointer());
    assertEquals(2, d.location().line());
    WORDING.approve(d.hint());
    temp = temp.resolve("pinned");
    assertEquals(
        List.of(),
        TrainProject.withCode(
            compile("run: torchrun train.py\nimage: " + PINNED + "\n"),
            DiagnosticCode.IMAGE_NOT_PINNED));
  }
}
