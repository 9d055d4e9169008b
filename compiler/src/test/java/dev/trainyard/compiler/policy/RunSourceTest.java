package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.source.ParsedDocument;
import dev.trainyard.compiler.source.SourceFile;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Where a piece of {@code run} is written, and the fallback to the value's start when it cannot be
 * found.
 */
class RunSourceTest {
  private static RunSource source(String yaml) {
    ParsedDocument doc =
        new YamlDocumentLoader().load(new SourceFile("t.yaml", yaml)).value().orElseThrow();
    return new RunSource(doc, "/run", doc.root().path("run").asText());
  }

  private static String at(RunSource s, String value, String piece, int nth) {
    int index = -1;
    for (int i = 0; i <= nth; i++) {
      index = value.indexOf(piece, index + 1);
    }
    SourceLocation l = s.at(index, piece.length());
    return l.line() + ":" + l.column();
  }

  @Test
  @DisplayName("the n-th occurrence in a block scalar, on its own line and column")
  void blockScalar() {
    RunSource s = source("nodes: 2\nrun: |\n  a --x 1\n  b --x 2\n");
    assertEquals("3:5", at(s, "a --x 1\nb --x 2\n", "--x", 0));
    assertEquals("4:5", at(s, "a --x 1\nb --x 2\n", "--x", 1));
    assertEquals("4:3", at(s, "a --x 1\nb --x 2\n", "b", 0));
  }

  @Test
  @DisplayName(
      "an escaped piece is not searched beyond the scalar (a later key or comment at column 1): the value's start answers")
  void escapedFallsBack() {
    RunSource s =
        source(
            "run: \"torchrun --node\\u005frank=0\"\n# --node_rank=0\nnodes: 2 # --node_rank=0\n");
    assertEquals("1:6", at(s, "torchrun --node_rank=0", "--node_rank=0", 0));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = ';',
      value = {
        // a key after the scalar ends it; the pieces before that key are found
        "run: torchrun --nnodes 1 a.py\\nnodes: 2\\n              ; a.py ; 0 ; 1:26",
        "run: |\\n  a --x 1\\n  b --x 2\\nnodes: 2\\n           ; 2    ; 0 ; 3:9",
        // the file's last character, with no line break after it
        "nodes: 2\\nrun: torchrun a.py                                ; a.py ; 0 ; 2:15",
        // a blank first line; a piece at the value's first character, in a block scalar (not at the
        // indicator)
        "\\nrun: torchrun a.py\\n                                    ; a.py ; 0 ; 2:15",
        "run: |\\n  torchrun a.py\\n                                   ; torchrun ; 0 ; 2:3",
        // the second occurrence of a piece that also starts the value
        "run: --x 1 --x 2\\n                                        ; --x  ; 1 ; 1:12",
        // a one-character piece at the end of a line of a block scalar
        "run: |\\n  a 1\\n  b 2\\n                                    ; 1    ; 0 ; 2:5",
      })
  @DisplayName(
      "a piece is found up to the end of its scalar (a later key, the end of the file) and on its own line, also at the value's first character")
  void found(String yaml, String piece, int nth, String where) {
    RunSource s = source(yaml.replace("\\n", "\n"));
    String value =
        new YamlDocumentLoader()
            .load(new SourceFile("t.yaml", yaml.replace("\\n", "\n")))
            .value()
            .orElseThrow()
            .root()
            .path("run")
            .asText();
    assertEquals(where, at(s, value, piece, nth));
  }

  @Test
  @DisplayName(
      "a piece that is not in the written text at all (an escape) answers the value's start")
  void escapedNowhere() {
    RunSource s = source("run: \"torchrun --node\\u005frank=0\"\nnodes: 2\n");
    assertEquals("1:6", at(s, "torchrun --node_rank=0", "--node_rank=0", 0));
  }

  @Test
  @DisplayName("an empty or out-of-range piece answers the value's start")
  void outOfRange() {
    RunSource s = source("nodes: 2\nrun: torchrun a.py\n");
    assertEquals(new SourceLocation("t.yaml", 2, 6), s.at(0, 0));
    assertEquals(new SourceLocation("t.yaml", 2, 6), s.at(5, 0));
    assertEquals(new SourceLocation("t.yaml", 2, 6), s.at(-1, 2));
    assertEquals(new SourceLocation("t.yaml", 2, 6), s.at(10, 8));
    assertEquals(new SourceLocation("t.yaml", 2, 15), s.at(9, 4));
  }
}
