package dev.trainyard.compiler.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.source.SourceFile;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Which runtime a name means: versions compare numerically, the newest wins whatever the load
 * order.
 */
class RuntimeCatalogTest {
  static RuntimeDefinition runtime(String name, String version, String description) {
    String yaml =
        "apiVersion: trainyard.dev/v1\nkind: Runtime\nname: "
            + name
            + "\nversion: \""
            + version
            + "\"\ndescription: "
            + description
            + "\nframework: torch\nimage: img\n";
    var doc =
        new YamlDocumentLoader()
            .load(new SourceFile(name + "/" + version + "/runtime.yaml", yaml))
            .value()
            .orElseThrow();
    return RuntimeBinder.bind(doc, "test").value().orElseThrow();
  }

  /** A runtime with an image and a Python ("" for none recorded). */
  static RuntimeDefinition runtime(String name, String version, String image, String python) {
    String yaml =
        "apiVersion: trainyard.dev/v1\nkind: Runtime\nname: "
            + name
            + "\nversion: \""
            + version
            + "\"\ndescription: d"
            + "\nframework: torch\nimage: "
            + image
            + "\n"
            + (python.isEmpty() ? "" : "python: \"" + python + "\"\n");
    var doc =
        new YamlDocumentLoader()
            .load(new SourceFile(name + "/" + version + "/runtime.yaml", yaml))
            .value()
            .orElseThrow();
    return RuntimeBinder.bind(doc, "test").value().orElseThrow();
  }

  private static List<String> refs(List<RuntimeDefinition> defs) {
    return defs.stream().map(r -> r.name() + "@" + r.version()).toList();
  }

  @Test
  @DisplayName(
      "1.10 sorts after 1.9 and a bare name finds 1.10, whether 1.10 is loaded first or last")
  void numericVersionOrder() {
    for (List<RuntimeDefinition> load :
        List.of(
            List.of(
                runtime("x", "1.10-1", "a"),
                runtime("x", "1.9-1", "b"),
                runtime("x", "1.2-1", "c")),
            List.of(
                runtime("x", "1.2-1", "c"),
                runtime("x", "1.9-1", "b"),
                runtime("x", "1.10-1", "a")))) {
      RuntimeCatalog c = new RuntimeCatalog(load);
      assertEquals(List.of("x@1.2-1", "x@1.9-1", "x@1.10-1"), refs(c.all()));
      assertEquals("1.10-1", c.find("x").orElseThrow().version());
      assertEquals(List.of("1.2-1", "1.9-1", "1.10-1"), c.versionsOf("x"));
      assertEquals(List.of("x@1.10-1"), refs(c.newest()));
    }
  }

  @Test
  @DisplayName("name@version finds that version exactly; an unknown version or name finds nothing")
  void exactFind() {
    RuntimeCatalog c =
        new RuntimeCatalog(List.of(runtime("x", "1.9-1", "b"), runtime("x", "1.10-1", "a")));
    assertEquals("b", c.find("x@1.9-1").orElseThrow().description());
    assertEquals(Optional.empty(), c.find("x@1.9"));
    assertEquals(Optional.empty(), c.find("x@"));
    assertEquals(Optional.empty(), c.find("@1.9-1"));
    assertEquals(Optional.empty(), c.find("y"));
    assertEquals(Optional.empty(), c.find("y@1.9-1"));
    assertEquals(List.of(), c.versionsOf("y"));
  }

  @Test
  @DisplayName(
      "a later definition with the same name@version replaces the earlier one (platform over built-in)")
  void laterWins() {
    RuntimeCatalog c =
        new RuntimeCatalog(
            List.of(runtime("x", "1.0-1", "built-in"), runtime("x", "1.0-1", "platform")));
    assertEquals(1, c.all().size());
    assertEquals("platform", c.find("x").orElseThrow().description());
  }

  @Test
  @DisplayName("names are distinct and sorted; newest lists one per name, sorted by name")
  void namesAndNewest() {
    RuntimeCatalog c =
        new RuntimeCatalog(
            List.of(
                runtime("torch", "2.9.0-1", "t"),
                runtime("jax", "25.10-1", "j"),
                runtime("torch", "2.10.0-1", "t2")));
    assertEquals(List.of("jax", "torch"), c.names());
    assertEquals(List.of("jax@25.10-1", "torch@2.10.0-1"), refs(c.newest()));
  }

  @ParameterizedTest(name = "{0} < {1}")
  @CsvSource({
    "2.9.1-3, 2.10.0-1",
    "1.0, 1.0.1",
    "1.0-1, 1.0-2",
    "1.rc1, 1.0",
    "1.a, 1.b",
    "1.0, 1.0+1",
    "9, 10",
    "0.9.9, 1",
    "1..2, 1.0.2"
  })
  @DisplayName(
      "versions compare segment by segment: numbers numerically, a number above text or an empty segment, text lexically, longer wins a tie")
  void versionOrder(String older, String newer) {
    assertTrue(RuntimeCatalog.VERSION_ORDER.compare(older, newer) < 0, older + " < " + newer);
    assertTrue(RuntimeCatalog.VERSION_ORDER.compare(newer, older) > 0, newer + " > " + older);
    assertEquals(0, RuntimeCatalog.VERSION_ORDER.compare(newer, newer));
  }

  @Test
  @DisplayName(
      "an image's Python: the version's own, else the newest other version of the same runtime with the same image, else none")
  void recordedPython() {
    RuntimeDefinition old = runtime("x", "1.0-1", "img:1", "");
    RuntimeDefinition other = runtime("x", "1.0-2", "img:1", "3.11");
    RuntimeDefinition newest = runtime("x", "1.0-3", "img:1", "3.12");
    RuntimeDefinition otherImage = runtime("x", "2.0-1", "img:2", "3.13");
    RuntimeDefinition sameImageOtherName = runtime("y", "1.0-1", "img:3", "3.9");
    RuntimeDefinition bare = runtime("x", "3.0-1", "img:3", "");
    RuntimeCatalog c =
        new RuntimeCatalog(List.of(old, other, newest, otherImage, sameImageOtherName, bare));
    assertEquals(
        List.of("x@1.0-3", "x@1.0-2"),
        refs(c.sameImage(old)),
        "newest first, itself and other images left out");
    assertEquals("3.12", c.recordedPython(old));
    assertEquals("3.11", c.recordedPython(other), "its own, not the newest's");
    assertEquals("3.13", c.recordedPython(otherImage));
    assertEquals("", c.recordedPython(bare), "y has img:3 too, but is another runtime");
    assertEquals(List.of(), c.sameImage(bare));
  }
}
