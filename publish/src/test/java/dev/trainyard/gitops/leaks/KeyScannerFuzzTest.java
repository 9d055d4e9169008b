package dev.trainyard.gitops.leaks;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.List;

/**
 * Jazzer on the leak scanner ({@code check-secrets}, the submit leak check): any bytes, searched
 * raw and as UTF-16/32 text with up to {@link KeyScanner#MAX_LAYERS} layers of base64, give
 * findings with a positive line, never an exception. Corpus: {@code
 * KeyScannerFuzzTestInputs/scan/}.
 */
class KeyScannerFuzzTest {
  private static final KeyScanner SCANNER = new KeyScanner();

  /** The entry point standalone Jazzer ({@code bench/fuzz}) calls. */
  public static void fuzzerTestOneInput(byte[] data) {
    List<KeyFinding> found = SCANNER.scan(data);
    for (KeyFinding f : found) {
      if (f.line() < 1) {
        throw new AssertionError("a finding without a line: " + f);
      }
    }
  }

  @FuzzTest
  void scan(byte[] data) {
    fuzzerTestOneInput(data);
  }
}
