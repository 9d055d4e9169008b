package dev.trainyard.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Tells a source repo from a GitOps repo by what is on disk, so {@code preview} never silently runs
 * in the wrong mode: a source repo holds {@code train.yaml} files, a GitOps repo a {@code
 * clusters/} folder.
 */
final class RepoKind {
  /**
   * How deep below the working directory train.yaml files are looked for (examples nest them 3
   * deep).
   */
  private static final int DEPTH = 6;

  private RepoKind() {}

  /**
   * Whether {@code root} or a folder at most {@value #DEPTH} levels below it (hidden ones skipped)
   * holds a train.yaml.
   */
  static boolean hasTrainYaml(Path root) {
    try (Stream<Path> files = Files.walk(root.toAbsolutePath(), DEPTH, new FileVisitOption[0])) {
      return files
          .filter(f -> !hidden(root.toAbsolutePath(), f))
          .anyMatch(f -> f.getFileName().toString().equals("train.yaml") && Files.isRegularFile(f));
    } catch (IOException | UncheckedIOException e) {
      return false;
    }
  }

  private static boolean hidden(Path root, Path file) {
    for (Path part : root.relativize(file)) {
      if (part.toString().startsWith(".")) {
        return true;
      }
    }
    return false;
  }

  /**
   * The train.yaml (relative to {@code repoRoot}) whose folder holds {@code folder}: the first
   * found walking up from {@code folder} to {@code repoRoot}; empty when {@code folder} lies
   * outside {@code repoRoot} or no such file exists.
   */
  static Optional<Path> trainYamlAbove(Path folder, Path repoRoot) {
    if (!folder.startsWith(repoRoot)) {
      return Optional.empty();
    }
    for (Path dir = folder; dir != null && dir.startsWith(repoRoot); dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("train.yaml"))) {
        return Optional.of(repoRoot.relativize(dir.resolve("train.yaml")));
      }
    }
    return Optional.empty();
  }
}
