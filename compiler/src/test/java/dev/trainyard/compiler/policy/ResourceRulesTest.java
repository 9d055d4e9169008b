package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.Severity;
import dev.trainyard.compiler.testing.PlatformYaml;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** What the queue covers (kueue#4848) and which GPU types the platform offers. */
class ResourceRulesTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path temp;
  private int projects;

  private CompileResult compile(String trainYaml, PlatformYaml platform) {
    return TrainProject.create(temp.resolve("p" + projects++), trainYaml)
        .withPlatform(platform.text())
        .compile();
  }

  private static final String TRAIN =
      "run: torchrun train.py\nresources:\n  cpu: 2\n  memory: 8Gi\n  gpus: 1\n";

  private Diagnostic onlyUncovered(String quota) {
    CompileResult r = compile(TRAIN, PlatformYaml.base().quota(quota));
    List<Diagnostic> d = TrainProject.withCode(r, DiagnosticCode.UNCOVERED_RESOURCE);
    assertEquals(1, d.size(), r.diagnostics().toString());
    assertEquals(Severity.ERROR, d.get(0).severity());
    assertFalse(r.tree().isPresent());
    return d.get(0);
  }

  @Test
  @DisplayName(
      "a ClusterQueue without cpu is E405 at resources.cpu, naming the queue and what it covers")
  void cpuUncovered() {
    Diagnostic d = onlyUncovered("{memory: 256Gi, nvidia.com/gpu: \"8\"}");
    WORDING.approve(d.message());
    assertEquals("/resources/cpu", d.pointer());
    assertEquals(3, d.location().line());
    WORDING.approve(d.hint());
  }

  @Test
  @DisplayName("a ClusterQueue without memory is E405 at resources.memory")
  void memoryUncovered() {
    Diagnostic d = onlyUncovered("{cpu: \"64\", nvidia.com/gpu: \"8\"}");
    WORDING.approve(d.message());
    assertEquals("/resources/memory", d.pointer());
    assertEquals(4, d.location().line());
  }

  @Test
  @DisplayName(
      "GPUs from a ClusterQueue without the GPU resource are E405 at resources.gpus; a CPU-only job there is fine")
  void gpuUncovered() {
    Diagnostic d = onlyUncovered("{cpu: \"64\", memory: 256Gi}");
    WORDING.approve(d.message());
    assertEquals("/resources/gpus", d.pointer());
    assertEquals(5, d.location().line());
    CompileResult cpuOnly =
        compile(
            "run: torchrun train.py\n", PlatformYaml.base().quota("{cpu: \"64\", memory: 256Gi}"));
    assertTrue(cpuOnly.tree().isPresent(), cpuOnly.diagnostics().toString());
  }

  @Test
  @DisplayName(
      "an unknown gpuType is E406 at resources.gpuType, the hint listing the platform's types sorted")
  void unknownGpuType() {
    CompileResult r = compile(TRAIN + "  gpuType: V100\n", PlatformYaml.base());
    List<Diagnostic> d = TrainProject.withCode(r, DiagnosticCode.UNKNOWN_GPU_TYPE);
    assertEquals(1, d.size(), r.diagnostics().toString());
    assertEquals(Severity.ERROR, d.get(0).severity());
    WORDING.approve(d.get(0).message());
    assertEquals("/resources/gpuType", d.get(0).pointer());
    assertEquals(6, d.get(0).location().line());
    WORDING.approve(d.get(0).hint());
    assertFalse(r.tree().isPresent());
  }

  @Test
  @DisplayName(
      "a gpuType on a platform without GPU types is E406 with the 'leave gpuType out' hint")
  void gpuTypeWithoutTypes() {
    CompileResult r = compile(TRAIN + "  gpuType: H100\n", PlatformYaml.base().gpuTypes("{}"));
    WORDING.approve(TrainProject.withCode(r, DiagnosticCode.UNKNOWN_GPU_TYPE).get(0).hint());
  }

  @Test
  @DisplayName("a known gpuType compiles with no E406")
  void knownGpuType() {
    CompileResult r = compile(TRAIN + "  gpuType: H100\n", PlatformYaml.base());
    assertEquals(List.of(), TrainProject.withCode(r, DiagnosticCode.UNKNOWN_GPU_TYPE));
    assertTrue(r.tree().isPresent(), r.diagnostics().toString());
  }
}
