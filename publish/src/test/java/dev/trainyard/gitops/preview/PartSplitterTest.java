package dev.trainyard.gitops.preview;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Splitting Markdown into comment-sized parts: limits, markers, blocks closed and reopened, nothing
 * lost.
 */
class PartSplitterTest {
  private static List<String> lines(String prefix, int n, int width) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(String.format("%s %04d %s", prefix, i, "x".repeat(width)));
    }
    return out;
  }

  private static List<Block> blocks() {
    List<Block> blocks = new ArrayList<>();
    blocks.add(Block.text(List.of("## title", "")));
    blocks.add(
        new Block(
            List.of("| a | b |", "|---|---|"),
            lines("| row |", 60, 40),
            List.of(""),
            List.of("| a | b |", "|---|---|")));
    blocks.add(
        MarkdownPreview.fenced(
            lines("+ line", 200, 60), "diff", Optional.of("JobSet ns/big: 200 fields changed")));
    blocks.add(
        MarkdownPreview.fenced(lines("+ small", 3, 10), "diff", Optional.of("ConfigMap ns/small")));
    return blocks;
  }

  @Test
  @DisplayName(
      "every part fits the limit, and a block too big for one part is closed and reopened: no <details> or fence left open")
  void partsAreValidAlone() {
    List<String> parts = PartSplitter.split(blocks(), 4_000);
    assertTrue(parts.size() > 4, "split into " + parts.size());
    for (String part : parts) {
      assertTrue(part.getBytes(StandardCharsets.UTF_8).length <= 4_000, part.length() + " bytes");
      assertEquals(
          PreviewGoldenTest.count(part, "<details>"),
          PreviewGoldenTest.count(part, "</details>"),
          part);
      long fences = part.lines().filter(l -> l.startsWith("```")).count();
      assertEquals(0, fences % 2, "fences balanced in\n" + part);
    }
    assertTrue(
        parts
            .get(2)
            .contains("<details><summary>JobSet ns/big: 200 fields changed (continued)</summary>"),
        parts.get(2));
  }

  @Test
  @DisplayName("the parts hold every line of the whole, in order; a split table repeats its header")
  void nothingLost() {
    List<Block> blocks = blocks();
    List<String> whole = new ArrayList<>();
    blocks.forEach(b -> whole.addAll(b.lines()));
    List<String> parts = PartSplitter.split(blocks, 2_000);
    PreviewGoldenTest.assertContainsInOrder(whole, String.join("", parts).lines().toList());
    String second = parts.get(1);
    assertTrue(second.contains("| a | b |\n|---|---|\n| row | 00"), second);
  }

  @Test
  @DisplayName(
      "each part starts with <!-- trainyard-preview part N/M -->; part N carries part N; part 1 also <!-- trainyard-preview -->")
  void markers() {
    List<String> parts = PartSplitter.split(blocks(), 4_000);
    int m = parts.size();
    for (int n = 1; n <= m; n++) {
      String part = parts.get(n - 1);
      assertTrue(part.startsWith("<!-- trainyard-preview part " + n + "/" + m + " -->\n"), part);
      assertTrue(part.contains("<!-- trainyard-preview part " + n + " -->"));
      assertEquals(n == 1, part.contains("<!-- trainyard-preview -->"), "part " + n);
      assertEquals(n < m, part.contains("_Continued in part " + (n + 1) + " of " + m + "._"));
    }
  }

  @Test
  @DisplayName("a preview that fits is one part, 1/1, with the single-comment marker")
  void onePart() {
    List<String> parts =
        PartSplitter.split(List.of(Block.text(List.of("## small", ""))), PartSplitter.GITHUB_LIMIT);
    assertEquals(
        List.of(
            "<!-- trainyard-preview part 1/1 -->\n<!-- trainyard-preview part 1 --><!-- trainyard-preview -->\n## small\n\n"),
        parts);
  }

  @Test
  @DisplayName("sizes are counted in UTF-8 bytes, never fewer than characters")
  void utf8() {
    List<String> wide = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      wide.add("→ × — é " + i);
    }
    for (String part : PartSplitter.split(List.of(Block.text(wide)), 2_000)) {
      assertTrue(part.getBytes(StandardCharsets.UTF_8).length <= 2_000);
    }
  }

  @Test
  @DisplayName("a part size below 2,000 is refused")
  void tooSmall() {
    assertThrows(IllegalArgumentException.class, () -> PartSplitter.split(blocks(), 1_999));
  }

  @Test
  @DisplayName(
      "long multibyte lines (4-byte emoji, 3-byte CJK) never push a part over --part-size: they are cut on code points, fences kept closed")
  void multibyteLines() {
    String emoji = "\uD83D\uDE80".repeat(1_000);
    String cjk = "\u8BAD".repeat(1_000);
    List<Block> blocks =
        List.of(
            Block.text(List.of("# title", "")),
            MarkdownPreview.fenced(
                List.of(emoji, "short", cjk), "yaml", Optional.of("ConfigMap c: new")),
            Block.text(List.of(cjk, "")));
    List<String> parts = PartSplitter.split(blocks, 2_000);
    StringBuilder all = new StringBuilder();
    for (String part : parts) {
      assertTrue(
          part.getBytes(StandardCharsets.UTF_8).length <= 2_000,
          part.getBytes(StandardCharsets.UTF_8).length + " bytes");
      assertEquals(part.split("<details>", -1).length, part.split("</details>", -1).length, part);
      assertEquals(0, part.split("```", -1).length % 2 == 1 ? 0 : 1, "fences balanced: " + part);
      assertTrue(!part.contains("\uFFFD"), "no code point cut in half");
      all.append(
          part.replaceAll(
                  "(?m)^<!--.*-->$|^## Trainyard preview.*$|^_Continued.*_$|^```.*$|^<details>.*$|^</details>$",
                  "")
              .replace("\n", ""));
    }
    String joined = all.toString();
    assertEquals(
        2,
        joined.split(Pattern.quote(cjk), -1).length - 1,
        "each long line is in the parts whole, in order");
    assertTrue(joined.contains(emoji + "short" + cjk), "nothing lost or reordered");
    assertTrue(parts.size() > 3);
  }

  @Test
  @DisplayName("cut keeps short lines and cuts only over-long ones into pieces that fit")
  void cut() {
    assertEquals(List.of("ab", "cd"), PartSplitter.cut(List.of("ab", "cd"), 100));
    List<String> pieces = PartSplitter.cut(List.of("\u00e9".repeat(100)), 65);
    assertEquals(
        List.of("\u00e9".repeat(32), "\u00e9".repeat(32), "\u00e9".repeat(32), "\u00e9".repeat(4)),
        pieces);
  }

  @Test
  @DisplayName(
      "output that fits one comment is one part, up to the last byte of the limit; one byte more and it is split into parts that each fit")
  void splitOnlyWhenOver() {
    int limit = 10_000;
    int markers = PartSplitter.split(List.of(), limit).get(0).length();
    List<String> lines = new ArrayList<>(lines("line", 90, 89));
    int used = PartSplitter.size(lines);
    lines.add("y".repeat(limit - markers - used - 1));
    List<String> exact = PartSplitter.split(List.of(Block.text(lines)), limit);
    assertEquals(1, exact.size());
    assertEquals(limit, exact.get(0).getBytes(StandardCharsets.UTF_8).length);
    lines.set(lines.size() - 1, lines.get(lines.size() - 1) + "y");
    List<String> over = PartSplitter.split(List.of(Block.text(lines)), limit);
    assertEquals(2, over.size());
    for (String part : over) {
      assertTrue(part.getBytes(StandardCharsets.UTF_8).length <= limit, part.length() + " bytes");
    }
    PreviewGoldenTest.assertContainsInOrder(lines, String.join("", over).lines().toList());
  }

  /** One line of {@code bytes} UTF-8 bytes with its newline: {@code c} repeated. */
  private static String line(char c, int bytes) {
    return String.valueOf(c).repeat(bytes - 1);
  }

  /** The lengths of the lines of {@code part} that are {@code c} repeated, in order. */
  private static List<Integer> runs(String part, char c) {
    return part.lines()
        .filter(l -> !l.isEmpty() && l.chars().allMatch(x -> x == c))
        .map(String::length)
        .toList();
  }

  @Test
  @DisplayName(
      "packing at the budget's edge (2,000 - 400 reserved = 1,600 bytes): blocks that fill it exactly share a part; a block of exactly 1,600 starts a new part whole")
  void packsToTheByte() {
    String a = line('a', 800);
    String b = line('b', 800);
    String c = line('c', 800);
    List<String> three =
        PartSplitter.split(
            List.of(Block.text(List.of(a)), Block.text(List.of(b)), Block.text(List.of(c))), 2_000);
    assertEquals(2, three.size(), three.toString());
    assertTrue(three.get(0).contains(a + "\n" + b + "\n"), three.get(0));
    assertEquals(List.of(799), runs(three.get(1), 'c'));
    assertEquals(List.of(), runs(three.get(1), 'a'));

    List<String> whole =
        PartSplitter.split(
            List.of(
                Block.text(List.of(line('s', 100))),
                Block.text(List.of(b, line('d', 800))),
                Block.text(List.of(line('e', 300)))),
            2_000);
    assertEquals(3, whole.size(), whole.toString());
    assertEquals(List.of(), runs(whole.get(0), 'b'), "the 1,600-byte block is not split");
    assertEquals(List.of(799), runs(whole.get(1), 'b'));
    assertEquals(List.of(799), runs(whole.get(1), 'd'));
    assertEquals(List.of(299), runs(whole.get(2), 'e'));
  }

  @Test
  @DisplayName(
      "a block too big for a part starts in the current one only when its head, first line and tail fit there, to the byte")
  void bigBlockStartsWhereItsFirstLineFits() {
    String head = line('h', 100);
    String tail = line('t', 100);
    for (int first : List.of(1_300, 1_301)) {
      Block big =
          new Block(
              List.of(head),
              List.of(line('f', first), line('g', 800)),
              List.of(tail),
              List.of(head));
      List<String> parts =
          PartSplitter.split(List.of(Block.text(List.of(line('s', 100))), big), 2_000);
      boolean fits = first == 1_300; // 100 + 100 + first + 100 == 1,600 bytes
      assertEquals(
          fits ? List.of(first - 1) : List.of(), runs(parts.get(0), 'f'), "first " + first);
      assertEquals(fits ? 2 : 3, parts.size(), parts.toString());
      for (String part : parts) {
        assertEquals(runs(part, 'h').size(), runs(part, 't').size(), "closed in its part: " + part);
      }
    }
  }

  @Test
  @DisplayName(
      "body lines fill a part to the byte with the tail still fitting; the next line reopens the block in a new part")
  void bodyFillsToTheByte() {
    Block big =
        new Block(
            List.of(line('h', 100)),
            List.of(line('x', 700), line('y', 700), line('z', 700)),
            List.of(line('t', 100)),
            List.of(line('r', 50)));
    List<String> parts = PartSplitter.split(List.of(big), 2_000);
    assertEquals(2, parts.size(), parts.toString());
    assertEquals(List.of(699), runs(parts.get(0), 'y'), "100 + 700 + 700 + 100 = 1,600 fits");
    assertEquals(List.of(699), runs(parts.get(1), 'z'));
    assertEquals(List.of(49), runs(parts.get(1), 'r'));
  }

  @Test
  @DisplayName(
      "a line too long for any part is cut to what a part holds beside the larger of head and reopen, and the tail")
  void longLineCutToTheRoom() {
    Block big =
        new Block(
            List.of(line('h', 100)),
            List.of("z".repeat(5_000)),
            List.of(line('t', 50)),
            List.of(line('r', 200)));
    List<String> parts = PartSplitter.split(List.of(big), 2_000);
    List<Integer> pieces = new ArrayList<>();
    parts.forEach(p -> pieces.addAll(runs(p, 'z')));
    // 1,600 - max(100, 200) - 50 = 1,350 bytes per line, newline included.
    assertEquals(List.of(1_349, 1_349, 1_349, 953), pieces);
    for (String part : parts) {
      assertTrue(part.getBytes(StandardCharsets.UTF_8).length <= 2_000, part.length() + " bytes");
    }
  }

  @Test
  @DisplayName(
      "a big block with no body (a head and a tail only) moves to a part of its own, whole")
  void bigBlockWithoutBody() {
    Block big =
        new Block(
            List.of(line('h', 800), line('i', 800)), List.of(), List.of(line('t', 100)), List.of());
    List<String> parts =
        PartSplitter.split(List.of(Block.text(List.of(line('s', 300))), big), 2_000);
    assertEquals(2, parts.size(), parts.toString());
    assertEquals(List.of(299), runs(parts.get(0), 's'));
    assertEquals(List.of(799), runs(parts.get(1), 'h'));
    assertEquals(List.of(799), runs(parts.get(1), 'i'));
    assertEquals(List.of(99), runs(parts.get(1), 't'));
  }
}
