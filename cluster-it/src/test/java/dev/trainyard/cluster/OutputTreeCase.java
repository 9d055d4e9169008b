package dev.trainyard.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * One compiled output tree to apply: a golden case's {@code expected/} folder ({@code
 * golden/<case>/expected/clusters/<cluster>/<namespace>/<run>/*.yaml} plus a cluster-scoped queue
 * folder) or one of this module's fixtures with the same layout under {@code
 * src/test/resources/fixtures/<case>/expected/}. Error cases have no {@code expected/} and are not
 * listed.
 *
 * @param name e.g. {@code golden/torch-basic} or {@code fixture/torch-2-nodes}
 * @param expected the {@code expected/} directory
 */
record OutputTreeCase(String name, Path expected) {

  /**
   * Golden cases found at run time (they are written concurrently by the compiler's tests), sorted.
   */
  static List<OutputTreeCase> golden(Path repoRoot) {
    return casesUnder(repoRoot.resolve("golden"), "golden/");
  }

  /**
   * This module's own fixtures, present until real golden trees exist and kept as a baseline after.
   */
  static List<OutputTreeCase> fixtures() {
    URL url = OutputTreeCase.class.getResource("/fixtures");
    if (url == null) {
      throw new IllegalStateException("fixtures missing from the test classpath");
    }
    try {
      return casesUnder(Path.of(url.toURI()), "fixture/");
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<OutputTreeCase> casesUnder(Path root, String prefix) {
    if (!Files.isDirectory(root)) {
      return List.of();
    }
    List<OutputTreeCase> cases = new ArrayList<>();
    try (Stream<Path> dirs = Files.list(root)) {
      dirs.sorted()
          .filter(dir -> Files.isDirectory(dir.resolve("expected")))
          .forEach(
              dir ->
                  cases.add(
                      new OutputTreeCase(prefix + dir.getFileName(), dir.resolve("expected"))));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return cases;
  }
}
