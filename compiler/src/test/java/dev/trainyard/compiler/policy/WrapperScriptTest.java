package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
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

  private List<Diagnostic> lintFiles(String run, Map<String, String> files) {
    TrainProject p =
        TrainProject.create(dir, TrainProject.FOLDER, RunLintCases.yaml("torch", 2, run), files);
    return p.compile().diagnostics().stream()
        .filter(
            d ->
                RunLintCases.RUN_CODES.contains(d.code())
                    || d.code() == DiagnosticCode.WRAPPER_SCRIPT_MISSING)
        .toList();
  }

  @Test
  @DisplayName(
      "`cd scripts && ./go.sh` reads scripts/go.sh (where bash starts it) and lints it at its own line and column")
  void followsCd() {
    List<Diagnostic> found =
        lintFiles(
            "cd scripts && ./go.sh",
            Map.of("scripts/go.sh", "torchrun --standalone train.py\n", "train.py", ""));
    assertEquals(1, found.size(), found.toString());
    Diagnostic d = found.get(0);
    assertTrue(d.location().file().endsWith("scripts/go.sh"), d.location().toString());
    assertEquals(List.of(1, 10), List.of(d.location().line(), d.location().column()));
    assertTrue(d.message().startsWith("`scripts/go.sh` (which `run` starts)"), d.message());
    assertTrue(d.hint().contains("in scripts/go.sh, replace line 1 with"), d.hint());
  }

  @Test
  @DisplayName(
      "a script run starts that the folder does not have: W451 at its word, naming where bash looks after a cd; none when run fetches or writes it first")
  void missingScript() {
    List<Diagnostic> missing = lintFiles("bash run_ds.sh 2", Map.of());
    assertEquals(1, missing.size(), missing.toString());
    Diagnostic d = missing.get(0);
    assertEquals(DiagnosticCode.WRAPPER_SCRIPT_MISSING, d.code());
    assertFalse(d.isError());
    assertEquals("/run", d.pointer());
    assertEquals(List.of(3, 12), List.of(d.location().line(), d.location().column()));
    assertEquals(
        "`run` starts run_ds.sh, but the working directory has no such file at this commit: the"
            + " shell stops with \"No such file or directory\" on every node",
        d.message());
    assertEquals(
        "commit run_ds.sh (a path is relative to the folder of train.yaml, or `workdir`), or fix"
            + " the name",
        d.hint());
    List<Diagnostic> moved = lintFiles("cd scripts && ./go.sh", Map.of("go.sh", "echo\n"));
    assertEquals(1, moved.size(), moved.toString());
    assertTrue(
        moved.get(0).message().startsWith("`run` starts ./go.sh (scripts/go.sh in the working"),
        moved.get(0).message());
    assertEquals(
        List.of(),
        lintFiles("curl -fsSLo go.sh https://example.invalid/go.sh && bash go.sh", Map.of()));
    assertEquals(List.of(), lintFiles("cd $HOME && bash go.sh", Map.of()));
  }

  @ParameterizedTest(name = "{0} then cd {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "'' | scripts | scripts/",
        "a/ | b | a/b/",
        "a/ | .. | ''",
        "a/ | ./b/../c | a/c/",
        "'' | . | ''",
        "'' | .. | NULL",
        "'' | /opt | NULL",
        "'' | $D | NULL",
        "'' | - | NULL",
        "NULL | a | NULL",
      },
      nullValues = "NULL")
  @DisplayName("where a literal cd leaves bash, relative to the working directory (null: unknown)")
  void changeDirectory(String from, String to, String expected) {
    RunTokens t = RunTokens.of("cd " + to);
    assertEquals(
        expected == null ? null : expected, WrapperScript.changeDirectory(from, t.words(), 0));
  }

  @Test
  @DisplayName("a bare cd (home) leaves the folder unknown")
  void bareCd() {
    assertEquals(null, WrapperScript.changeDirectory("", RunTokens.of("cd").words(), 0));
    assertEquals(null, WrapperScript.changeDirectory("", RunTokens.of("cd; x").words(), 0));
  }
}
