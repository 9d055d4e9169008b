package dev.trainyard.gitops.preview;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link YamlTrees#parse} finds aliases in the same parse that reads the documents (issue #24: a
 * separate scan read every JobSet of a preview twice).
 */
class YamlTreesTest {
  @Test
  @DisplayName(
      "an alias anywhere (a value, a list item, a flow list, a later document, before a syntax error) makes the file the aliases problem")
  void aliasesFound() {
    for (String text :
        new String[] {
          "a: &x 1\nb: *x\n",
          "a: &x 1\nl:\n- *x\n",
          "a: &x 1\nl: [1, *x]\n",
          "kind: A\n---\na: &x 1\nb: {c: *x}\n",
          "a: &x 1\nb: *x\nc: [unclosed\n"
        }) {
      YamlTrees.Documents d = YamlTrees.parse(text);
      assertEquals(YamlTrees.ALIASES, d.problem(), text);
      assertTrue(d.objects().isEmpty(), text);
    }
  }

  @Test
  @DisplayName(
      "a text is parsed once per YamlTrees (a preview reads the same file for several runs): the same documents come back; once() keeps nothing")
  void parsedOnce() {
    YamlTrees trees = new YamlTrees();
    String text = "kind: JobSet\nmetadata: {name: a}\n";
    YamlTrees.Documents first = trees.documents(text);
    assertSame(first, trees.documents(text));
    assertSame(first.objects().get(0), trees.object(text).orElseThrow());
    assertEquals(first.objects().get(0), trees.once(text).orElseThrow());
    assertNotSame(first.objects().get(0), trees.once(text).orElseThrow());
    assertTrue(trees.object("a: 1\n---\nb: 2\n").isEmpty(), "two documents are no one object");
  }

  @Test
  @DisplayName(
      "stars that are no alias (shell globs in a literal block, quoted, inside words) leave the file readable")
  void starsAreNoAlias() {
    String text =
        "kind: JobSet\nspec:\n  script: |\n    case $x in\n      *refuse*) exit 1 ;;\n      *) ;;\n    esac\n"
            + "  q: \"*x\"\n  w: a*b\n  l:\n  - '*'\n";
    YamlTrees.Documents d = YamlTrees.parse(text);
    assertTrue(d.readable(), d.problem());
    assertEquals(1, d.objects().size());
    assertEquals("*x", d.objects().get(0).path("spec").path("q").asText());
    assertTrue(d.objects().get(0).path("spec").path("script").asText().contains("*refuse*)"));
  }

  @Test
  @DisplayName(
      "the token watch sees aliases however the reader moves on: token by token, value by value, skipping a list or an object")
  void watchEveryWayOfReading() throws Exception {
    com.fasterxml.jackson.dataformat.yaml.YAMLFactory f =
        new com.fasterxml.jackson.dataformat.yaml.YAMLFactory();
    String text = "a: &x 1\nb: [2, [3, *x], 4]\nc: {d: {e: 5}}\ne: 3\n";
    try (YamlTrees.AliasWatch w = new YamlTrees.AliasWatch(f.createParser(text))) {
      assertEquals(com.fasterxml.jackson.core.JsonToken.START_OBJECT, w.nextToken());
      assertEquals(com.fasterxml.jackson.core.JsonToken.VALUE_NUMBER_INT, w.nextValue()); // a
      assertEquals(com.fasterxml.jackson.core.JsonToken.START_ARRAY, w.nextValue()); // b
      assertTrue(!w.seen);
      assertSame(w, w.skipChildren()); // over [2, [3, *x], 4], nested
      assertTrue(w.seen);
      assertEquals(com.fasterxml.jackson.core.JsonToken.END_ARRAY, w.currentToken());
      assertEquals(com.fasterxml.jackson.core.JsonToken.START_OBJECT, w.nextValue()); // c
      assertSame(w, w.skipChildren()); // over {d: {e: 5}}, nested
      assertEquals(com.fasterxml.jackson.core.JsonToken.END_OBJECT, w.currentToken());
      assertEquals(com.fasterxml.jackson.core.JsonToken.VALUE_NUMBER_INT, w.nextValue()); // e
      assertEquals(3, w.getIntValue());
      assertSame(w, w.skipChildren()); // a scalar: nothing to skip
      assertEquals(com.fasterxml.jackson.core.JsonToken.VALUE_NUMBER_INT, w.currentToken());
    }
  }

  @Test
  @DisplayName("a syntax error before any alias is 'not valid YAML' at its line and column")
  void errorBeforeAlias() {
    YamlTrees.Documents d = YamlTrees.parse("a: [unclosed\nb: &x 1\nc: *x\n");
    assertEquals("not valid YAML", d.problem());
    assertTrue(d.line() > 0, String.valueOf(d.line()));
  }

  @Test
  @DisplayName(
      "object() is the text's one object; a list, a scalar, broken YAML or two documents have none")
  void oneObject() {
    YamlTrees yaml = new YamlTrees();
    assertEquals(
        "JobSet",
        yaml.object("kind: JobSet\nmetadata: {name: r}\n").orElseThrow().path("kind").asText());
    assertEquals(
        "r",
        yaml.object("kind: JobSet\nmetadata:\n  name: r\n")
            .orElseThrow()
            .at("/metadata/name")
            .asText());
    for (String text :
        new String[] {"- a\n- b\n", "just text\n", "a: [unclosed\n", "a: 1\n---\nb: 2\n"}) {
      assertTrue(yaml.object(text).isEmpty(), text);
    }
    assertEquals(yaml.object("a: 1\n"), yaml.once("a: 1\n"));
  }
}
