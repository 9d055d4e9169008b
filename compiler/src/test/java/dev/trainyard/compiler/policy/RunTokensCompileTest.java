package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * How the {@code run} line is split into words before the lint reads its flags, seen through a
 * compile on 2 torch nodes: quotes group words and are dropped, a quote of the other kind inside
 * quotes is literal, whitespace, {@code ;}, {@code &} and {@code |} separate words.
 */
class RunTokensCompileTest {
  @TempDir Path temp;

  private List<Diagnostic> lint(String run) {
    String yaml = "runtime: torch\nnodes: 2\nrun: '" + run.replace("'", "''") + "'\n";
    CompileResult r = TrainProject.create(temp, yaml).compile();
    return TrainProject.withCode(r, DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY);
  }

  private void assertNnodes(String run, String seen) {
    List<Diagnostic> d = lint(run);
    assertEquals(1, d.size(), run + " -> " + d);
    assertEquals("`run` passes --nnodes " + seen + ", but `nodes` is 2", d.get(0).message());
    assertEquals(3, d.get(0).location().line());
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "torchrun --nnodes \"2\" train.py",
        "torchrun --nnodes=\"2\" train.py",
        "torchrun --nnodes='2' train.py",
        "torchrun  --nnodes  2  train.py",
        "torchrun\t--nnodes\t2 train.py",
        "torchrun train.py --nnodes 2;echo done",
        "torchrun train.py --nnodes 2&&echo done",
        "torchrun train.py --nnodes 2|tee log",
        "torchrun train.py --msg 'a \"b --nnodes 3' --nnodes 2",
        "torchrun train.py --msg \"it's --nnodes 3\"",
        "torchrun train.py --nnodes",
      })
  @DisplayName(
      "quotes are dropped, separators split words, a flag inside quotes is no flag: these agree with nodes 2")
  void agrees(String run) {
    assertEquals(List.of(), lint(run), run);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"torchrun --nnodes \"3\" train.py", "torchrun --nnodes=\"3\" train.py"})
  @DisplayName("a double-quoted --nnodes 3 is read as 3, without the quotes")
  void doubleQuotedValue(String run) {
    assertNnodes(run, "3");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"torchrun --nnodes \"3 4\" train.py", "torchrun --nnodes '3;4' train.py"})
  @DisplayName("quotes keep whitespace and ; inside one word")
  void quotedSeparators(String run) {
    assertNnodes(run, run.contains(";") ? "3;4" : "3 4");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"torchrun 'a' --nnodes 3 train.py", "torchrun \"a\" --nnodes 3 train.py"})
  @DisplayName("a closed quote ends there: a flag after it is read")
  void quoteCloses(String run) {
    assertNnodes(run, "3");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {"torchrun --nnodes 3;echo", "torchrun --nnodes 3&echo", "torchrun --nnodes 3|tee"})
  @DisplayName("; & and | end a word: the value is 3, not 3;echo")
  void separatorsEndWords(String run) {
    assertNnodes(run, "3");
  }
}
