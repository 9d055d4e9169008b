package dev.trainyard.compiler.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Jazzer on the run line (the shell tokenizer, the launcher lint and the MPI rules behind it): a
 * fuzzed {@code run:} string, written as one quoted YAML scalar so the fuzzer spends its time on
 * the shell text and not on YAML, with a fuzzed runtime and node count; the compile ends in a tree
 * or located diagnostics. Corpus: {@code RunLineFuzzTestInputs/runLine/}.
 */
class RunLineFuzzTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] RUNTIMES = {"torch", "deepspeed", "mpi", "mlx", "jax", "plain"};

  /** The entry point standalone Jazzer ({@code bench/fuzz}) calls. */
  public static void fuzzerTestOneInput(FuzzedDataProvider data) {
    String runtime = data.pickValue(RUNTIMES);
    int nodes = data.consumeInt(1, 4);
    String setup = data.consumeBoolean() ? data.consumeString(200) : "";
    String run = data.consumeRemainingAsString();
    try {
      String yaml =
          "runtime: "
              + runtime
              + "\nnodes: "
              + nodes
              + (setup.isEmpty() ? "" : "\nsetup: " + JSON.writeValueAsString(setup))
              + "\nrun: "
              + JSON.writeValueAsString(run)
              + "\n";
      JazzerCompile.check(yaml.getBytes(StandardCharsets.UTF_8), Optional.empty());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  @FuzzTest
  void runLine(FuzzedDataProvider data) {
    fuzzerTestOneInput(data);
  }
}
