package dev.trainyard.gitops.preview;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.gitops.RunFolder;
import java.math.BigDecimal;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Markdown details: escaping of repository text, field lines, line diffs of multi-line values,
 * wrapping.
 */
class MarkdownTest {
  @Test
  @DisplayName(
      "text from repositories cannot break out of code spans, table cells, summaries or fences")
  void escaping() {
    assertEquals("``a`b``", Md.code("a`b"));
    assertEquals("`` `x ``", Md.code("`x"));
    assertEquals("a\\|b c", Md.cell("a|b\nc"));
    assertEquals("&lt;/details&gt; &amp;", Md.html("</details> &"));
    assertEquals("````", Md.fence(List.of("```yaml", "x")));
    assertEquals("```", Md.fence(List.of("x")));
  }

  @Test
  @DisplayName("a changed scalar is @@ path @@ then - old and + new; an added field only +")
  void scalarField() {
    assertEquals(
        List.of("@@ spec.x @@", "- 2", "+ 4"),
        MarkdownChanges.field(
            new FieldChange("spec.x", Optional.of("2"), Optional.of("4"), false)));
    assertEquals(
        List.of("@@ spec.y @@", "+ a"),
        MarkdownChanges.field(
            new FieldChange("spec.y", Optional.empty(), Optional.of("a"), false)));
    assertEquals(
        List.of("@@ data.k (Secret data, changed) @@", "- *** (before)", "+ *** (after)"),
        MarkdownChanges.field(
            new FieldChange(
                "data.k", Optional.of(SecretMask.BEFORE), Optional.of(SecretMask.AFTER), true)));
  }

  @Test
  @DisplayName("a multi-line value shows a line diff, unchanged lines as context")
  void multiLine() {
    FieldChange f =
        new FieldChange(
            "data.launch",
            Optional.of("a\nmpirun -np 16\nc\n"),
            Optional.of("a\nmpirun -np 32\nc\nd\n"),
            false);
    assertEquals(
        List.of("@@ data.launch @@", "  a", "- mpirun -np 16", "+ mpirun -np 32", "  c", "+ d"),
        MarkdownChanges.field(f));
  }

  @Test
  @DisplayName("a line longer than 1,000 characters is cut into pieces, nothing dropped")
  void wrap() {
    String line = "x".repeat(2_500);
    List<String> out = MarkdownChanges.wrap(List.of(line), "+ ");
    assertEquals(List.of(1_002, 1_002, 502), out.stream().map(String::length).toList());
    assertEquals(line, String.join("", out).replace("+ ", ""));
  }

  @Test
  @DisplayName("LineDiff keeps common lines and marks the rest")
  void lineDiff() {
    assertEquals(
        List.of(" a", "-b", "+c", " d"),
        LineDiff.of(List.of("a", "b", "d"), List.of("a", "c", "d")));
    assertEquals(List.of("+x"), LineDiff.of(List.of(), List.of("x")));
  }

  @Test
  @DisplayName(
      "LineDiff: lines added first, removed last, removed before common ones; removals before additions")
  void lineDiffEdges() {
    assertEquals(List.of("+n", " c"), LineDiff.of(List.of("c"), List.of("n", "c")));
    assertEquals(List.of(" a", "-x"), LineDiff.of(List.of("a", "x"), List.of("a")));
    assertEquals(List.of("-x", " c", " d"), LineDiff.of(List.of("x", "c", "d"), List.of("c", "d")));
    assertEquals(List.of("-x", "+y"), LineDiff.of(List.of("x"), List.of("y")));
  }

  @Test
  @DisplayName(
      "LineDiff of values past a million line pairs: the old value removed whole, then the new one added, nothing lost")
  void lineDiffTooBig() {
    List<String> a = IntStream.range(0, 1_001).mapToObj(i -> "l" + i).toList();
    List<String> b = IntStream.range(0, 1_000).mapToObj(i -> "l" + i).toList();
    List<String> out = LineDiff.of(a, b);
    assertEquals(2_001, out.size());
    assertEquals(
        List.of("-l0", "-l1000", "+l0", "+l999"),
        List.of(out.get(0), out.get(1_000), out.get(1_001), out.get(2_000)));
    List<String> square = LineDiff.of(b, b.subList(0, 999));
    assertEquals(1_000, square.size(), "1,000 × 999 lines still get a real diff");
    assertEquals("-l999", square.get(999));
  }

  @Test
  @DisplayName(
      "a value that turns multi-line, or stops being one, is shown as a line diff; a line of exactly 1,000 characters is not cut")
  void multiLineEitherSide() {
    assertEquals(
        List.of("@@ k @@", "- one", "+ two", "+ three"),
        MarkdownChanges.field(
            new FieldChange("k", Optional.of("one"), Optional.of("two\nthree\n"), false)));
    assertEquals(
        List.of("@@ k @@", "- one", "- two", "+ three"),
        MarkdownChanges.field(
            new FieldChange("k", Optional.of("one\ntwo\n"), Optional.of("three"), false)));
    assertEquals(
        List.of("@@ k @@", "- x"),
        MarkdownChanges.field(new FieldChange("k", Optional.of("x"), Optional.empty(), false)));
    String exact = "y".repeat(MarkdownChanges.WRAP);
    assertEquals(List.of("+ " + exact), MarkdownChanges.wrap(List.of(exact), "+ "));
    assertEquals(List.of("+ " + exact, "+ y"), MarkdownChanges.wrap(List.of(exact + "y"), "+ "));
  }

  @Test
  @DisplayName(
      "a code span of text ending in a backtick is padded; quantities: memory and storage in Gi, zero as 0")
  void spansAndQuantities() {
    assertEquals("`` x` ``", Md.code("x`"));
    assertEquals("`x`", Md.code("x"));
    assertEquals("1.5Gi", Quantity.show("ephemeral-storage", BigDecimal.valueOf(3L << 29)));
    assertEquals("2Gi", Quantity.show("memory", BigDecimal.valueOf(2L << 30)));
    assertEquals(
        "32767Mi",
        Quantity.show("memory", BigDecimal.valueOf(32767L << 20)),
        "never rounded to 32Gi, which a 32Gi request does not fit");
    assertEquals("1023Ki", Quantity.show("memory", BigDecimal.valueOf(1023L << 10)));
    assertEquals("1000", Quantity.show("memory", BigDecimal.valueOf(1000)));
    assertEquals("0Gi", Quantity.show("memory", BigDecimal.ZERO));
    assertEquals("2048", Quantity.show("cpu", new BigDecimal("2048.000")));
    assertEquals("0", Quantity.plain(new BigDecimal("0.00")));
  }

  @Test
  @DisplayName(
      "the Changes section: absent when nothing changed; an unreadable file named without content; a first run of an unknown train.yaml")
  void changesSection() {
    Preview empty = Preview.unchanged(Preview.Mode.GITOPS, "b", "h", "Nothing.");
    assertEquals(List.of(), MarkdownChanges.of(empty));
    RunFolder folder = new RunFolder("c", "ns", "r-1");
    ObjectChange broken =
        new ObjectChange(
            "extra.yaml",
            "?",
            "extra.yaml",
            ObjectChange.Status.CHANGED,
            ObjectChange.SecretForm.UNKNOWN,
            false,
            List.of(),
            Optional.empty(),
            true);
    RunChange run =
        new RunChange(
            RunChange.Status.ADDED,
            folder,
            Optional.empty(),
            Optional.of(RunFacts.unknown(folder)),
            Optional.empty(),
            List.of(broken));
    String md =
        MarkdownPreview.whole(
            new Preview(
                Preview.Mode.GITOPS,
                "b",
                "h",
                List.of(run),
                List.of(),
                List.of(),
                List.of(),
                List.of(),
                List.of(),
                "",
                Optional.empty()));
    assertTrue(md.contains("New run in `clusters/c/ns/r-1/`: the first of `its train.yaml`."), md);
    assertTrue(
        md.contains(
            "- `extra.yaml` changed: not a readable YAML object, so its content is not shown (it may hold Secret data)"),
        md);
  }

  @Test
  @DisplayName(
      "an empty value is a value: \"\" → x shows - (empty) and + x, not a line diff that drops the empty side")
  void emptyValue() {
    assertEquals(
        List.of("@@ k @@", "- ", "+ x"),
        MarkdownChanges.field(new FieldChange("k", Optional.of(""), Optional.of("x"), false)));
    assertEquals(
        List.of("@@ k @@", "- x", "+ "),
        MarkdownChanges.field(new FieldChange("k", Optional.of("x"), Optional.of(""), false)));
  }

  @Test
  @DisplayName(
      "blank lines of a multi-line value stay in its line diff; a line of exactly twice 1,000 characters is two pieces")
  void blankLinesAndExactPieces() {
    assertEquals(
        List.of("@@ data.s @@", "  a", "  ", "- b", "+ c"),
        MarkdownChanges.field(
            new FieldChange("data.s", Optional.of("a\n\nb\n"), Optional.of("a\n\nc\n"), false)));
    String two = "z".repeat(2 * MarkdownChanges.WRAP);
    assertEquals(
        List.of(
            "+ " + two.substring(0, MarkdownChanges.WRAP),
            "+ " + two.substring(MarkdownChanges.WRAP)),
        MarkdownChanges.wrap(List.of(two), "+ "));
  }
}
