package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Where a {@code run} diagnostic points when {@code run} is not a one-line single-quoted scalar:
 * the line and column of the offending flag in train.yaml, in block, folded and double-quoted
 * scalars, and the occurrence that is wrong when a flag is repeated ({@link RunSource}).
 */
class RunLintLocationTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = ';',
      value = {
        "nodes: 2\\nrun: |\\n  echo start\\n  torchrun \\\\n    --node_rank=0 train.py\\n ; 5 ; 5",
        "nodes: 2\\nrun: >-\\n  torchrun train.py --epochs 1\\n  --node_rank=0\\n ; 4 ; 3",
        "nodes: 2\\nrun: \"torchrun --nnodes 1 train.py\"\\n ; 2 ; 16",
        "nodes: 2\\nrun: torchrun --nnodes 2 train.py --epochs 3 && torchrun --nnodes 1 eval.py\\n ; 2 ; 58",
        "nodes: 2\\nrun: |\\n  # torchrun --nnodes 5\\n  cat > go.sh <<EOF\\n  torchrun --nnodes 4 b.py\\n  EOF\\n  torchrun --nnodes 3 a.py\\n ; 7 ; 12",
      })
  @DisplayName(
      "block, folded, double-quoted and repeated flags: the diagnostic points at the line and column of the occurrence that is wrong")
  void location(String yaml, int line, int column) {
    Diagnostic d = RunLintCases.lint(dir, yaml.replace("\\n", "\n")).get(0);
    assertEquals(line, d.location().line(), d.toString());
    assertEquals(column, d.location().column(), d.toString());
  }
}
