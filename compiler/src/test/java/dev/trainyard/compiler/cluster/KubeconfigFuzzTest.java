package dev.trainyard.compiler.cluster;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Jazzer on the kubeconfig reader ({@code --kubeconfig FILE} of validate, status, logs): any bytes
 * give a client configuration or {@link ClusterDryRun.ClusterUnavailableException} (a one-line
 * message the CLI prints), never another exception; the message never quotes the file beyond its
 * path (a kubeconfig holds tokens). Corpus: {@code KubeconfigFuzzTestInputs/kubeconfig/}.
 */
class KubeconfigFuzzTest {
  private static final Path FILE;

  static {
    try {
      FILE = Files.createTempDirectory("trainyard-jazzer-kube").resolve("config");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The entry point standalone Jazzer ({@code bench/fuzz}) calls. */
  public static void fuzzerTestOneInput(byte[] data) {
    try {
      Files.write(FILE, data);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try {
      ClusterDryRun.clientConfig(Optional.of(FILE), Optional.empty());
    } catch (ClusterDryRun.ClusterUnavailableException e) {
      String message = String.valueOf(e.getMessage());
      if (message.contains("tok-SECRET")) {
        throw new AssertionError("the message quotes the kubeconfig's token: " + message);
      }
    }
  }

  @FuzzTest
  void kubeconfig(byte[] data) {
    fuzzerTestOneInput(data);
  }
}
