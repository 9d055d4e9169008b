package dev.trainyard.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The Flux cache built by {@code scripts/flux-testbin}: {@code bin/source-controller}, {@code
 * bin/kustomize-controller}, {@code crds/} (config/crd/bases of both modules), {@code VERSIONS}, a
 * {@code <controller>.failed} marker per controller that did not build, and the {@code ready}
 * stamp.
 *
 * <p>Located from the system property {@code trainyard.flux.dir}, else by asking {@code
 * scripts/flux-testbin --print-dir}. Unlike {@link K8sBinaries}, a missing piece is not an error:
 * Flux may fail to build on a machine whose Go proxy lacks a module, so {@link #missing()} gives
 * the reason and the Flux tests report themselves as not run with it.
 *
 * @param dir the stack directory, e.g. {@code ~/.cache/trainyard/flux/flux-v1.9.6_r1}
 */
record FluxBinaries(Path dir) {

  static final List<String> CONTROLLERS = List.of("source-controller", "kustomize-controller");
  static final String BUILD_HINT =
      "run `scripts/flux-testbin` from the repo root "
          + "(cold build about 5 to 15 min, then cached), or pass -Dtrainyard.flux.dir=DIR";

  /**
   * The configured or default cache dir; it may be empty or incomplete (see {@link #missing()}).
   */
  static FluxBinaries locate() {
    String property = System.getProperty("trainyard.flux.dir");
    Path dir =
        property != null && !property.isBlank()
            ? Path.of(property)
            : K8sBinaries.printDir("scripts/flux-testbin", BUILD_HINT);
    return new FluxBinaries(dir.toAbsolutePath());
  }

  /**
   * Why the controllers cannot run here, or empty when both are built: the first line of a {@code
   * *.failed} marker (it names module@version and the Go error), else the missing stamp or binary.
   */
  Optional<String> missing() {
    for (String controller : CONTROLLERS) {
      Path marker = dir.resolve(controller + ".failed");
      if (Files.isRegularFile(marker)) {
        return Optional.of("Flux " + controller + " did not build: " + firstLine(marker));
      }
    }
    if (!Files.isRegularFile(dir.resolve("ready"))) {
      return Optional.of(
          "Flux binaries not built in " + dir + " (no 'ready' stamp): " + BUILD_HINT);
    }
    return CONTROLLERS.stream()
        .filter(c -> !Files.isExecutable(bin(c)))
        .findFirst()
        .map(c -> "Flux binary " + bin(c) + " is missing: " + BUILD_HINT);
  }

  /** {@code bin/<controller>}; check {@link #missing()} first. */
  Path bin(String controller) {
    return dir.resolve("bin").resolve(controller);
  }

  Path crds() {
    return dir.resolve("crds");
  }

  private static String firstLine(Path file) {
    try {
      return Files.readAllLines(file, StandardCharsets.UTF_8).stream()
          .findFirst()
          .orElse("(empty marker)");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
