package dev.trainyard.gitops.preview;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Markdown details: escaping of repository text, field lines, line diffs of multi-line values, wrapping. */
class MarkdownTest {
  @Test
  @DisplayName("text from repositories cannot break out of code spans, table cells, summaries or fences")
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
    assertEquals(List.of("@@ spec.x @@", "- 2", "+ 4"), MarkdownChanges.field(new FieldChange("spec.x", Optional.of("2"), Optional.of("4"), false)));
    assertEquals(List.of("@@ spec.y @@", "+ a"), MarkdownChanges.field(new FieldChange("spec.y", Optional.empty(), Optional.of("a"), false)));
    assertEquals(List.of("@@ data.k (Secret data, changed) @@", "- *** (before)", "+ *** (after)"),
        MarkdownChanges.field(new FieldChange("data.k", Optional.of(SecretMask.BEFORE), Optional.of(SecretMask.AFTER), true)));
  }

  @Test
  @DisplayName("a multi-line value shows a line diff, unchanged lines as context")
  void multiLine() {
    FieldChange f = new FieldChange("data.launch", Optional.of("a\nmpirun -np 16\nc\n"), Optional.of("a\nmpirun -np 32\nc\nd\n"), false);
    assertEquals(List.of("@@ data.launch @@", "  a", "- mpirun -np 16", "+ mpirun -np 32", "  c", "+ d"), MarkdownChanges.field(f));
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
    assertEquals(List.of(" a", "-b", "+c", " d"), LineDiff.of(List.of("a", "b", "d"), List.of("a", "c", "d")));
    assertEquals(List.of("+x"), LineDiff.of(List.of(), List.of("x")));
  }
}
