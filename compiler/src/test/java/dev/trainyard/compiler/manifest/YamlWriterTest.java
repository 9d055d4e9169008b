package dev.trainyard.compiler.manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link YamlWriter#write} walks the tree itself (issue #24, warm compile): its bytes must stay
 * those of Jackson's own serializers over the sorted copy, {@code
 * YAML.writeValueAsString(CanonicalJson.sorted(node))}, for every tree the goldens hold and for
 * scalars of every YAML style; and the quoting check's first-character shortcut must agree with its
 * regex.
 */
class YamlWriterTest {
  private static String jackson(JsonNode node) throws IOException {
    String text = YamlWriter.YAML.writeValueAsString(CanonicalJson.sorted(node));
    return text.endsWith("\n") ? text : text + "\n";
  }

  @Test
  @DisplayName(
      "every YAML document under golden/ (inputs and expected trees) is written byte for byte as Jackson's serializer over the sorted copy writes it")
  void goldensAsJackson() throws IOException {
    List<Path> files;
    try (Stream<Path> all = Files.walk(Path.of("..", "golden"))) {
      files = all.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
    }
    int compared = 0;
    for (Path file : files) {
      JsonNode tree;
      try {
        tree = YamlWriter.YAML.readTree(Files.readString(file));
      } catch (IOException | RuntimeException e) {
        continue; // a broken input of an error golden
      }
      if (tree == null || tree.isMissingNode()) {
        continue;
      }
      assertEquals(jackson(tree), YamlWriter.write(tree), file.toString());
      compared++;
    }
    assertTrue(compared > 200, "compared only " + compared + " golden files");
  }

  @Test
  @DisplayName(
      "scalars of every style (plain, quoted, literal, folded long lines, unicode, typed-looking) and every node type are written as Jackson writes them")
  void everyStyleAsJackson() throws IOException {
    ObjectNode o = CanonicalJson.mapper().createObjectNode();
    String[] values = {
      "",
      " lead",
      "trail ",
      "a\nb",
      "a\n",
      "a\n\n",
      " a\nb",
      "tab\there",
      "ünïcödé ✓",
      "\u0007bell",
      "0x1F",
      "-1",
      "+.inf",
      ".5",
      "<<",
      "=",
      "1:30",
      "2026-01-01T00:00:00Z",
      "true",
      "no",
      "null",
      "~",
      "#comment",
      "a: b",
      "- x",
      "'q'",
      "\"dq\"",
      "x ".repeat(60),
      "word".repeat(40),
      "key=value,other=1",
      "https://example.com/a?b=c#d",
      "[a]",
      "{a}",
      "*alias",
      "&anchor",
      "!tag",
      "%percent",
      "@at",
      "`tick`",
      "|pipe",
      ">gt",
      "?q",
      "line\r\nwindows"
    };
    for (int i = 0; i < values.length; i++) {
      o.put("k" + i, values[i]);
      o.putObject("nested" + i).put(values[i].isEmpty() ? "e" : values[i], values[i]);
    }
    o.put("int", 7).put("long", 1L << 40).put("double", 1.5).put("bool", false);
    o.put("big", new BigInteger("123456789012345678901234567890"));
    o.put("decimal", new BigDecimal("1.50"));
    o.putNull("null");
    o.putObject("emptyObject");
    o.putArray("emptyArray");
    o.putArray("arrays").addArray().add(1).add("two").addObject().put("z", 1).put("a", "b");
    o.putArray("strings").add("0o17").add("").add("multi\nline");
    o.putObject("zz").putObject("y").putArray("x").addNull();
    assertEquals(jackson(o), YamlWriter.write(o));
    assertEquals(jackson(o.get("k3")), YamlWriter.write(o.get("k3")));
    assertEquals(jackson(o.get("arrays")), YamlWriter.write(o.get("arrays")));
  }

  @Test
  @DisplayName(
      "the quoting check's first-character shortcut answers as the TYPED regex for fixed and 20,000 random strings")
  void shortcutAsRegex() {
    List<String> samples =
        new ArrayList<>(
            List.of(
                "",
                "0",
                "+1",
                "-.5",
                ".inf",
                ".NaN",
                "<<",
                "=",
                "0b101",
                "0x_1F",
                "1_000",
                "1:30",
                "2026-01-01",
                "2026-1-1 10:00",
                "1e4",
                "abc",
                "a1",
                " 1",
                "x=1",
                "é1",
                "-",
                "+",
                "-c",
                "--nproc-per-node=2",
                "-x1",
                "+a",
                "-0b1",
                "+0x1F",
                "-1:30"));
    Random random = new Random(24);
    String alphabet = "0123456789+-._:eExXbBoO<=aZ T";
    for (int i = 0; i < 20_000; i++) {
      StringBuilder s = new StringBuilder();
      for (int n = random.nextInt(8); n >= 0; n--) {
        s.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      samples.add(s.toString());
    }
    int typed = 0;
    for (String s : samples) {
      boolean regex = YamlWriter.TypedScalarQuoting.TYPED.matcher(s).matches();
      assertEquals(regex, YamlWriter.TypedScalarQuoting.typed(s), "\"" + s + "\"");
      typed += regex ? 1 : 0;
    }
    assertTrue(typed > 1_000, "the samples hold only " + typed + " typed strings");
  }

  @Test
  @DisplayName(
      "remembered quoting verdicts answer as the checker for fixed and random strings, twice; at most MAX strings of at most MAX_LENGTH characters are kept")
  void verdictsAsChecker() {
    YamlWriter.TypedScalarQuoting checker = new YamlWriter.TypedScalarQuoting();
    YamlWriter.Verdicts values = new YamlWriter.Verdicts(checker::needToQuoteValue);
    YamlWriter.Verdicts names = new YamlWriter.Verdicts(checker::needToQuoteName);
    Random random = new Random(7);
    String alphabet = "0123456789+-._:#,[]{}eEyYnN tT~<=aZ";
    List<String> samples = new ArrayList<>(List.of("", "yes", "No", "1e4", "a: b", "#x", "~"));
    for (int i = 0; i < 5_000; i++) {
      StringBuilder s = new StringBuilder();
      for (int n = random.nextInt(6); n >= 0; n--) {
        s.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      samples.add(s.toString());
    }
    int quoted = 0;
    for (int round = 0; round < 2; round++) {
      for (String s : samples) {
        assertEquals(checker.needToQuoteValue(s), values.test(s), "value \"" + s + "\"");
        assertEquals(checker.needToQuoteName(s), names.test(s), "name \"" + s + "\"");
        quoted += values.test(s) ? 1 : 0;
      }
    }
    assertTrue(quoted > 1_000 && quoted < 2 * samples.size() - 1_000, quoted + " quoted");
    assertTrue(values.size() > 1_000, values.size() + " kept");

    YamlWriter.Verdicts bounded = new YamlWriter.Verdicts(s -> s.length() % 2 == 0);
    String at = "a".repeat(YamlWriter.Verdicts.MAX_LENGTH);
    assertTrue(bounded.test(at));
    assertEquals(1, bounded.size(), "a string of MAX_LENGTH characters is kept");
    assertTrue(!bounded.test(at + "a"));
    assertEquals(1, bounded.size(), "a longer one is asked, not kept");
    for (int i = 0; i < YamlWriter.Verdicts.MAX + 10; i++) {
      assertEquals(String.valueOf(i).length() % 2 == 0, bounded.test(String.valueOf(i)));
      assertTrue(bounded.size() <= YamlWriter.Verdicts.MAX, "kept " + bounded.size());
    }
    assertTrue(bounded.size() < 20, "starts over once full: " + bounded.size());
  }

  @Test
  @DisplayName(
      "the typed-scalar pre-check: false for text no TYPED match can start like (flags, words, a lone sign), true for a digit, dot, < or = first, or a sign before a digit or dot")
  void mayBeTyped() {
    for (String no : new String[] {"", "a", "-", "+", "--nproc-per-node=2", "-c", "+a", "é"}) {
      assertFalse(YamlWriter.TypedScalarQuoting.mayBeTyped(no), no);
    }
    for (String yes : new String[] {"1", ".5", "<<", "=", "-1", "+.inf", "-.5", "+0x1"}) {
      assertTrue(YamlWriter.TypedScalarQuoting.mayBeTyped(yes), yes);
    }
  }

  @Test
  @DisplayName(
      "a tree nested 40 deep (past the emitter's first indent stack) is written as Jackson writes it")
  void deepTree() throws IOException {
    ObjectNode root = CanonicalJson.mapper().createObjectNode();
    ObjectNode at = root;
    for (int i = 0; i < 40; i++) {
      at = at.putObject("k" + i);
      at.put("v", "value " + i).putArray("list").add("a\nb").add(i);
    }
    assertEquals(jackson(root), YamlWriter.write(root));
  }
}
