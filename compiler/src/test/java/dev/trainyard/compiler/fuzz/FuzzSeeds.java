package dev.trainyard.compiler.fuzz;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * The inputs mutation starts from: every {@code train.yaml} and {@code platform.yaml} under {@code
 * golden/} and {@code examples/}, and every runtime definition under {@code runtimes/} and {@code
 * golden/*}{@code /runtimes/}.
 *
 * @param trainYamls train.yaml texts
 * @param platforms platform.yaml texts
 * @param runtimes runtime definitions, each with its {@code <name>/<version>} folder
 */
public record FuzzSeeds(List<Seed> trainYamls, List<Seed> platforms, List<Seed> runtimes) {
  /** One seed file: where it came from (relative to the repository root) and its text. */
  public record Seed(String path, String text) {}

  /** Reads the seeds below the repository root {@code root}. */
  public static FuzzSeeds read(Path root) {
    return new FuzzSeeds(
        files(root, p -> p.endsWith("train.yaml") && !p.contains("/expected/")),
        files(
            root,
            p ->
                p.endsWith("platform.yaml")
                    && !p.contains("/expected/")
                    && !p.startsWith("runtimes/")),
        files(root, p -> p.endsWith("/runtime.yaml")));
  }

  private static List<Seed> files(Path root, Predicate<String> wanted) {
    try (Stream<Path> golden = Files.walk(root.resolve("golden"));
        Stream<Path> examples = Files.walk(root.resolve("examples"));
        Stream<Path> runtimes = Files.walk(root.resolve("runtimes"))) {
      return Stream.of(golden, examples, runtimes)
          .flatMap(s -> s)
          .filter(Files::isRegularFile)
          .map(p -> root.relativize(p).toString().replace('\\', '/'))
          .filter(wanted)
          .sorted()
          .map(p -> new Seed(p, text(root.resolve(p))))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String text(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
