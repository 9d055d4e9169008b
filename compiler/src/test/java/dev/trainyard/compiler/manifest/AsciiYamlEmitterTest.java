package dev.trainyard.compiler.manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link AsciiYamlEmitter} must write exactly what Jackson's generator over SnakeYAML writes for
 * the same sorted tree, or decline (issue #24: output bytes never change with a speed-up).
 */
class AsciiYamlEmitterTest {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final AsciiYamlEmitter.Quoting QUOTING =
      YamlWriter.quoting(new YamlWriter.TypedScalarQuoting());

  private static String jackson(JsonNode node) throws IOException {
    String text = YamlWriter.YAML.writeValueAsString(CanonicalJson.sorted(node));
    return text.endsWith("\n") ? text : text + "\n";
  }

  private static Optional<String> fast(JsonNode node) {
    return AsciiYamlEmitter.write(node, QUOTING).map(t -> t.endsWith("\n") ? t : t + "\n");
  }

  @Test
  @DisplayName(
      "every golden output file is written by the fast emitter (none falls back) byte for byte as Jackson writes it")
  void goldenOutputs() throws IOException {
    List<Path> files;
    try (Stream<Path> all = Files.walk(Path.of("..", "golden"))) {
      files =
          all.filter(p -> p.toString().endsWith(".yaml"))
              .filter(p -> p.toString().contains("/expected/"))
              .sorted()
              .toList();
    }
    int compared = 0;
    for (Path file : files) {
      String text = Files.readString(file);
      if (!text.chars().allMatch(c -> c == '\n' || (c >= 0x20 && c <= 0x7E))) {
        continue; // a unicode golden: Jackson's path
      }
      JsonNode tree = YamlWriter.YAML.readTree(text);
      Optional<String> written = fast(tree);
      assertTrue(written.isPresent(), "fell back on " + file);
      assertEquals(jackson(tree), written.get(), file.toString());
      assertEquals(text, written.get(), file + " is not what the compiler wrote");
      compared++;
    }
    assertTrue(compared > 200, "compared only " + compared + " golden files");
  }

  @Test
  @DisplayName(
      "30,000 random trees (quotes, colons, hashes, indicators, line feeds, leading zeros, lines past column 80) are written as Jackson writes them")
  void randomTreesAsJackson() throws IOException {
    Random random = new Random(24);
    int written = 0;
    for (int i = 0; i < 30_000; i++) {
      JsonNode tree = tree(random, 0);
      Optional<String> fast = fast(tree);
      if (fast.isPresent()) {
        assertEquals(jackson(tree), fast.get(), "tree #" + i + ": " + tree);
        written++;
      }
    }
    assertTrue(written > 25_000, "the fast emitter wrote only " + written + " of 30,000 trees");
  }

  @Test
  @DisplayName(
      "declines what it does not reproduce: unicode, tabs, control characters, keys of 128+ characters, empty keys, doubles, an empty root string")
  void declines() {
    for (JsonNode tree :
        List.<JsonNode>of(
            NODES.objectNode().put("k", "ünïcödé"),
            NODES.objectNode().put("k", "tab\there"),
            NODES.objectNode().put("k", "cr\r\nlf"),
            NODES.objectNode().put("k", "bell\u0007"),
            NODES.objectNode().put("k".repeat(128), "v"),
            NODES.objectNode().put("", "v"),
            NODES.objectNode().put("k", 1.5),
            NODES.textNode(""))) {
      assertTrue(AsciiYamlEmitter.write(tree, QUOTING).isEmpty(), tree.toString());
    }
    assertTrue(
        AsciiYamlEmitter.write(NODES.objectNode().put("k".repeat(127), "v"), QUOTING).isPresent());
  }

  @Test
  @DisplayName(
      "the hand-written number check answers as Jackson's PLAIN_NUMBER_P for 20,000 strings")
  void plainNumberAsJackson() {
    java.util.regex.Pattern jackson = java.util.regex.Pattern.compile("[+-]?[0-9]*(\\.[0-9]*)?");
    Random random = new Random(7);
    String chars = "+-.0123456789a e";
    for (int i = 0; i < 20_000; i++) {
      StringBuilder s = new StringBuilder();
      int n = random.nextInt(6);
      for (int j = 0; j < n; j++) {
        s.append(chars.charAt(random.nextInt(chars.length())));
      }
      String text = s.toString();
      assertEquals(
          jackson.matcher(text).matches(), AsciiYamlEmitter.plainNumber(text), "'" + text + "'");
    }
  }

  private static final String ALPHABET = "abcXYZ019 :-#'\"\\\n?,[]{}&*!|>%@`._/=+~";
  private static final String[] WORDS = {
    "true", "no", "null", "~", "0755", "012", "0_1", "1.5", "-1", ".5", "1e4", "0x1F", "<<", "=",
    "---", "...", "- x", "a: b", "a:b", "a #b", "a#b", ": x", "? x", "-", "", " ", "\n", "x\n",
    "x\n\n", "\nx", " x", "x ", "x \ny", "x\n y", "it's", "\"q\"", "back\\slash"
  };

  private static JsonNode tree(Random random, int depth) {
    int kind = depth >= 4 ? 3 + random.nextInt(4) : random.nextInt(7);
    switch (kind) {
      case 0, 1 -> {
        ObjectNode o = NODES.objectNode();
        int n = random.nextInt(5);
        for (int i = 0; i < n; i++) {
          o.set(key(random), tree(random, depth + 1));
        }
        return o;
      }
      case 2 -> {
        ArrayNode a = NODES.arrayNode();
        int n = random.nextInt(4);
        for (int i = 0; i < n; i++) {
          a.add(tree(random, depth + 1));
        }
        return a;
      }
      case 3 -> {
        return random.nextBoolean()
            ? NODES.numberNode(random.nextInt(200) - 100)
            : random.nextBoolean() ? NODES.booleanNode(random.nextBoolean()) : NODES.nullNode();
      }
      case 4 -> {
        return NODES.numberNode(random.nextLong());
      }
      default -> {
        return NODES.textNode(text(random));
      }
    }
  }

  private static String key(Random random) {
    String k = random.nextInt(4) == 0 ? text(random) : WORDS[random.nextInt(WORDS.length)];
    k = k.replace("\n", "");
    return k.isEmpty() ? "k" : k.length() > 100 ? k.substring(0, 100) : k;
  }

  private static String text(Random random) {
    StringBuilder s = new StringBuilder();
    int parts = 1 + random.nextInt(random.nextInt(8) == 0 ? 40 : 4);
    for (int p = 0; p < parts; p++) {
      if (random.nextBoolean()) {
        s.append(WORDS[random.nextInt(WORDS.length)]);
      } else {
        int n = random.nextInt(12);
        for (int i = 0; i < n; i++) {
          s.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
      }
      if (random.nextInt(3) > 0) {
        s.append(random.nextInt(6) == 0 ? "  " : " ");
      }
    }
    return s.toString();
  }
}
