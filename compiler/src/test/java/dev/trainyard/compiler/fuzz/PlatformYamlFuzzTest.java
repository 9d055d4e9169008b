package dev.trainyard.compiler.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Optional;

/**
 * Jazzer on {@code platform.yaml}: any bytes as the platform of a plain two-node train.yaml compile
 * or end in located diagnostics (platform.yaml's or train.yaml's), never an escaped exception.
 * Corpus: {@code PlatformYamlFuzzTestInputs/platformYaml/}.
 */
class PlatformYamlFuzzTest {
  /** The entry point standalone Jazzer ({@code bench/fuzz}) calls. */
  public static void fuzzerTestOneInput(byte[] data) {
    JazzerCompile.check(JazzerCompile.PLAIN_TRAIN_YAML, Optional.of(data));
  }

  @FuzzTest
  void platformYaml(byte[] data) {
    fuzzerTestOneInput(data);
  }
}
