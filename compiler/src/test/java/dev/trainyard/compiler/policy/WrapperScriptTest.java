package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue #19 item 7: the launch line inside a script {@code run} starts ({@code bash run_ds.sh 2})
 * is linted like {@code run}, at its line and column in the script, with the call's arguments as
 * its positional parameters, and each hint names the script's lines to change.
 */
class WrapperScriptTest {
  @TempDir Path dir;

  private static final String SCRIPT =
      "#!/bin/bash\n"
          + "# started by train.yaml\n"
          + "NODES=${1:-1}\n"
          + "\n"
          + "torchrun --nnodes $NODES --nproc_per_node ${2:-4}  --node_rank 0 train.py\n";

  private List<Diagnostic> lint(String run, String script) {
    TrainProject p =
        TrainProject.create(
            dir,
            TrainProject.FOLDER,
            RunLintCases.yaml("torch", 2, run),
            Map.of("run_ds.sh", script, "train.py", "import torch\n"));
    return p.compile().diagnostics().stream()
        .filter(d -> RunLintCases.RUN_CODES.contains(d.code()))
        .toList();
  }

  @Test
  @DisplayName(
      "`bash run_ds.sh` with no arguments: its ${1:-1} node count and literal rank are errors at their line and column in run_ds.sh, worded with the script's name, each hint naming the line to change")
  void scriptFindingsAtTheirLine() {
    List<Diagnostic> found = lint("bash run_ds.sh", SCRIPT);
    assertEquals(2, found.size(), found.toString());
    Diagnostic nnodes = found.get(0);
    assertTrue(nnodes.location().file().endsWith("run_ds.sh"), nnodes.toString());
    assertEquals(List.of(5, 10), List.of(nnodes.location().line(), nnodes.location().column()));
    assertEquals("", nnodes.pointer());
    assertEquals(
        "`run_ds.sh` (which `run` starts) passes --nnodes 1, but `nodes` is 2", nnodes.message());
    assertEquals(
        "drop --nnodes; torchrun reads PET_NNODES=2, e.g. in run_ds.sh, replace line 5 with `torchrun --nproc_per_node ${2:-4} train.py`",
        nnodes.hint());
    Diagnostic rank = found.get(1);
    assertEquals(List.of(5, 52), List.of(rank.location().line(), rank.location().column()));
    assertTrue(
        rank.hint().endsWith("replace line 5 with `torchrun --nproc_per_node ${2:-4} train.py`"));
  }

  @Test
  @DisplayName(
      "the call's arguments are the script's positional parameters: `bash run_ds.sh 2 4` passes --nnodes 2, so only the literal rank is left")
  void argumentsFillPositionalParameters() {
    List<Diagnostic> found = lint("bash run_ds.sh 2 4", SCRIPT);
    assertEquals(1, found.size(), found.toString());
    assertTrue(found.get(0).message().contains("--node_rank 0"), found.toString());
    List<Diagnostic> three = lint("bash run_ds.sh 3", SCRIPT);
    assertTrue(
        three.stream().anyMatch(d -> d.message().contains("passes --nnodes 3, but `nodes` is 2")),
        three.toString());
    List<Diagnostic> procs = lint("bash run_ds.sh 2 8", SCRIPT);
    assertTrue(
        procs.stream().anyMatch(d -> d.message().contains("passes --nproc_per_node 8")),
        procs.toString());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "bash run_ds.sh 2 4 | 1",
        "sh run_ds.sh 2 4 | 1",
        "./run_ds.sh 2 4 | 1",
        "run_ds.sh 2 4 | 1",
        "cd . && bash run_ds.sh 2 4 | 1",
        "bash -x run_ds.sh 2 4 | 0",
        "bash other.sh | 0",
        "echo run_ds.sh | 0",
        "bash $SCRIPT | 0",
      })
  @DisplayName(
      "a wrapper is `bash|sh SCRIPT.sh` or `SCRIPT.sh` as a command; an unreadable or computed script, or one passed as an argument, is not read")
  void wrapperShapes(String run, int findings) {
    assertEquals(findings, lint(run, SCRIPT).size(), run);
  }

  @Test
  @DisplayName(
      "a Slurm script: srun and the Slurm-only assignment lines go, the head-node value becomes the pod's, and the hint replaces lines 2-3")
  void slurmScript() {
    String slurm =
        "#!/bin/bash\nhead_node_ip=$(srun hostname --ip-address)\n"
            + "srun torchrun --nnodes 2 --nproc_per_node 4 --rdzv_backend c10d --rdzv_endpoint $head_node_ip:29500 train.py\n";
    List<Diagnostic> found = lint("bash run_ds.sh", slurm);
    assertEquals(1, found.size(), found.toString());
    assertEquals(
        "`run_ds.sh` (which `run` starts) uses Slurm (srun, scontrol or $SLURM_*), which does not exist in a Kubernetes pod",
        found.get(0).message());
    assertTrue(
        found
            .get(0)
            .hint()
            .endsWith(
                "in run_ds.sh, replace lines 2-3 with `torchrun --nnodes 2 --nproc_per_node 4 --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT train.py`"),
        found.get(0).hint());
  }

  @Test
  @DisplayName("a script that launches right is quiet")
  void goodScriptIsQuiet() {
    assertEquals(
        List.of(), lint("bash run_ds.sh", "#!/bin/bash\nset -e\ntorchrun train.py --epochs 3\n"));
  }

  private static WrapperScript wrapper(String run) {
    return WrapperScript.find(RunTokens.of(run)).orElseThrow();
  }

  @Test
  @DisplayName(
      "hint: the changed lines by number (after leading blank lines), `delete` when the fix only removes, backticks escaped")
  void hintNamesTheLines() {
    WrapperScript w = wrapper("bash s.sh");
    assertEquals("in s.sh, replace line 2 with `b2`", w.hint("a\nb\nc", "a\nb2\nc"));
    assertEquals("in s.sh, replace line 4 with `b2`", w.hint("\n\na\nb\nc\n", "a\nb2\nc"));
    assertEquals("in s.sh, delete line 2", w.hint("a\nb\nc", "a\nc"));
    assertEquals("in s.sh, delete lines 2-3", w.hint("a\nb\nb2\nc", "a\nc"));
    assertEquals("in s.sh, replace lines 1-2 with `x`", w.hint("a\nb\nc", "x\nc"));
    assertEquals("in s.sh, after line 3 add `e\\nf`", w.hint("a\nb\nc", "a\nb\nc\ne\nf"));
    assertEquals("in s.sh, after line 1 add `x`", w.hint("a\nc", "a\nx\nc"));
    assertEquals("in s.sh, replace line 1 with `echo \\`x\\``", w.hint("a", "echo `x`"));
    assertEquals("in s.sh, replace line 2 with `b 2`", w.hint("a\n  b  1\nc", "a\nb   2\nc"));
  }

  @Test
  @DisplayName(
      "arguments: a literal argument fills its parameter; an expanding one, a missing one or a non-positional name does not")
  void arguments() {
    WrapperScript w = wrapper("bash ./s.sh 2 $N x=1");
    assertEquals("s.sh", w.path());
    assertEquals(Optional.of("2"), w.argument("1"));
    assertEquals(Optional.empty(), w.argument("2"));
    assertEquals(Optional.of("x=1"), w.argument("3"));
    assertEquals(Optional.empty(), w.argument("4"));
    assertEquals(Optional.empty(), w.argument("N"));
    assertEquals(Optional.empty(), w.argument("0"));
    assertTrue(w.passes("2") && w.passes("3") && !w.passes("4") && !w.passes("N"));
    assertEquals(List.of(), wrapper("sh s.sh").arguments());
    assertEquals(Optional.empty(), WrapperScript.find(RunTokens.of("python train.py")));
  }

  @Test
  @DisplayName(
      "a launch line continued over several lines: the hint names the changed line only, and pasted in gives a script bash still reads as one command")
  void continuedLine() {
    String script =
        "#!/bin/bash\ntorchrun --nnodes ${1:-1} \\\n  --nproc_per_node 4 \\\n  --node_rank 0 \\\n  train.py\n";
    List<Diagnostic> found = lint("bash run_ds.sh 2", script);
    assertEquals(1, found.size(), found.toString());
    assertTrue(
        found.get(0).hint().endsWith("in run_ds.sh, replace line 4 with `\\`"),
        found.get(0).hint());
  }
}
