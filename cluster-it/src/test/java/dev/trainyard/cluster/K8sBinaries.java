package dev.trainyard.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The binaries cache built by {@code scripts/k8s-testbin}: {@code bin/}, {@code crds/}, {@code
 * kwok-stages.yaml}, {@code VERSIONS} and the {@code ready} stamp written last.
 *
 * <p>Located from the system property {@code trainyard.k8s.dir}, else by asking {@code
 * scripts/k8s-testbin --print-dir} (repo root from {@code trainyard.repo.root}, default {@code
 * ..}). A missing or incomplete cache is an error that tells the reader to run the script; tests
 * never skip.
 *
 * @param dir the stack directory, e.g. {@code ~/.cache/trainyard/k8s/k8s-1.36.3_etcd-3.6.16_...}
 */
public record K8sBinaries(Path dir) {

  static final String BUILD_HINT =
      "run `scripts/k8s-testbin` from the repo root first "
          + "(cold build about 30 min, then cached), or pass -Dtrainyard.k8s.dir=DIR";

  /** Finds the cache and checks it is complete. */
  public static K8sBinaries locate() {
    String property = System.getProperty("trainyard.k8s.dir");
    Path dir =
        property != null && !property.isBlank()
            ? Path.of(property)
            : printDir("scripts/k8s-testbin", BUILD_HINT);
    if (!Files.isRegularFile(dir.resolve("ready"))) {
      throw new IllegalStateException(
          "k8s test binaries are missing or incomplete in "
              + dir
              + " (no 'ready' stamp): "
              + BUILD_HINT);
    }
    return new K8sBinaries(dir.toAbsolutePath());
  }

  static Path repoRoot() {
    return Path.of(System.getProperty("trainyard.repo.root", "..")).toAbsolutePath().normalize();
  }

  /**
   * The cache dir that {@code script --print-dir} names (a repo-relative testbin script); builds
   * nothing.
   */
  static Path printDir(String relativeScript, String hint) {
    Path script = repoRoot().resolve(relativeScript);
    try {
      Process process =
          new ProcessBuilder("bash", script.toString(), "--print-dir")
              .redirectErrorStream(true)
              .start();
      String out =
          new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
        throw new IllegalStateException(script + " --print-dir failed: " + out);
      }
      return Path.of(out);
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot run " + script + ": " + e.getMessage() + "; " + hint, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while asking " + script, e);
    }
  }

  /** The executable {@code bin/<name>}; it must exist. */
  public Path bin(String name) {
    Path path = dir.resolve("bin").resolve(name);
    if (!Files.isExecutable(path)) {
      throw new IllegalStateException("missing binary " + path + ": " + BUILD_HINT);
    }
    return path;
  }

  /** Whether an optional binary (the Kueue controller) was built. */
  public boolean has(String name) {
    return Files.isExecutable(dir.resolve("bin").resolve(name));
  }

  public Path crds() {
    return dir.resolve("crds");
  }

  /** kwok's node and pod stages from its module (standalone kwok has none built in). */
  public Path kwokStages() {
    return dir.resolve("kwok-stages.yaml");
  }
}
