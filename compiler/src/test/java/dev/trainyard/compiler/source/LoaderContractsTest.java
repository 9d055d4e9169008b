package dev.trainyard.compiler.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.testing.Wording;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Load-stage contracts at their edges, each checked as whole diagnostics ({@code file:line:col code
 * message}): file order, which event a diagnostic points at, where block scalars end for the tab
 * check, and what the operating system's refusals read as.
 */
class LoaderContractsTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  private final YamlDocumentLoader loader = new YamlDocumentLoader();

  private static List<String> lines(StageResult<?> result) {
    return result.diagnostics().stream()
        .map((Diagnostic d) -> d.location() + " " + d.code().id() + " " + d.message())
        .toList();
  }

  private List<String> load(String yaml) {
    return lines(loader.load(new SourceFile("t.yaml", yaml)));
  }

  @Test
  @DisplayName(
      "problems of different kinds are sorted by position: an anchor on line 1 comes before a duplicate key on line 3")
  void sortedByPosition() {
    assertEquals(
        List.of(
            "t.yaml:1:4 E104 YAML anchors and aliases are not supported: found anchor `&x`",
            "t.yaml:3:1 E103 `b` is defined twice; the first one is at line 2"),
        load("a: &x 1\nb: 2\nb: 3\n"));
  }

  @Test
  @DisplayName("an alias of an anchor never defined is named as an alias `*x`, at the alias")
  void aliasFirst() {
    assertEquals(
        List.of("t.yaml:2:6 E104 YAML anchors and aliases are not supported: found alias `*x`"),
        load("run: train\nkey: *x\n"));
  }

  @Test
  @DisplayName(
      "a second document is reported at its `---`, even when that line also opens an anchored mapping")
  void secondDocumentAtItsStart() {
    assertEquals(
        List.of(
            "t.yaml:2:1 E110 the file holds more than one YAML document (a second one starts here)",
            "t.yaml:2:5 E104 YAML anchors and aliases are not supported: found anchor `&a`"),
        load("run: x\n--- &a\nb: 1\n"));
  }

  @Test
  @DisplayName(
      "tab check: a block scalar at column 1 keeps its content (empty lines too) out of the check; the next key at column 1 is checked")
  void blockScalarAtColumnOne() {
    assertEquals(List.of(), load("run: |\n  a\n\n  \tb\nk: 1\n"));
    assertEquals(
        List.of("t.yaml:3:1 E102 tab character in indentation"), load("run: |\n  x\n\tk: 1\n"));
  }

  @Test
  @DisplayName("a tab after the first non-blank character of a line is content, not indentation")
  void tabAfterContent() {
    StageResult<ParsedDocument> result = loader.load(new SourceFile("t.yaml", "run: a\tb\n"));
    assertEquals(List.of(), result.diagnostics());
    assertEquals("a\tb", result.value().orElseThrow().root().path("run").asText());
  }

  @Test
  @DisplayName(
      "a path that goes through a regular file is E108 with the OS's reason `not a directory`, not an exception name")
  void throughAFile(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("plain"), "run: x\n");
    StageResult<SourceFile> result =
        YamlDocumentLoader.readFile(file.resolve("train.yaml"), "plain/train.yaml");
    assertEquals(
        List.of("plain/train.yaml E108 cannot read the file: not a directory"), lines(result));
    WORDING.approve(result.diagnostics().get(0).hint());
  }

  @Test
  @DisplayName(
      "a file the OS refuses to open for reading (Linux's write-only /proc/sys/vm/compact_memory) is E108 `permission denied`")
  void permissionDenied() {
    Path writeOnly = Path.of("/proc/sys/vm/compact_memory");
    assumeTrue(
        Files.isRegularFile(writeOnly) && !Files.isReadable(writeOnly),
        "NOT RUN: needs Linux's write-only /proc/sys/vm/compact_memory, which even root cannot open for reading");
    assertEquals(
        List.of("compact_memory E108 cannot read the file: permission denied"),
        lines(YamlDocumentLoader.readFile(writeOnly, "compact_memory")));
  }

  @Test
  @DisplayName(
      "a bad byte right after a newline is at column 1 of the next line; on line 1 its column is its offset + 1")
  void badByteColumns() {
    assertEquals(
        Optional.of(new Utf8Text.BadByte(3, 2, 1, 0xC0)),
        Utf8Text.firstBadByte(new byte[] {'a', 'b', '\n', (byte) 0xC0, '\n'}));
    assertEquals(
        Optional.of(new Utf8Text.BadByte(2, 1, 3, 0xFF)),
        Utf8Text.firstBadByte(new byte[] {'a', 'b', (byte) 0xFF}));
  }
}
