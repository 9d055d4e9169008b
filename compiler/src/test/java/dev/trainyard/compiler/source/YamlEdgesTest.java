package dev.trainyard.compiler.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.testing.Wording;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The load stage's less common inputs, each checked as the whole diagnostic ({@code file:line:col
 * code message | hint}): the syntax-error table, nesting and size limits, top levels that are not
 * mappings, special files, and the source map's fallbacks.
 */
class YamlEdgesTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  private static final String INDENT_HINT =
      "keys of one mapping must start in the same column; indent nested"
          + " fields by 2 spaces more than their parent";
  private final YamlDocumentLoader loader = new YamlDocumentLoader();

  private List<String> load(String yaml) {
    StageResult<ParsedDocument> result = loader.load(new SourceFile("t.yaml", yaml));
    assertEquals(result.failed(), result.value().isEmpty());
    return result.diagnostics().stream().map(YamlEdgesTest::line).toList();
  }

  private static String line(Diagnostic d) {
    return d.location() + " " + d.code().id() + " " + d.message() + " | " + d.hint();
  }

  @Test
  @DisplayName("indentation mistakes: a key without `:`, and a key left of its siblings")
  void indentation() {
    assertEquals(
        List.of("t.yaml:3:1 E101 expected `key: value` here | " + INDENT_HINT),
        load("run: x\nnodes 2\n"));
    assertEquals(
        List.of(
            "t.yaml:4:2 E101 this line's indentation does not match the lines above it | "
                + INDENT_HINT),
        load("run: x\nenv:\n  A: 1\n B: 2\n"));
    assertEquals(
        List.of(
            "t.yaml:3:2 E101 this line's indentation does not match the lines above it | "
                + INDENT_HINT),
        load("a:\n  - b\n - c\n"));
  }

  @Test
  @DisplayName(
      "an unclosed `{` and an unclosed quote are reported where they open, not at the end of the file")
  void unclosedAtOpening() {
    assertEquals(
        List.of(
            "t.yaml:2:6 E101 mapping opened with `{` is not closed | close the mapping with `}`, and"
                + " separate fields with `,`"),
        load("run: x\nenv: {A: 1\n"));
    assertEquals(
        List.of("t.yaml:1:6 E101 quoted string is not closed | add the closing quote"),
        load("run: \"abc\n\nnodes: 2\n"));
  }

  @Test
  @DisplayName(
      "a bad escape, a reserved first character and a complex key each get their own words")
  void otherSyntaxRules() {
    assertEquals(
        List.of(
            "t.yaml:1:9 E101 unknown escape sequence in a double-quoted string | use single quotes for"
                + " text with backslashes (`'C:\\dir'`), or write `\\\\` for one backslash"),
        load("run: \"a\\qb\"\n"));
    assertEquals(
        List.of(
            "t.yaml:1:6 E101 this character cannot start a YAML value | quote the value: `key:"
                + " \"@value\"`; `@` and `` ` `` are reserved in YAML"),
        load("run: @x\n"));
    assertEquals(
        List.of(
            "t.yaml:1:4 E101 a key must be plain text, not a list or mapping | write keys as `name:`;"
                + " `? ` complex keys are not supported"),
        load("? [a]\n: 1\n"));
  }

  @Test
  @DisplayName(
      "problems outside the table are quoted from the parser: first line, lower-case, without decorations")
  void unknownProblemsQuoted() {
    assertEquals(
        List.of(
            "t.yaml:2:4 E101 invalid YAML: expected the node content, but found ']' | check the YAML"
                + " syntax at this position (indentation, quotes, `:` after keys)"),
        load("run: x\nk: ]\n"));
    assertEquals(
        List.of(
            "t.yaml:2:1 E101 invalid YAML: duplicate tag handle ! | check the YAML syntax at this"
                + " position (indentation, quotes, `:` after keys)"),
        load("%TAG ! x\n%TAG ! y\n--- a\n"));
    assertEquals(
        List.of(
            "t.yaml:2:17 E101 invalid YAML: unexpected end of base64-encoded String: base64 variant"
                + " 'MIME' expects padding | check the YAML syntax at this position"),
        load("run: x\nk: !!binary 'zz'\n"));
  }

  @Test
  @DisplayName(
      "translation fallbacks: no problem text is `unreadable content`; Jackson's text loses its decorations")
  void translationFallbacks() {
    YamlSyntaxMessages.Translation none = YamlSyntaxMessages.translate(null);
    WORDING.approve(none.message());
    assertEquals(false, none.atOpening());
    WORDING.approve(YamlSyntaxMessages.translateJackson(null).message());
    WORDING.approve(YamlSyntaxMessages.translateJackson("Odd thing (at x)\nmore").message());
    WORDING.approve(YamlSyntaxMessages.translate("(x)").message());
    assertEquals(true, YamlSyntaxMessages.translate("found unexpected end of stream").atOpening());
    assertEquals(
        false, YamlSyntaxMessages.translate("mapping values are not allowed here").atOpening());
  }

  @Test
  @DisplayName("100 levels of nesting load; 101 are refused where the parser stopped, with a hint")
  void nestingLimit() {
    assertEquals(List.of(), load("a: " + "[".repeat(99) + "]".repeat(99) + "\n"));
    assertEquals(
        List.of(
            "t.yaml:1:104 E101 the document nests deeper than 100 levels | flatten the structure; a"
                + " train.yaml needs at most 3 levels"),
        load("a: " + "[".repeat(101) + "]".repeat(101) + "\n"));
  }

  @Test
  @DisplayName("a line of 16,384 characters loads; one more is E111 at that line")
  void lineLimit() {
    assertEquals(List.of(), load("run: x\nk: " + "a".repeat(16_384 - 3) + "\n"));
    assertEquals(
        List.of(
            "t.yaml:2:1 E111 line 2 is 16,385 characters long; the limit is 16,384 | split the value over"
                + " several lines (a `|` block scalar keeps the line breaks), or keep large data out of this file"),
        load("run: x\nk: " + "a".repeat(16_384 - 2) + "\n"));
    assertEquals(
        List.of(
            "t.yaml:1:1 E111 line 1 is 16,385 characters long; the limit is 16,384 | split the value over"
                + " several lines (a `|` block scalar keeps the line breaks), or keep large data out of this file"),
        load("k: " + "a".repeat(16_384 - 2)));
  }

  @Test
  @DisplayName(
      "more than 2 Mi code points in short lines is `too large to parse`, at the token it was reading")
  void codePointLimit() {
    // Comment lines: the parser counts their code points but builds no tokens, so the test stays
    // fast.
    assertEquals(
        List.of(
            "t.yaml:1:7 E101 document is too large to parse | split the file, or remove generated"
                + " content from it"),
        load("run: x\n" + ("#" + "c".repeat(99) + "\n").repeat(21_000) + "a: b\n"));
  }

  @Test
  @DisplayName("a null or plain-value top level is NOT_A_MAPPING naming what it is")
  void notAMapping() {
    String hint =
        " | start each field at column 1, e.g. `run: python train.py`; a leading `- ` makes the file a list";
    assertEquals(
        List.of(
            "t.yaml:1:1 E107 the top level must be a mapping of fields (`key: value` lines), got null"
                + hint),
        load("~\n"));
    assertEquals(
        List.of(
            "t.yaml:1:1 E107 the top level must be a mapping of fields (`key: value` lines), got the"
                + " plain value `hello`"
                + hint),
        load("hello\n"));
  }

  @Test
  @DisplayName("anchors are counted: the first is named and the others are `N more`")
  void anchorsCounted() {
    List<String> all = load("run: x\na: &x 1\nb: &y 2\nc: *x\n");
    assertEquals(1, all.size(), all::toString);
    assertTrue(
        all.get(0)
            .startsWith(
                "t.yaml:2:4 E104 YAML anchors and aliases are not supported: found anchor `&x`"
                    + " (and 2 more anchors or aliases) | "),
        all.get(0));
  }

  @Test
  @DisplayName(
      "a duplicate key in a nested mapping is found, with a mapping value skipped, and loading goes on")
  void nestedDuplicate() {
    assertEquals(
        List.of(
            "t.yaml:4:3 E103 `b` is defined twice; the first one is at line 3 | delete one of the two"
                + " `b:` lines (YAML keeps only one of them, silently)",
            "t.yaml:7:1 E103 `c` is defined twice; the first one is at line 6 | delete one of the two `c:` lines (YAML"
                + " keeps only one of them, silently)"),
        load("run: x\na:\n  b: 1\n  b:\n    deep: [1, 2]\nc: 1\nc: 2\n"));
  }

  @Test
  @DisplayName(
      "integers too big for a long are big integers; floats are doubles; all keep their text as written")
  void numberTypes() {
    ParsedDocument doc =
        loader
            .load(
                new SourceFile(
                    "t.yaml", "big: 123456789012345678901234\nf: 1.50\nn: ~\nt: 'text'\n"))
            .value()
            .orElseThrow();
    assertTrue(doc.root().get("big").isBigInteger());
    assertEquals("123456789012345678901234", doc.root().get("big").bigIntegerValue().toString());
    assertEquals(1.5, doc.root().get("f").doubleValue());
    assertEquals("1.50", doc.map().scalarText("/f").orElseThrow());
    assertEquals("~", doc.map().scalarText("/n").orElseThrow());
    assertTrue(doc.map().scalarText("/t").isEmpty());
  }

  @Test
  @DisplayName("the source map falls back to the nearest located ancestor, then to the file")
  void sourceMapFallbacks() {
    SourceMap map =
        loader
            .load(new SourceFile("t.yaml", "run: x\nres:\n  gpus: 2\nlist:\n  - a\n"))
            .value()
            .orElseThrow()
            .map();
    assertEquals("t.yaml:3:9", map.at("/res/gpus/deeper/still").toString());
    assertEquals("t.yaml:1:1", map.at("/absent").toString());
    assertEquals("t.yaml:5:5", map.keyAt("/list/0").toString());
    assertEquals("t.yaml:4:1", map.keyAt("/list").toString());
    assertEquals("t.yaml", map.file());
    SourceMap empty = SourceMap.empty("f.yaml");
    assertEquals(SourceLocation.ofFile("f.yaml"), empty.at("/a/b"));
    assertEquals(SourceLocation.ofFile("f.yaml"), empty.keyAt("/a"));
    SourceMap flat =
        new SourceMap("g.yaml", Map.of("/a", new SourceLocation("g.yaml", 2, 3)), Map.of());
    assertEquals("g.yaml:2:3", flat.at("/a/b").toString());
    assertEquals(SourceLocation.ofFile("g.yaml"), flat.at("/c"));
    assertEquals("/env/a~0b~1c", SourceMap.child("/env", "a~b/c"));
    assertEquals("/volumes/3", SourceMap.child("/volumes", 3));
  }

  @Test
  @DisplayName(
      "tabs: block scalar content deeper than its key (blank lines too) is text; the next key is not")
  void tabsAroundBlockScalars() {
    String yaml = "run: |2+ # keep\n  a\n\n  \tb\nsetup: >-\n    \tc\n\tnodes: 2\n";
    assertEquals(
        List.of(
            "t.yaml:7:1 E102 tab character in indentation | YAML indents with spaces only: replace the"
                + " tab with spaces (2 per level)"),
        load(yaml));
    assertEquals(
        List.of(
            "t.yaml:3:3 E102 tab character in indentation | YAML indents with spaces only: replace the"
                + " tab with spaces (2 per level)"),
        load("run: x\nenv:\n  \tA: 1\n"));
    assertEquals(
        List.of(
            "t.yaml:2:1 E102 tab character in indentation | YAML indents with spaces only: replace the"
                + " tab with spaces (2 per level)"),
        load("run: |\n\tx\n"));
  }

  @Test
  @DisplayName(
      "a tab after `key:` or `- ` is not indentation: it is named as a tab where YAML expects a space, at the tab")
  void tabAfterText() {
    String said =
        " E102 tab character where YAML expects a space | YAML separates `key:` or `-` from what"
            + " follows with spaces, not tabs: replace the tab with a space";
    assertEquals(List.of("t.yaml:1:5" + said), load("run:\ttorchrun t.py\n"));
    assertEquals(List.of("t.yaml:3:5" + said), load("run: x\nenv:\n  a:\t1\n"));
    assertEquals(
        List.of(
            "t.yaml:2:1 E102 tab character in indentation | YAML indents with spaces only: replace the"
                + " tab with spaces (2 per level)"),
        load("run: x\n\t nodes: 2\n"),
        "blanks before the tab are still indentation");
  }

  @Test
  @DisplayName(
      "a file of exactly 1 MiB is read; a directory and a FIFO are FILE_UNREADABLE, never read")
  void specialFiles(@TempDir Path dir) throws Exception {
    Path exact = dir.resolve("exact.yaml");
    String head = "run: x\n";
    Files.writeString(
        exact,
        head + "#".repeat((int) YamlDocumentLoader.MAX_FILE_BYTES - head.length() - 1) + "\n");
    assertEquals(YamlDocumentLoader.MAX_FILE_BYTES, Files.size(exact));
    StageResult<SourceFile> read = YamlDocumentLoader.readFile(exact, "exact.yaml");
    assertEquals(List.of(), read.diagnostics());
    assertTrue(read.value().orElseThrow().text().startsWith(head));

    StageResult<SourceFile> folder = YamlDocumentLoader.readFile(dir, "dir");
    assertEquals(
        List.of(
            "dir E108 cannot read the file: it is a directory | check the path and its permissions"),
        folder.diagnostics().stream().map(YamlEdgesTest::line).toList());

    Path fifo = dir.resolve("t.fifo");
    Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
    assertTrue(mkfifo.waitFor(10, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo failed");
    StageResult<SourceFile> pipe = YamlDocumentLoader.readFile(fifo, "t.fifo");
    assertEquals(
        List.of("t.fifo E108 t.fifo is not a regular file | pass the path of a YAML file"),
        pipe.diagnostics().stream().map(YamlEdgesTest::line).toList());
  }

  @Test
  @DisplayName("a bad byte on line 3 is located by line and byte column after the last newline")
  void badByteLocated() {
    byte[] bytes = {
      'a', ':', ' ', '1', '\n', 'b', ':', ' ', '2', '\n', 'c', ':', ' ', 'x', (byte) 0xC3, '\n'
    };
    Utf8Text.BadByte bad = Utf8Text.firstBadByte(bytes).orElseThrow();
    assertEquals(new Utf8Text.BadByte(14, 3, 5, 0xC3), bad);
    assertTrue(Utf8Text.firstBadByte("ü\n".getBytes(StandardCharsets.UTF_8)).isEmpty());
  }
}
