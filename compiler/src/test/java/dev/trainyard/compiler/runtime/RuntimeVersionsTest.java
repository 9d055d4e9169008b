package dev.trainyard.compiler.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.schema.NetworkntSchemaValidator;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Built-in runtime versions are immutable and kept: a platform team that pins {@code runtime:
 * torch@2.13.0-1} gets the same definition after every compiler upgrade (design: "runtimes/ … one
 * folder per runtime and version"; provenance stamps the version and digest). {@code
 * runtimes/released.txt} records the digest of every version ever shipped (the {@code
 * trainyard.dev/runtime-digest} value: sha256 over the definition's canonical JSON, so comments and
 * key order do not count). A changed definition under an old version, a new version nobody
 * recorded, or a removed version fails here with what to do.
 */
class RuntimeVersionsTest {
  private static final Path RELEASED = RuntimeIndexTest.RUNTIMES.resolve("released.txt");

  private static RuntimeCatalog builtins() {
    var result =
        new RuntimeCatalogLoader(new YamlDocumentLoader(), new NetworkntSchemaValidator())
            .load(Optional.empty());
    assertEquals(List.of(), result.diagnostics());
    return result.value().orElseThrow();
  }

  /**
   * {@code name@version} → {@code sha256:…}, from released.txt ({@code #} comments and blank lines
   * skipped).
   */
  private static Map<String, String> released() throws IOException {
    Map<String, String> digests = new TreeMap<>();
    for (String line : Files.readAllLines(RELEASED)) {
      if (!line.isBlank() && !line.startsWith("#")) {
        String[] parts = line.trim().split("\\s+");
        assertEquals(
            2, parts.length, "released.txt line is not `name@version sha256:...`: " + line);
        assertEquals(
            null, digests.put(parts[0], parts[1]), "released.txt lists " + parts[0] + " twice");
      }
    }
    return digests;
  }

  @Test
  @DisplayName(
      "every built-in runtime version is recorded in released.txt with the digest it has now: a released version never changes")
  void everyVersionIsRecordedUnchanged() throws IOException {
    Map<String, String> released = released();
    List<String> problems = new ArrayList<>();
    for (RuntimeDefinition r : builtins().all()) {
      String recorded = released.get(r.ref());
      if (recorded == null) {
        problems.add(
            r.ref()
                + " is not recorded; when it is final, add the line `"
                + r.ref()
                + " "
                + r.digest()
                + "` to runtimes/released.txt");
      } else if (!recorded.equals(r.digest())) {
        problems.add(
            r.ref()
                + " changed since it was released (digest "
                + r.digest()
                + ", released "
                + recorded
                + "): restore "
                + r.origin()
                + " and put the change in a new version folder ("
                + r.name()
                + "/<next version>/runtime.yaml, listed in"
                + " runtimes/index.txt and recorded here)");
      }
    }
    assertEquals(List.of(), problems);
  }

  @Test
  @DisplayName("no released runtime version is removed: a pinned name@version keeps resolving")
  void releasedVersionsAreKept() throws IOException {
    RuntimeCatalog catalog = builtins();
    for (String ref : released().keySet()) {
      assertTrue(
          catalog.find(ref).isPresent(),
          ref
              + " is in runtimes/released.txt but no longer a built-in runtime: pinned runs would fail with E302");
    }
  }

  @Test
  @DisplayName("a pinned older version resolves to its own definition; the bare name to the newest")
  void pinnedVersionKeepsItsDefinition() {
    RuntimeCatalog catalog = builtins();
    RuntimeDefinition old = catalog.find("deepspeed@2.3.0-1").orElseThrow();
    RuntimeDefinition newest = catalog.find("deepspeed").orElseThrow();
    assertEquals("2.3.0-2", newest.version());
    assertEquals(
        List.of(false, 0, false),
        List.of(
            old.user().imageOwnsHome(), old.contents().driverFloor(), old.security().restricted()));
    assertEquals(
        List.of(true, 580, true),
        List.of(
            newest.user().imageOwnsHome(),
            newest.contents().driverFloor(),
            newest.security().restricted()));
    assertEquals(newest.image(), old.image());
    assertTrue(!old.digest().equals(newest.digest()));
  }
}
