package dev.trainyard.compiler.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.schema.NetworkntSchemaValidator;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import dev.trainyard.compiler.testing.Wording;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The built-in runtimes plus a platform's runtimes folder: overrides, additions, and broken
 * definitions.
 */
class RuntimeCatalogLoaderTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path temp;

  private Path write(String folder, String name, String version, String extra) throws IOException {
    Path dir = Files.createDirectories(temp.resolve(folder));
    return Files.writeString(
        dir.resolve("runtime.yaml"),
        "apiVersion: trainyard.dev/v1\nkind: Runtime\nname: "
            + name
            + "\nversion: \""
            + version
            + "\"\nframework: torch\nimage: img\n"
            + extra);
  }

  private static StageResult<RuntimeCatalog> load(Optional<Path> dir) {
    return new RuntimeCatalogLoader(new YamlDocumentLoader(), new NetworkntSchemaValidator())
        .load(dir);
  }

  private static Diagnostic onlyError(StageResult<RuntimeCatalog> r) {
    assertTrue(r.value().isEmpty());
    assertEquals(1, r.diagnostics().size(), r.diagnostics().toString());
    return r.diagnostics().get(0);
  }

  @Test
  @DisplayName("without a platform folder the catalog holds exactly the built-in index")
  void builtins() {
    RuntimeCatalog c = load(Optional.empty()).value().orElseThrow();
    assertEquals(RuntimeCatalogLoader.builtinIndex().size(), c.all().size());
    assertEquals(List.of("deepspeed", "jax", "mlx", "mpi", "plain", "torch"), c.names());
  }

  @Test
  @DisplayName(
      "a platform runtime adds a version, and one with a built-in's name@version replaces it")
  void platformAddsAndOverrides() throws IOException {
    write("torch/9.0.0-1", "torch", "9.0.0-1", "description: newer\n");
    write("torch/2.13.0-1", "torch", "2.13.0-1", "description: patched\n");
    RuntimeCatalog c = load(Optional.of(temp)).value().orElseThrow();
    assertEquals("newer", c.find("torch").orElseThrow().description());
    assertEquals("patched", c.find("torch@2.13.0-1").orElseThrow().description());
    assertTrue(
        c.find("torch@2.13.0-1").orElseThrow().origin().endsWith("torch/2.13.0-1/runtime.yaml"));
  }

  @Test
  @DisplayName("a runtime.yaml in a folder that is not <name>/<version> is E303 at that file")
  void wrongFolder() throws IOException {
    Path file = write("torch/1.0-1", "torch", "1.0-2", "");
    Diagnostic d = onlyError(load(Optional.of(temp)));
    assertEquals(DiagnosticCode.INVALID_RUNTIME, d.code());
    assertEquals(file.toString(), d.location().file());
    WORDING.approve(d.message());
    WORDING.approve(d.hint());
  }

  @Test
  @DisplayName(
      "a missing runtimes folder, a schema violation and a YAML error are each reported, never a catalog")
  void broken() throws IOException {
    Diagnostic missing = onlyError(load(Optional.of(temp.resolve("none"))));
    assertEquals("runtimes folder " + temp.resolve("none") + " does not exist", missing.message());
    assertEquals(
        "name the folder that holds <name>/<version>/runtime.yaml (the platform's runtimes/)",
        missing.hint());
    Path file = Files.writeString(temp.resolve("file.yaml"), "run: x\n");
    assertEquals(
        "runtimes folder " + file + " is a file, not a folder",
        onlyError(load(Optional.of(file))).message());
    write("x/1.0-1", "x", "1.0-1", "unknownField: 1\n");
    assertTrue(load(Optional.of(temp)).value().isEmpty());
    Files.writeString(temp.resolve("x/1.0-1/runtime.yaml"), "name: [x\n");
    StageResult<RuntimeCatalog> yaml = load(Optional.of(temp));
    assertTrue(yaml.value().isEmpty());
    assertTrue(
        yaml.diagnostics().stream().allMatch(Diagnostic::isError), yaml.diagnostics().toString());
    Files.writeString(
        temp.resolve("x/1.0-1/runtime.yaml"),
        "apiVersion: trainyard.dev/v1\nkind: Runtime\nname: x\nversion: 1.0-1\n"
            + "framework: mpi\nimage: img\n");
    Diagnostic bind = onlyError(load(Optional.of(temp)));
    WORDING.approve(bind.message());
  }
}
