package dev.trainyard.gitops.preview;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.manifest.YamlWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link BlockYaml} reads what Jackson's YAML mapper reads, or declines: compared on every golden
 * file, on random trees written by the compiler's {@link YamlWriter}, on tricky scalars, and on
 * damaged golden texts (where Jackson fails, the reader must decline).
 */
class BlockYamlTest {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /**
   * Jackson's reading of {@code text} when it is one document, else empty (unreadable, several).
   */
  private static Optional<JsonNode> jackson(String text) {
    return YamlTrees.anyDocuments(text).filter(d -> d.size() == 1).map(d -> d.get(0));
  }

  /**
   * When the reader accepts {@code text}, Jackson reads one document that is the same tree, keys in
   * the same order; returns whether it accepted.
   */
  private static boolean sameAsJackson(String text, String what) {
    Optional<JsonNode> fast = BlockYaml.read(text);
    if (fast.isEmpty()) {
      return false;
    }
    Optional<JsonNode> reference = jackson(text);
    assertTrue(reference.isPresent(), what + ": accepted what Jackson does not read:\n" + text);
    assertEquals(reference.get(), fast.get(), what + ":\n" + text);
    assertEquals(reference.get().toString(), fast.get().toString(), what + " (key order)");
    return true;
  }

  private static List<Path> goldenYaml() throws IOException {
    try (Stream<Path> files = Files.walk(Path.of("..", "golden"))) {
      return files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
    }
  }

  @Test
  @DisplayName(
      "every golden YAML file is read as Jackson reads it or declined, and every compiled manifest is read")
  void goldenFiles() throws IOException {
    int compiled = 0;
    for (Path file : goldenYaml()) {
      String text = Files.readString(file, StandardCharsets.UTF_8);
      boolean accepted = sameAsJackson(text, file.toString());
      if (file.toString().contains("expected")
          && text.startsWith("apiVersion:")
          && !text.contains("\n---")) {
        assertTrue(accepted, file + " is a compiled manifest and was declined");
        compiled++;
      }
    }
    assertTrue(compiled > 100, "only " + compiled + " compiled manifests among the goldens");
  }

  @Test
  @DisplayName(
      "20,000 random trees written by YamlWriter (quotes, colons, hashes, indicators, line feeds, long lines) are read as Jackson reads them")
  void randomTrees() {
    Random random = new Random(2026);
    int accepted = 0;
    for (int i = 0; i < 20_000; i++) {
      ObjectNode root = NODES.objectNode();
      int keys = 1 + random.nextInt(4);
      for (int k = 0; k < keys; k++) {
        root.set(key(random), tree(random, 1));
      }
      if (sameAsJackson(YamlWriter.write(root), "tree #" + i)) {
        accepted++;
      }
    }
    // Declined: trees holding floats, yes/no-like or octal-like plain words, empty values (null in
    // YAML is written "null"; an empty list item is not), CR, tabs.
    assertTrue(accepted > 14_000, "read only " + accepted + " of 20,000 trees");
  }

  @Test
  @DisplayName(
      "plain, quoted and literal scalars as values and list items: the same as Jackson or declined; ints, quantities, booleans and null read")
  void scalars() {
    List<String> values =
        List.of(
            "1Gi",
            "500m",
            "2",
            "-7",
            "0",
            "-0",
            "2147483647",
            "2147483648",
            "-2147483648",
            "-2147483649",
            "999999999999999999",
            "9223372036854775807",
            "true",
            "false",
            "null",
            "True",
            "yes",
            "no",
            "on",
            "~",
            "1.5",
            "1e4",
            "0x1F",
            "0755",
            "1_000",
            "1:30",
            "2026-01-01",
            ".inf",
            "<<",
            "=",
            "a b  c",
            "a:b",
            "a#b",
            "-x",
            "--flag",
            "'q'",
            "\"d\"",
            "\"a\\\"b\\\\c\\nd\"",
            "\"a\\tb\"",
            "'it''s'",
            "\"\"",
            "''",
            "{}",
            "[]",
            "/bin/sh",
            "http://x:80/y",
            "a, b",
            "x]",
            "x}",
            "@x",
            "%x",
            "`x`");
    int read = 0;
    for (String v : values) {
      read += sameAsJackson("k: " + v + "\n", v) ? 1 : 0;
      read += sameAsJackson("l:\n- " + v + "\n- x\n", "item " + v) ? 1 : 0;
      read += sameAsJackson("m:\n  n:\n  - " + v + "\nz: 1\n", "nested " + v) ? 1 : 0;
    }
    assertTrue(read > 90, "read only " + read + " of " + values.size() * 3);
    for (String v : List.of("1Gi", "2147483648", "true", "null", "-0", "'it''s'", "{}")) {
      assertTrue(BlockYaml.read("k: " + v + "\n").isPresent(), v);
    }
    assertEquals(
        NODES.objectNode().put("k", 2147483648L), BlockYaml.read("k: 2147483648\n").orElseThrow());
    assertEquals(NODES.objectNode().put("k", 7), BlockYaml.read("k: 7\n").orElseThrow());
  }

  @Test
  @DisplayName(
      "folded plain and quoted scalars, escaped line breaks and literal blocks with every header read as Jackson reads them")
  void multiLine() {
    List<String> texts =
        List.of(
            "k: a b\n  c d\n    e\nz: 1\n",
            "k: 'a b\n  c ''d'''\nz: 1\n",
            "k: \"a b\\\n  \\ c\\\n  d\"\nz: 1\n",
            "k: |\n  a\n\n   b\n  c\nz: 1\n",
            "k: |-\n  a\n  b\n\n\nz: 1\n",
            "k: |+\n  a\n  b\n\n\nz: 1\n",
            "k: |+\n  a\n\n",
            "k: |2\n   a\n  b\n",
            "k: |2-\n\n  a\n",
            "k: |-2\n\n  a\n",
            "k: |2+\n\n",
            "k: |\n  a\n      \n  b\n",
            "l:\n- |\n  a\n  b\n- - x\n  - |-\n    y\n- n: |\n    z\n  o: 1\n",
            "a:\n  b:\n  - c: 1\n    d:\n    - e\n  f: {}\ng: []\n",
            "<<: 1\n=: 2\n'- x': 3\n\"q\\\"\": 4\n?x: 5\n:y: 6\n-z: 7\n",
            "l:\n- 'a b': 1\n  \"c\": 2\n- \"d\\\n  e\"\n");
    for (String text : texts) {
      assertTrue(sameAsJackson(text, text), "declined:\n" + text);
    }
  }

  @Test
  @DisplayName(
      "declines anchors, aliases, comments, tags, flow collections, folded blocks, complex keys, empty values, duplicate keys, tabs, CR, unicode, several documents, a non-mapping root")
  void declines() {
    List<String> texts =
        List.of(
            "a: &x 1\nb: *x\n",
            "a: 1 # note\n",
            "# head\na: 1\n",
            "a: !!str 1\n",
            "a: [1, 2]\n",
            "a: {b: 1}\n",
            "a: >\n  folded\n",
            "? a\n: 1\n",
            "a:\nb: 1\n",
            "a:\n",
            "l:\n-\n- x\n",
            "a: 1\na: 2\n",
            "a:\tb\n",
            "a: b\r\n",
            "a: é\n",
            "a: 1\n---\nb: 2\n",
            "---\na: 1\n",
            "- a\n",
            "plain\n",
            "",
            "  a: 1\n",
            "a: 1\n  b: 2\n",
            "a: x\n\n  y\n",
            "a: \"x\n  y\"\n",
            "a: 'x \n  y'\n",
            "a: \"\\u00e9\"\n",
            "a: |\n\n  x\n",
            "a: | # c\n  x\n",
            "a: b: c\n",
            "a: 'x' y\n",
            "\"k\" : 1\n",
            "a:b\n",
            "a: x \n",
            "a: x\n  - y\n",
            "a: 1.5\n",
            "a: yes\n",
            "%YAML 1.1\n---\na: 1\n",
            "a: \"x\\\n---\"\n",
            "a: 'x\n---'\n");
    for (String text : texts) {
      assertTrue(BlockYaml.read(text).isEmpty(), "accepted:\n" + text);
    }
  }

  @Test
  @DisplayName(
      "reads blank lines anywhere between nodes, items on the line after their dash, quoted keys in items, keys that start with an indicator before a non-space, 19-digit longs, and a last line of spaces")
  void readsEdgeLayouts() {
    StringBuilder siblings = new StringBuilder();
    for (int i = 0; i < 40; i++) {
      siblings.append("k").append(i).append(":\n  - a\nj").append(i).append(":\n- b\n");
    }
    List<String> texts =
        List.of(
            "\n\na: 1\n",
            "a: 1\n\n",
            "a: 1\n   ",
            "a:\n\n  b: 1\n",
            "a:\n  b: 1\n\n  c: 2\n",
            "l:\n-\n  a: 1\n-\n\n  - x\n",
            "l:\n- a\n\n- b\n",
            "a:\n  -x: 1\n  b: 2\n",
            "l:\n- \"a\": 1\n  b: 2\n- 'c': 3\n- \"d\"\n- 'e'\n- \"x: y\"\n- 'x: y'\n- -x\n- - z\n",
            "'it''s': 1\n\"q\": 2\n",
            "a: x\n  y\n\nb: 1\n",
            "k: 9223372036854775807\nm: -9223372036854775808\n",
            "k: |9\n           a\nm: |1-\n  b\n",
            "k: |2-\n\nz: 1\n",
            siblings.toString());
    for (String text : texts) {
      assertTrue(sameAsJackson(text, text), "declined:\n" + text);
    }
  }

  @Test
  @DisplayName(
      "declines by design: ints that are not plain decimals, unclosed quoted keys, text glued to a quoted key, a deeper line or a dash after a closed value, indicator keys, comments after a space in a key, a comment line inside a plain scalar")
  void declinesByDesign() {
    List<String> texts =
        List.of(
            "k: 0755\n",
            "k: +1\n",
            "k: 00\n",
            "\"k",
            "'k",
            "'k: 1\n",
            "\"a\"x 1\n",
            "\"a\":b\n",
            "a: \"x\"\n  b: 2\n",
            "a: 'x'\n- b\n",
            "a: {}\n  b: 2\n",
            "&a: 1\n",
            "!a: 1\n",
            "a #b: 1\n",
            "k: x\n  #y\n",
            "k: x\n  -\n",
            "k: |\nx: 1\n",
            "k:\n" + "- ".repeat(70) + "x\n");
    for (String text : texts) {
      assertTrue(BlockYaml.read(text).isEmpty(), "accepted:\n" + text);
    }
  }

  @Test
  @DisplayName(
      "declines what SnakeYAML refuses or reads otherwise (found by a second pair of eyes): a literal block ending the text without its line break, document markers before content, keys past 1,024 characters, texts past 3 MiB")
  void snakeYamlLimits() {
    for (String text :
        List.of(
            "k: |\n  a",
            "k: |\n  a\n    ",
            "k: |+\n  a\n  ",
            "l:\n- k: |\n    a",
            "k: |1\n  ",
            "--- a: 1\n",
            "... a: 1\n",
            "a: 1\n--- b: 2\n",
            "a: 1\n...\n",
            "--- - x: 1\n",
            "k".repeat(1025) + ": 1\n",
            "\"" + "k".repeat(1023) + "\": 1\n",
            "'" + "k".repeat(1023) + "': 1\n",
            "l:\n- a: 1\n  " + "k".repeat(1025) + ": 1\n",
            "k: " + "x".repeat(3 * 1024 * 1024 - 3) + "\n")) {
      assertTrue(
          BlockYaml.read(text).isEmpty(),
          "accepted: " + text.substring(0, Math.min(60, text.length())));
    }
    for (String text :
        List.of(
            "k: a",
            "---x: 1\n",
            "k".repeat(1024) + ": 1\n",
            "\"" + "k".repeat(1022) + "\": 1\n",
            "k: " + "x".repeat(3 * 1024 * 1024 - 4) + "\n")) {
      assertTrue(
          sameAsJackson(text, text.substring(0, Math.min(60, text.length()))),
          "declined: " + text.substring(0, Math.min(60, text.length())));
    }
  }

  @Test
  @DisplayName("nesting past 64 collections is declined (a hostile file cannot overflow the stack)")
  void deepNesting() {
    assertTrue(sameAsJackson(nested(63), "64 deep"), "declined 64 mappings");
    assertTrue(BlockYaml.read(nested(64)).isEmpty(), "accepted 65 mappings");
  }

  /** {@code levels} keys, each holding the next mapping, the last holding {@code v: 1}. */
  private static String nested(int levels) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < levels; i++) {
      text.append(" ".repeat(i)).append("k:\n");
    }
    return text.append(" ".repeat(levels)).append("v: 1\n").toString();
  }

  @Test
  @DisplayName(
      "30,000 damaged golden manifests (a character dropped, doubled or replaced): the reader never accepts what Jackson rejects, never reads otherwise, never throws")
  void damagedGoldens() throws IOException {
    List<String> texts = new ArrayList<>();
    for (Path file : goldenYaml()) {
      String text = Files.readString(file, StandardCharsets.UTF_8);
      if (BlockYaml.read(text).isPresent() && text.length() < 20_000) {
        texts.add(text);
      }
    }
    Random random = new Random(24);
    String swaps = " -:'\"|#\n{}[]&*!>a1";
    int accepted = 0;
    for (int i = 0; i < 30_000; i++) {
      String text = texts.get(random.nextInt(texts.size()));
      int at = random.nextInt(text.length());
      String damaged =
          switch (random.nextInt(3)) {
            case 0 -> text.substring(0, at) + text.substring(at + 1);
            case 1 -> text.substring(0, at) + text.charAt(at) + text.substring(at);
            default ->
                text.substring(0, at)
                    + swaps.charAt(random.nextInt(swaps.length()))
                    + text.substring(at + 1);
          };
      accepted += sameAsJackson(damaged, "damage #" + i) ? 1 : 0;
    }
    assertTrue(accepted > 15_000, "read only " + accepted + " of 30,000 damaged texts");
  }

  private static final String[] WORDS = {
    "true",
    "no",
    "null",
    "~",
    "0755",
    "012",
    "1.5",
    "-1",
    "7",
    "2147483648",
    "1e4",
    "0x1F",
    "<<",
    "---",
    "- x",
    "a: b",
    "a:b",
    "a #b",
    "a#b",
    ": x",
    "? x",
    "-",
    "",
    " ",
    "\n",
    "x\n",
    "x\n\n",
    "\nx",
    " x",
    "x ",
    "x \ny",
    "x\n y",
    "it's",
    "\"q\"",
    "back\\slash",
    "1Gi",
    "--nnodes=2"
  };
  private static final String ALPHABET = "abcXYZ019 :-#'\"\\\n?,[]{}&*!|>%@`._/=+~";

  private static JsonNode tree(Random random, int depth) {
    int kind = depth >= 4 ? 3 + random.nextInt(3) : random.nextInt(6);
    switch (kind) {
      case 0, 1 -> {
        ObjectNode o = NODES.objectNode();
        for (int i = random.nextInt(4); i > 0; i--) {
          o.set(key(random), tree(random, depth + 1));
        }
        return o;
      }
      case 2 -> {
        ArrayNode a = NODES.arrayNode();
        for (int i = random.nextInt(4); i > 0; i--) {
          a.add(tree(random, depth + 1));
        }
        return a;
      }
      case 3 -> {
        return random.nextBoolean()
            ? NODES.numberNode(
                random.nextInt(2) == 0 ? random.nextInt(200) - 100 : random.nextLong())
            : random.nextBoolean() ? NODES.booleanNode(random.nextBoolean()) : NODES.nullNode();
      }
      default -> {
        StringBuilder s = new StringBuilder();
        for (int p = 1 + random.nextInt(random.nextInt(8) == 0 ? 30 : 4); p > 0; p--) {
          if (random.nextBoolean()) {
            s.append(WORDS[random.nextInt(WORDS.length)]);
          } else {
            for (int i = random.nextInt(10); i > 0; i--) {
              s.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
            }
          }
          s.append(random.nextInt(3) > 0 ? " " : "");
        }
        return NODES.textNode(s.toString());
      }
    }
  }

  private static String key(Random random) {
    String k = WORDS[random.nextInt(WORDS.length)].replace("\n", "").trim();
    return k.isEmpty() ? "k" + random.nextInt(9) : k;
  }
}
