package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A hint's command pasted back gives the same program: spacing inside quotes and here-documents is
 * kept (only blanks an edit joins are made one), and a command YAML would not read back as the same
 * plain scalar is hinted double-quoted (fresh-user findings, issue #19).
 */
class HintTextTest {
  @TempDir Path dir;

  private String hinted(String run) {
    List<Diagnostic> found = RunLintCases.lint(dir, RunLintCases.yaml("torch", 2, run));
    assertEquals(1, found.size(), found.toString());
    RunLintCases.assertHintAccepted(dir, "torch", 2, "", found.get(0));
    return found.get(0).hint().substring(found.get(0).hint().indexOf('`'));
  }

  @Test
  @DisplayName(
      "spacing inside quotes survives the rewrite; the blanks around the dropped flag are one")
  void quotedSpacingKept() {
    assertEquals(
        "`run: torchrun train.py --sep 'a   b'`",
        hinted("torchrun --nnodes 3   train.py --sep 'a   b'"));
    assertEquals("`run: torchrun train.py`", hinted("torchrun train.py --nnodes 3"));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "[ -f train.py ] && torchrun --nnodes 3 train.py | `run: \"[ -f train.py ] && torchrun train.py\"`",
        "torchrun --nnodes 3 train.py --note \"a: b\" | `run: \"torchrun train.py --note \\\"a: b\\\"\"`",
        "torchrun --nnodes 3 train.py --tag \"x #1\" | `run: \"torchrun train.py --tag \\\"x #1\\\"\"`",
        "torchrun --nnodes 3 train.py | `run: torchrun train.py`",
      })
  @DisplayName(
      "a command that YAML would read otherwise as a plain scalar (a leading [, `: `, ` #`) is hinted double-quoted")
  void yamlQuoting(String run, String hint) {
    assertEquals(hint, hinted(run));
  }

  @Test
  @DisplayName("a here-document's indentation is kept in the hint")
  void heredocKept() {
    String yaml =
        "runtime: torch\nnodes: 2\nrun: |\n  torchrun --nnodes 3 train.py\n  python - <<'PY'\n"
            + "  if True:\n      if True:\n          print(1)\n  PY\n";
    List<Diagnostic> found = RunLintCases.lint(dir, yaml);
    assertEquals(1, found.size(), found.toString());
    String hint = found.get(0).hint();
    assertEquals(
        "`run: \"torchrun train.py\\npython - <<'PY'\\nif True:\\n    if True:\\n        print(1)\\nPY\"`",
        hint.substring(hint.indexOf('`')));
  }

  @Test
  @DisplayName(
      "MASTER_ADDR=$(hostname) before --master_addr $MASTER_ADDR: the hint drops the assignment, so the pod's MASTER_ADDR is node 0's again")
  void perPodAssignmentDropped() {
    assertEquals(
        "`run: torchrun --nnodes 2 --master_addr $MASTER_ADDR train.py`",
        hinted("MASTER_ADDR=$(hostname); torchrun --nnodes 2 --master_addr $MASTER_ADDR train.py"));
    assertEquals(
        "`run: torchrun --nnodes 2 --master_addr $MASTER_ADDR train.py`",
        hinted(
            "export MASTER_ADDR=`hostname`; torchrun --nnodes 2 --master_addr $MASTER_ADDR train.py"));
    // A variable of the run's own that the fix no longer reads stays: harmless.
    assertEquals(
        "`run: ID=$RANDOM; torchrun --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT train.py`",
        hinted(
            "ID=$RANDOM; torchrun --rdzv_id $ID --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT train.py"));
  }

  @Test
  @DisplayName("a port drawn in arithmetic, $((RANDOM + 20000)), differs per pod too (E424)")
  void arithmeticRandom() {
    List<Diagnostic> found =
        RunLintCases.lint(
            dir,
            RunLintCases.yaml("torch", 2, "torchrun --master_port $((RANDOM + 20000)) train.py"));
    assertEquals(1, found.size(), found.toString());
    assertEquals("E424", found.get(0).code().id());
    RunLintCases.assertHintAccepted(dir, "torch", 2, "", found.get(0));
  }
}
