package dev.trainyard.gitops;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The real {@code kubectl kustomize}: from the Kubernetes test binaries ({@code
 * -Dtrainyard.k8s.dir}), else PATH.
 */
final class Kustomize {
  private Kustomize() {}

  /** Builds {@code folder}; returns the YAML stream; fails the test when kustomize fails. */
  static String build(Path folder) {
    try {
      Process p =
          new ProcessBuilder(kubectl(), "kustomize", folder.toString())
              .redirectErrorStream(true)
              .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("kubectl kustomize timed out on " + folder);
      }
      if (p.exitValue() != 0) {
        throw new AssertionError("kubectl kustomize " + folder + " failed:\n" + out);
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** The names of the objects of a kustomize build ({@code kind/name}), in output order. */
  static List<String> objects(String yaml) {
    List<String> out = new ArrayList<>();
    String kind = null;
    boolean metadata = false;
    for (String line : yaml.lines().toList()) {
      if (line.startsWith("kind: ")) {
        kind = line.substring(6);
      } else if (line.equals("metadata:")) {
        metadata = true;
      } else if (metadata && line.startsWith("  name: ")) {
        out.add(kind + "/" + line.substring(8));
        metadata = false;
      } else if (!line.startsWith(" ")) {
        metadata = false;
      }
    }
    return out;
  }

  static String kubectl() {
    String dir = System.getProperty("trainyard.k8s.dir", "");
    if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "bin", "kubectl"))) {
      return Path.of(dir, "bin", "kubectl").toString();
    }
    return "kubectl";
  }
}
