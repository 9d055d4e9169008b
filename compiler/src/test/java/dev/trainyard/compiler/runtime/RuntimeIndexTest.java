package dev.trainyard.compiler.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.schema.NetworkntSchemaValidator;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The built-in runtimes packaged into the jar are exactly the folders under {@code runtimes/}. */
class RuntimeIndexTest {
  static final Path RUNTIMES =
      Path.of(System.getProperty("trainyard.repo.root", "..")).resolve("runtimes");

  @Test
  @DisplayName("runtimes/index.txt lists every <name>/<version>/runtime.yaml and nothing else")
  void indexMatchesFolders() throws IOException {
    List<String> onDisk;
    try (Stream<Path> walk = Files.walk(RUNTIMES)) {
      onDisk =
          walk.filter(p -> p.getFileName().toString().equals("runtime.yaml"))
              .map(p -> RUNTIMES.relativize(p).toString().replace('\\', '/'))
              .sorted()
              .toList();
    }
    assertEquals(onDisk, RuntimeCatalogLoader.builtinIndex().stream().sorted().toList());
  }

  @Test
  @DisplayName(
      "every built-in runtime loads without diagnostics, and the six frameworks are all shipped")
  void builtinsLoad() {
    var result =
        new RuntimeCatalogLoader(new YamlDocumentLoader(), new NetworkntSchemaValidator())
            .load(Optional.empty());
    assertEquals(List.of(), result.diagnostics());
    RuntimeCatalog catalog = result.value().orElseThrow();
    assertEquals(List.of("deepspeed", "jax", "mlx", "mpi", "plain", "torch"), catalog.names());
    assertTrue(catalog.find("torch").isPresent() && catalog.find("torch@2.13.0-1").isPresent());
    assertTrue(catalog.find("torch@0.0.1").isEmpty());
  }

  @Test
  @DisplayName("versions compare numerically: 2.10.0-1 is newer than 2.9.1-3")
  void versionOrder() {
    assertTrue(RuntimeCatalog.compareVersions("2.10.0-1", "2.9.1-3") > 0);
    assertTrue(RuntimeCatalog.compareVersions("2.9.1-1", "2.9.1-2") < 0);
  }
}
