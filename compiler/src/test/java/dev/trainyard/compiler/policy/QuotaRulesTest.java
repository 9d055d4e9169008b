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

/** Kueue admits a JobSet whole: the total request against the ClusterQueue's nominal quota. */
class QuotaRulesTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path temp;
  private int projects;

  private CompileResult compile(String trainYaml, PlatformYaml platform) {
    return TrainProject.create(temp.resolve("p" + projects++), trainYaml)
        .withPlatform(platform.text())
        .compile();
  }

  private static PlatformYaml quota(String flowMap) {
    return PlatformYaml.base().quota(flowMap);
  }

  private static String torch(int nodes, String resources) {
    return "run: torchrun train.py\nnodes: " + nodes + "\nresources: " + resources + "\n";
  }

  @Test
  @DisplayName(
      "a request exactly equal to the quota (cpu, memory and GPUs) is admitted with no quota diagnostic")
  void exactlyEqualPasses() {
    CompileResult r =
        compile(
            torch(4, "{cpu: 16, memory: 64Gi, gpus: 4}"),
            quota("{cpu: \"64\", memory: 256Gi, nvidia.com/gpu: \"16\"}"));
    assertEquals(List.of(), TrainProject.withCode(r, DiagnosticCode.OVER_QUOTA));
    assertTrue(r.tree().isPresent(), r.diagnostics().toString());
  }

  @Test
  @DisplayName(
      "a CPU request in exponent form (YAML number 2e3 = 2000 cores) is counted against the quota too: E414")
  void cpuExponentOver() {
    CompileResult r =
        compile(torch(1, "{cpu: 2e3, memory: 64Gi}"), quota("{cpu: \"1024\", memory: 256Gi}"));
    List<Diagnostic> d = TrainProject.withCode(r, DiagnosticCode.OVER_QUOTA);
    assertEquals(1, d.size(), r.diagnostics().toString());
    assertEquals("/resources/cpu", d.get(0).pointer());
    assertFalse(r.tree().isPresent());
  }

  @Test
  @DisplayName(
      "one CPU over the quota is E414 at resources.cpu, naming the total, the node count and the quota")
  void cpuOneOver() {
    CompileResult r =
        compile(torch(4, "{cpu: 16, memory: 64Gi}"), quota("{cpu: \"63\", memory: 256Gi}"));
    List<Diagnostic> d = TrainProject.withCode(r, DiagnosticCode.OVER_QUOTA);
    assertEquals(1, d.size(), r.diagnostics().toString());
    assertEquals(Severity.ERROR, d.get(0).severity());
    WORDING.approve(d.get(0).message());
    assertEquals("/resources/cpu", d.get(0).pointer());
    assertEquals(3, d.get(0).location().line());
    WORDING.approve(d.get(0).hint());
    assertFalse(r.tree().isPresent());
  }

  @Test
  @DisplayName(
      "a request train.yaml does not write (the runtime's default) over the quota is E414 at nodes, which multiplies it, not at the file's first line")
  void defaultRequestAtNodes() {
    CompileResult r =
        compile("run: torchrun t.py\nnodes: 1000\n", quota("{cpu: \"64\", memory: 256Gi}"));
    List<Diagnostic> d = TrainProject.withCode(r, DiagnosticCode.OVER_QUOTA);
    assertFalse(d.isEmpty(), r.diagnostics().toString());
    for (Diagnostic each : d) {
      assertEquals("/nodes", each.pointer(), each.message());
      assertEquals(2, each.location().line(), each.location().toString());
      assertEquals(8, each.location().column(), each.location().toString());
    }
  }

  @Test
  @DisplayName("memory over the quota is E414 at resources.memory, shown in Gi")
  void memoryOver() {
    Diagnostic d =
        TrainProject.withCode(
                compile(torch(4, "{cpu: 1, memory: 65Gi}"), quota("{cpu: \"64\", memory: 256Gi}")),
                DiagnosticCode.OVER_QUOTA)
            .get(0);
    WORDING.approve(d.message());
    assertEquals("/resources/memory", d.pointer());
  }

  @Test
  @DisplayName("GPUs over the quota are E414 at resources.gpus")
  void gpusOver() {
    List<Diagnostic> d =
        TrainProject.withCode(
            compile(
                torch(4, "{gpus: 5}"),
                quota("{cpu: \"64\", memory: 256Gi, nvidia.com/gpu: \"16\"}")),
            DiagnosticCode.OVER_QUOTA);
    assertEquals(1, d.size(), d.toString());
    WORDING.approve(d.get(0).message());
    assertEquals("/resources/gpus", d.get(0).pointer());
  }

  @Test
  @DisplayName(
      "a separate MPI launcher's cpu and memory count: 4 nodes x (2 cpu, 4Gi) + launcher (1, 1Gi) fits 9/17Gi, not 8/16Gi")
  void mpiLauncherCounted() {
    String mpi = "run: python train.py\nruntime: mpi\nnodes: 4\n";
    CompileResult fits = compile(mpi, quota("{cpu: \"9\", memory: 17Gi}"));
    assertEquals(List.of(), TrainProject.withCode(fits, DiagnosticCode.OVER_QUOTA));
    assertTrue(fits.tree().isPresent(), fits.diagnostics().toString());
    List<String> over =
        TrainProject.withCode(
                compile(mpi, quota("{cpu: \"8\", memory: 16Gi}")), DiagnosticCode.OVER_QUOTA)
            .stream()
            .map(Diagnostic::message)
            .sorted()
            .toList();
    assertEquals(
        List.of(
            "the job asks for 17Gi of `memory` in total (4 node(s)), but ClusterQueue `cq` has a nominal quota of 16Gi,"
                + " so Kueue would never admit it (all pods are admitted at once)",
            "the job asks for 9 of `cpu` in total (4 node(s)), but ClusterQueue `cq` has a nominal quota of 8,"
                + " so Kueue would never admit it (all pods are admitted at once)"),
        over);
  }

  @Test
  @DisplayName(
      "a launcher that is rank host 0 (deepspeed) is one of the nodes: 2 x (4 cpu, 16Gi) fits 8/32Gi exactly")
  void launcherAsNodeNotCountedTwice() {
    CompileResult r =
        compile(
            "run: python train.py\nruntime: deepspeed\nnodes: 2\n",
            quota("{cpu: \"8\", memory: 32Gi}"));
    assertEquals(List.of(), TrainProject.withCode(r, DiagnosticCode.OVER_QUOTA));
    assertTrue(r.tree().isPresent(), r.diagnostics().toString());
  }

  @Test
  @DisplayName("a CPU-only job on a queue with a GPU quota of 0 is admitted")
  void noGpusFitZeroQuota() {
    CompileResult r =
        compile(
            torch(1, "{cpu: 1, memory: 1Gi}"),
            quota("{cpu: \"8\", memory: 32Gi, nvidia.com/gpu: \"0\"}"));
    assertEquals(List.of(), TrainProject.withCode(r, DiagnosticCode.OVER_QUOTA));
    assertTrue(r.tree().isPresent(), r.diagnostics().toString());
  }

  @Test
  @DisplayName(
      "over the quota of a ClusterQueue in a cohort is warning W415 (it may borrow), and the run compiles")
  void borrowingCohortWarns() {
    CompileResult r =
        compile(
            torch(4, "{cpu: 16, memory: 64Gi}"),
            quota("{cpu: \"32\", memory: 256Gi}").cohort("pool"));
    assertEquals(List.of(), TrainProject.withCode(r, DiagnosticCode.OVER_QUOTA));
    List<Diagnostic> d = TrainProject.withCode(r, DiagnosticCode.OVER_QUOTA_BORROWING);
    assertEquals(1, d.size(), r.diagnostics().toString());
    assertEquals(Severity.WARNING, d.get(0).severity());
    WORDING.approve(d.get(0).message());
    assertEquals("/resources/cpu", d.get(0).pointer());
    assertTrue(r.tree().isPresent());
  }

  @Test
  @DisplayName("a resource the queue does not cover is E405 only, not also an over-quota error")
  void uncoveredIsNotOverQuota() {
    CompileResult r = compile(torch(1, "{cpu: 1, memory: 1Gi}"), quota("{memory: 256Gi}"));
    assertEquals(
        1,
        TrainProject.withCode(r, DiagnosticCode.UNCOVERED_RESOURCE).size(),
        r.diagnostics().toString());
    assertEquals(List.of(), TrainProject.withCode(r, DiagnosticCode.OVER_QUOTA));
  }
}
