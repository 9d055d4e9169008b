package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The real {@code kubectl kustomize} builds every folder of every golden output tree, and emits
 * exactly the objects the folder's files hold: what Argo CD and Flux will do with the tree.
 */
class KustomizeBuildTest {

  @TestFactory
  @DisplayName("kubectl kustomize builds every folder of every golden tree")
  Stream<DynamicTest> kustomizeEveryFolder() throws IOException {
    List<Path> folders;
    try (Stream<Path> walk = Files.walk(GoldenCasesTest.ROOT)) {
      folders =
          walk.filter(p -> p.getFileName().toString().equals("kustomization.yaml"))
              .map(Path::getParent)
              .sorted()
              .toList();
    }
    return folders.stream()
        .map(
            f ->
                DynamicTest.dynamicTest(
                    GoldenCasesTest.ROOT.relativize(f).toString(), () -> build(f)));
  }

  private static void build(Path folder) throws Exception {
    Process p =
        new ProcessBuilder(kubectl(), "kustomize", folder.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("kubectl kustomize timed out on " + folder);
    }
    assertEquals(0, p.exitValue(), "kubectl kustomize " + folder + " failed:\n" + out);
    long files;
    try (Stream<Path> list = Files.list(folder)) {
      files = list.filter(f -> !f.getFileName().toString().equals("kustomization.yaml")).count();
    }
    long objects = out.lines().filter(l -> l.startsWith("kind: ")).count();
    assertEquals(files, objects, "one object per file in " + folder + ":\n" + out);
  }

  /**
   * kubectl from the Kubernetes test binaries cache when built ({@code scripts/k8s-testbin}), else
   * from PATH.
   */
  static String kubectl() {
    String dir = System.getProperty("trainyard.k8s.dir", "");
    if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "bin", "kubectl"))) {
      return Path.of(dir, "bin", "kubectl").toString();
    }
    return "kubectl";
  }
}
