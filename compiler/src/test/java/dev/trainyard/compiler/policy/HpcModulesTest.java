package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link HpcModules}: {@code module load} copied from an HPC job script fails in a pod (W452), and
 * every hint of the line drops it.
 */
class HpcModulesTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path dir;

  private List<Diagnostic> lint(String run) {
    return TrainProject.create(dir, RunLintCases.yaml("torch", 2, run)).compile().diagnostics();
  }

  @Test
  @DisplayName(
      "in a shell without modules (as in every image), `module load x && cmd` fails with 127 and cmd never runs: the fact W452 states")
  void bashHasNoModule() throws Exception {
    Process p =
        new ProcessBuilder("bash", "-c", "module load cuda/12.1 && echo trained")
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(10, TimeUnit.SECONDS));
    assertEquals(127, p.exitValue(), out);
    assertTrue(out.contains("module: command not found"), out);
    assertFalse(out.contains("trained"), out);
  }

  @Test
  @DisplayName(
      "module load before the launcher: W452 at `module`, the hint drops it and names the runtime; the hinted line compiles clean")
  void moduleLoad() {
    String run = "module load cuda/12.1 && torchrun train.py";
    List<Diagnostic> found =
        lint(run).stream().filter(d -> d.code() == DiagnosticCode.HPC_MODULES).toList();
    assertEquals(1, found.size(), found.toString());
    Diagnostic d = found.get(0);
    assertFalse(d.isError());
    assertEquals("/run", d.pointer());
    assertEquals(List.of(3, 7), List.of(d.location().line(), d.location().column()));
    WORDING.approve(d.message());
    WORDING.approve(d.hint());
    assertEquals("torchrun train.py", RunLintCases.requireHintedRun(d));
    RunLintCases.assertHintAccepted(dir, "torch", 2, "", d);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "ml python/3.11; module purge; torchrun --standalone train.py",
        "module load cuda; srun torchrun --nnodes $SLURM_NNODES --nproc_per_node 1 train.py",
        "torchrun --nnodes 3 train.py && module unload cuda",
      })
  @DisplayName(
      "with other findings on the line, every hint gives the same command, without Slurm and without modules, and it compiles clean")
  void hintsAgree(String run) {
    List<Diagnostic> found =
        lint(run).stream().filter(d -> !d.hint().isEmpty() && d.pointer().equals("/run")).toList();
    assertTrue(found.size() >= 2, found.toString());
    assertTrue(
        found.stream().anyMatch(d -> d.code() == DiagnosticCode.HPC_MODULES), found.toString());
    Set<String> fixed = new HashSet<>();
    for (Diagnostic d : found) {
      fixed.add(RunLintCases.requireHintedRun(d));
    }
    assertEquals(1, fixed.size(), found.toString());
    String command = fixed.iterator().next();
    assertFalse(
        command.contains("module") || command.startsWith("ml ") || command.contains("srun"),
        command);
    RunLintCases.assertHintAccepted(dir, "torch", 2, "", found.get(0));
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "echo module load cuda && torchrun train.py",
        "python -m module train.py",
        "torchrun train.py --module load",
        "MODULEPATH=/x torchrun train.py",
      })
  @DisplayName("module as an argument, a Python module or a variable is no HPC module command")
  void notACommand(String run) {
    assertEquals(
        List.of(), lint(run).stream().filter(d -> d.code() == DiagnosticCode.HPC_MODULES).toList());
  }

  @Test
  @DisplayName(
      "a run of module commands only: W452 whose hint has no command to give, and the span is the whole text")
  void onlyModules() {
    List<Diagnostic> found =
        lint("module load cuda").stream()
            .filter(d -> d.code() == DiagnosticCode.HPC_MODULES)
            .toList();
    assertEquals(1, found.size(), found.toString());
    assertFalse(found.get(0).hint().contains("e.g."), found.get(0).hint());
    RunTokens t = RunTokens.of("module load cuda");
    assertEquals(List.of(0, 16), Arrays.stream(HpcModules.spans(t).get(0)).boxed().toList());
    RunTokens last = RunTokens.of("torchrun x.py && module unload cuda");
    assertEquals(List.of(13, 35), Arrays.stream(HpcModules.spans(last).get(0)).boxed().toList());
  }
}
