package dev.trainyard.gitops.integration;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The JobSet Go module's source in the Go module cache ({@code go mod download
 * sigs.k8s.io/jobset@v0.12.0}), where the CRD and the API types are read at test time; nothing of
 * it is copied into this repository. The cache is {@code $GOMODCACHE}, else what {@code go env
 * GOMODCACHE} prints (30 s bound), else {@code ~/go/pkg/mod}.
 */
final class JobSetModule {
  /** The JobSet release the compiler targets and cluster-it builds (scripts/k8s-testbin). */
  static final String MODULE = "sigs.k8s.io/jobset@v0.12.0";

  static final String CRD = "config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml";
  static final String TYPES = "api/jobset/v1alpha2/jobset_types.go";

  private JobSetModule() {}

  /** The module's directory, when it has been downloaded. */
  static Optional<Path> dir() {
    Path dir = moduleCache().resolve(MODULE);
    return Files.isRegularFile(dir.resolve(CRD)) ? Optional.of(dir) : Optional.empty();
  }

  static String read(Path dir, String relative) throws IOException {
    return Files.readString(dir.resolve(relative), StandardCharsets.UTF_8);
  }

  private static Path moduleCache() {
    String env = System.getenv("GOMODCACHE");
    if (env != null && !env.isBlank()) {
      return Path.of(env);
    }
    return goEnv().orElse(Path.of(System.getProperty("user.home"), "go", "pkg", "mod"));
  }

  private static Optional<Path> goEnv() {
    try {
      Process go = new ProcessBuilder("go", "env", "GOMODCACHE").redirectErrorStream(true).start();
      if (!go.waitFor(30, TimeUnit.SECONDS)) {
        go.destroyForcibly();
        return Optional.empty();
      }
      String out = new String(go.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      return go.exitValue() == 0 && !out.isEmpty() ? Optional.of(Path.of(out)) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty(); // no go on PATH
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }
}
