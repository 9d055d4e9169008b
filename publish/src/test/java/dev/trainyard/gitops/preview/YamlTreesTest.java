package dev.trainyard.gitops.preview;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
  @DisplayName("a syntax error before any alias is 'not valid YAML' at its line and column")
  void errorBeforeAlias() {
    YamlTrees.Documents d = YamlTrees.parse("a: [unclosed\nb: &x 1\nc: *x\n");
    assertEquals("not valid YAML", d.problem());
    assertTrue(d.line() > 0, String.valueOf(d.line()));
  }
}
