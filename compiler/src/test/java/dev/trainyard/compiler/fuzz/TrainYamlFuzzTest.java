package dev.trainyard.compiler.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Optional;

/**
 * Jazzer (coverage-guided) on {@code train.yaml}: any bytes, compiled with the embedded platform,
 * end in a compiled tree or in located diagnostics, never an escaped exception. The normal test run
 * replays {@code TrainYamlFuzzTestInputs/trainYaml/} (seeds and every crash found); {@code
 * JAZZER_FUZZ=1} or {@code bench/fuzz} fuzzes.
 */
class TrainYamlFuzzTest {
  /** The entry point standalone Jazzer ({@code bench/fuzz}) calls. */
  public static void fuzzerTestOneInput(byte[] data) {
    JazzerCompile.check(data, Optional.empty());
  }

  @FuzzTest
  void trainYaml(byte[] data) {
    fuzzerTestOneInput(data);
  }
}
