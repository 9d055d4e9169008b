package dev.trainyard.compiler.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
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

class YamlDocumentLoaderTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  private final YamlDocumentLoader loader = new YamlDocumentLoader();

  private StageResult<ParsedDocument> loadBadInput(String name) throws Exception {
    Path path = Path.of(getClass().getResource("/bad-input/" + name).toURI());
    StageResult<SourceFile> file = YamlDocumentLoader.readFile(path, name);
    assertTrue(
        file.value().isPresent(), () -> "could not read " + name + ": " + file.diagnostics());
    return loader.load(file.value().get());
  }

  private static Diagnostic only(StageResult<?> result) {
    assertTrue(result.failed(), "expected the stage to fail");
    assertEquals(1, result.diagnostics().size(), () -> result.diagnostics().toString());
    return result.diagnostics().get(0);
  }

  private static void assertDiagnostic(
      Diagnostic d, DiagnosticCode code, int line, int column, String message, String hint) {
    assertEquals(code, d.code());
    assertEquals(line, d.location().line(), "line");
    assertEquals(column, d.location().column(), "column");
    assertEquals(message, d.message());
    assertEquals(hint, d.hint());
  }

  @Test
  @DisplayName(
      "a YAML syntax error is a short message at the offending character, without Jackson's noise")
  void syntaxError() throws Exception {
    Diagnostic d = only(loadBadInput("yaml-syntax.yaml"));
    assertDiagnostic(
        d,
        DiagnosticCode.YAML_SYNTAX,
        1,
        16,
        "unexpected `:` inside a value",
        "quote a value that contains `: ` (`run: \"echo a: b\"`), or put a nested mapping on its own, more"
            + " indented line");
    assertEquals("yaml-syntax.yaml", d.location().file());
  }

  @Test
  @DisplayName("an unclosed flow list is reported at its opening bracket")
  void unclosedList() {
    Diagnostic d = only(loader.load(new SourceFile("t.yaml", "run: x\nenv: [1, 2\n")));
    assertDiagnostic(
        d,
        DiagnosticCode.YAML_SYNTAX,
        2,
        6,
        "list opened with `[` is not closed",
        "close the list with `]`, and separate items with `,`");
  }

  @Test
  @DisplayName("every line indented with a tab is reported, not only the first")
  void tabs() throws Exception {
    List<Diagnostic> all = loadBadInput("tab-indentation.yaml").diagnostics();
    assertEquals(2, all.size());
    for (int i = 0; i < 2; i++) {
      assertDiagnostic(
          all.get(i),
          DiagnosticCode.TAB_INDENTATION,
          3 + i,
          1,
          "tab character in indentation",
          "YAML indents with spaces only: replace the tab with spaces (2 per level)");
    }
  }

  @Test
  @DisplayName("a tab inside a block scalar's content is text, not indentation")
  void tabInBlockScalar() {
    StageResult<ParsedDocument> result =
        loader.load(new SourceFile("t.yaml", "run: |\n  python a.py\n  \t--x\n"));
    assertTrue(result.diagnostics().isEmpty(), () -> result.diagnostics().toString());
    assertEquals("python a.py\n\t--x\n", result.value().orElseThrow().root().get("run").asText());
  }

  @Test
  @DisplayName("a duplicate key points at the second key and names the first one's line")
  void duplicateKey() throws Exception {
    Diagnostic d = only(loadBadInput("duplicate-key.yaml"));
    assertDiagnostic(
        d,
        DiagnosticCode.DUPLICATE_KEY,
        5,
        1,
        "`nodes` is defined twice; the first one is at line 2",
        "delete one of the two `nodes:` lines (YAML keeps only one of them, silently)");
    assertEquals("/nodes", d.pointer());
  }

  @Test
  @DisplayName("anchors and aliases are refused with a hint that train.yaml does not support them")
  void anchorAndAlias() throws Exception {
    Diagnostic d = only(loadBadInput("anchor-alias.yaml"));
    assertDiagnostic(
        d,
        DiagnosticCode.ANCHOR_OR_ALIAS,
        1,
        6,
        "YAML anchors and aliases are not supported: found anchor `&cmd` (and 1 more anchors or aliases)",
        "train.yaml and the other Trainyard files do not support anchors (`&name`) or aliases (`*name`), which"
            + " also shuts out alias bombs; write each value out in full");
  }

  @Test
  @DisplayName("a 10-level alias bomb (billion laughs) is refused quickly with one diagnostic")
  void aliasBomb() throws Exception {
    long start = System.nanoTime();
    Diagnostic d = only(loadBadInput("alias-bomb.yaml"));
    assertTrue(
        System.nanoTime() - start < 5_000_000_000L, "took too long: the aliases were expanded");
    assertDiagnostic(
        d,
        DiagnosticCode.ANCHOR_OR_ALIAS,
        1,
        4,
        "YAML anchors and aliases are not supported: found anchor `&a` (and 90 more anchors or aliases)",
        d.hint());
    WORDING.approve(d.hint());
  }

  @Test
  @DisplayName(
      "a character YAML does not allow (NUL, U+FFFE, another control character) is named at its line and column, past SnakeYAML's read buffer and after characters outside the BMP")
  void unprintableCharacterWhereItIs() {
    String hint =
        "remove it; inside a double-quoted string, write it as an escape (`\\x00`, `\\uFFFE`)";
    assertDiagnostic(
        only(loader.load(new SourceFile("t.yaml", "run: python a.py\nenv:\n  A: \"x\0y\"\n"))),
        DiagnosticCode.YAML_SYNTAX,
        3,
        8,
        "character U+0000 is not allowed in a YAML file",
        hint);
    assertDiagnostic(
        only(loader.load(new SourceFile("t.yaml", "run: python a.py # \uD83D\uDE80\uFFFE\n"))),
        DiagnosticCode.YAML_SYNTAX,
        1,
        21,
        "character U+FFFE is not allowed in a YAML file",
        hint);
    String far = "run: python a.py\n" + "# padding\n".repeat(2_000) + "x: \u0007\n";
    assertDiagnostic(
        only(loader.load(new SourceFile("t.yaml", far))),
        DiagnosticCode.YAML_SYNTAX,
        2_002,
        4,
        "character U+0007 is not allowed in a YAML file",
        hint);
    WORDING.approve(only(loader.load(new SourceFile("t.yaml", "run: a\u0001\n"))).message());
    // Lines and columns as SnakeYAML marks every other error: a BOM takes no column; CR, CRLF,
    // NEL and U+2028 end a line (a NEL line break is what the error of line 3 below counts too).
    for (String[] c :
        new String[][] {
          {"\uFEFFrun: python \u0010a.py\n", "1:13"},
          {"nodes: 2\rrun: python \u0003a.py\r", "2:13"},
          {"nodes: 2\r\nrun: python \u0003a.py\r\n", "2:13"},
          {"run: \"a\u0085b\"\nx: \u0007\n", "3:4"},
          {"run: \"a\u2028b\u2029c\"\nx: \u0007\n", "4:4"},
          {"run: a\u0007", "1:7"}
        }) {
      Diagnostic d = only(loader.load(new SourceFile("t.yaml", c[0])));
      assertEquals(
          c[1], d.location().line() + ":" + d.location().column(), c[0].replace("\r", "\\r"));
    }
    assertEquals(
        Optional.empty(),
        YamlDocumentLoader.unprintable(new SourceFile("t.yaml", "run: a\u0085\r")),
        "only printable characters, a line break last");
    Diagnostic other =
        only(loader.load(new SourceFile("t.yaml", "run: \"a\u0085b\"\nbogus: : 1\n")));
    assertEquals(3, other.location().line(), other.toString());
  }

  @Test
  @DisplayName("a scalar anchor alone (which Jackson does not report) is still refused")
  void scalarAnchorWithoutAlias() {
    Diagnostic d = only(loader.load(new SourceFile("t.yaml", "run: &x python a.py\n")));
    assertEquals(DiagnosticCode.ANCHOR_OR_ALIAS, d.code());
    WORDING.approve(d.message());
  }

  @Test
  @DisplayName("an empty file is EMPTY_FILE, located at the file")
  void emptyFile() throws Exception {
    Diagnostic d = only(loadBadInput("empty.yaml"));
    assertDiagnostic(
        d,
        DiagnosticCode.EMPTY_FILE,
        0,
        0,
        "the file is empty",
        "a train.yaml needs at least the command to run, e.g. `run: python train.py`");
  }

  @Test
  @DisplayName("a file with only comments is EMPTY_FILE")
  void commentsOnly() throws Exception {
    Diagnostic d = only(loadBadInput("comments-only.yaml"));
    assertDiagnostic(
        d,
        DiagnosticCode.EMPTY_FILE,
        0,
        0,
        "the file holds only comments",
        "a train.yaml needs at least the command to run, e.g. `run: python train.py`");
  }

  @Test
  @DisplayName(
      "a file of only YAML directives or document markers is EMPTY_FILE, not an exception (found by Jazzer: `%d`)")
  void directivesOnly() {
    for (String text : List.of("%d", "%YAML 1.2\n")) {
      Diagnostic d = only(loader.load(new SourceFile("t.yaml", text)));
      assertEquals(DiagnosticCode.EMPTY_FILE, d.code(), text);
      assertEquals(
          "the file holds no value, only YAML directives or document markers", d.message(), text);
    }
  }

  @Test
  @DisplayName("a top level that is a list is NOT_A_MAPPING")
  void notAMapping() throws Exception {
    Diagnostic d = only(loadBadInput("top-level-list.yaml"));
    assertDiagnostic(
        d,
        DiagnosticCode.NOT_A_MAPPING,
        1,
        1,
        "the top level must be a mapping of fields (`key: value` lines), got a list",
        "start each field at column 1, e.g. `run: python train.py`; a leading `- ` makes the file a list");
  }

  @Test
  @DisplayName("a second document (`---` twice) is reported at its `---` line")
  void multipleDocuments() throws Exception {
    Diagnostic d = only(loadBadInput("multiple-documents.yaml"));
    assertDiagnostic(
        d,
        DiagnosticCode.MULTIPLE_DOCUMENTS,
        3,
        1,
        "the file holds more than one YAML document (a second one starts here)",
        "a Trainyard file is a single document: remove this `---` line and merge or delete what follows");
  }

  @Test
  @DisplayName(
      "scalars keep YAML types; yes/on are booleans as Jackson reads them; key: with no value is null")
  void scalarTypes() {
    String yaml = "i: 4\nf: 1.0\nb: true\ny: yes\nn: ~\ne:\ns: \"4\"\nbig: 12345678901\n";
    ParsedDocument doc = loader.load(new SourceFile("t.yaml", yaml)).value().orElseThrow();
    assertTrue(doc.root().get("i").isInt());
    assertTrue(doc.root().get("f").isDouble());
    assertTrue(doc.root().get("b").isBoolean());
    assertTrue(doc.root().get("y").booleanValue());
    assertTrue(doc.root().get("n").isNull());
    assertTrue(doc.root().get("e").isNull());
    assertEquals("4", doc.root().get("s").textValue());
    assertTrue(doc.root().get("big").isLong());
    assertEquals("1.0", doc.map().scalarText("/f").orElseThrow());
    assertEquals("yes", doc.map().scalarText("/y").orElseThrow());
  }

  @Test
  @DisplayName("the source map records values and keys by RFC 6901 pointer")
  void sourceMap() {
    String yaml =
        "run: x\nresources:\n  gpus: 2\nenv:\n  \"A/B~C\": 1\nvolumes:\n  - claim: d\n    path: /d\n";
    SourceMap map = loader.load(new SourceFile("t.yaml", yaml)).value().orElseThrow().map();
    assertEquals("t.yaml:3:9", map.at("/resources/gpus").toString());
    assertEquals("t.yaml:3:3", map.keyAt("/resources/gpus").toString());
    assertEquals("t.yaml:5:12", map.at("/env/A~1B~0C").toString());
    assertEquals("t.yaml:8:11", map.at("/volumes/0/path").toString());
    assertEquals("t.yaml:7:12", map.at("/volumes/0/claim").toString());
  }

  @Test
  @DisplayName("a file over 1 MiB is FILE_TOO_LARGE with its size in the message")
  void tooLarge(@TempDir Path dir) throws Exception {
    Path big = dir.resolve("train.yaml");
    Files.writeString(big, "run: x\n" + "# padding\n".repeat(157_287));
    Diagnostic d = only(YamlDocumentLoader.readFile(big, "train.yaml"));
    assertDiagnostic(
        d,
        DiagnosticCode.FILE_TOO_LARGE,
        0,
        0,
        "the file is 1.5 MiB (1572877 bytes); the limit is 1 MiB (1048576 bytes)",
        "a train.yaml holds a few fields; keep data and generated content in other files");
  }

  @Test
  @DisplayName("invalid UTF-8 is NOT_UTF8 at the bad byte's line and column")
  void notUtf8(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("train.yaml");
    Files.write(
        file, new byte[] {'r', 'u', 'n', ':', ' ', 'x', '\n', 'a', ':', ' ', (byte) 0xFF, '\n'});
    Diagnostic d = only(YamlDocumentLoader.readFile(file, "train.yaml"));
    assertDiagnostic(
        d,
        DiagnosticCode.NOT_UTF8,
        2,
        4,
        "the file is not valid UTF-8: byte 0xFF at offset 10",
        "save the file as UTF-8 (most editors: \"Save with encoding\" → UTF-8)");
  }

  @Test
  @DisplayName("a missing file is FILE_UNREADABLE, never an exception")
  void missingFile(@TempDir Path dir) {
    Diagnostic d = only(YamlDocumentLoader.readFile(dir.resolve("nope.yaml"), "nope.yaml"));
    assertDiagnostic(
        d,
        DiagnosticCode.FILE_UNREADABLE,
        0,
        0,
        "cannot read the file: no such file",
        "check the path and its permissions");
  }
}
