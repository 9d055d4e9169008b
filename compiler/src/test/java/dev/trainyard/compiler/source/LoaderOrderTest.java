package dev.trainyard.compiler.source;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.StageResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The load stage's diagnostics come in file order, and a path the OS refuses says why in its words. */
class LoaderOrderTest {
  private static List<String> lines(StageResult<?> result) {
    return result.diagnostics().stream()
        .map((Diagnostic d) -> d.location() + " " + d.code().id() + " " + d.message()).toList();
  }

  @Test
  @DisplayName("problems of different kinds are sorted by position: an anchor on line 1 comes before a duplicate key on line 3")
  void sortedByPosition() {
    StageResult<ParsedDocument> result = new YamlDocumentLoader().load(new SourceFile("t.yaml", "a: &x 1\nb: 2\nb: 3\n"));
    assertEquals(List.of(
        "t.yaml:1:4 E104 YAML anchors and aliases are not supported: found anchor `&x`",
        "t.yaml:3:1 E103 `b` is defined twice; the first one is at line 2"), lines(result));
  }

  @Test
  @DisplayName("a path that goes through a regular file is E108 with the OS's reason `not a directory`, not an exception name")
  void throughAFile(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("plain"), "run: x\n");
    StageResult<SourceFile> result = YamlDocumentLoader.readFile(file.resolve("train.yaml"), "plain/train.yaml");
    assertEquals(List.of("plain/train.yaml E108 cannot read the file: not a directory"), lines(result));
    assertEquals("check the path and its permissions", result.diagnostics().get(0).hint());
  }
}
