package dev.trainyard.compiler.render;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.manifest.CanonicalJson;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The two small tree tools of the render stage: a container's env list, and the skeleton merge. */
class EnvListTreeMergeTest {
  /** JSON from {@code text} written with ' for ". */
  private static JsonNode tree(String text) {
    try {
      return CanonicalJson.mapper().readTree(text.replace('\'', '"'));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static ObjectNode json(String text) {
    return (ObjectNode) tree(text);
  }

  @Test
  @DisplayName(
      "env is sorted by name, a later put replaces the earlier one, and $ is doubled so the kubelet expands nothing")
  void envSortedReplacedEscaped() {
    EnvList env = new EnvList().put("B", "x").put("A", "$(HOME) costs $5").put("B", "y");
    assertEquals(
        tree("[{'name':'A','value':'$$(HOME) costs $$5'},{'name':'B','value':'y'}]"),
        env.toArray());
    assertEquals(List.of("A", "B"), List.copyOf(env.names()));
  }

  @Test
  @DisplayName(
      "field and Secret references are valueFrom entries; putAll replaces same-named variables of any kind")
  void references() {
    EnvList env = new EnvList().put("N", "plain").putSecretKey("S", "creds", "token");
    env.putAll(new EnvList().putFieldRef("N", "spec.nodeName"));
    assertEquals(
        tree(
            "[{'name':'N','valueFrom':{'fieldRef':{'fieldPath':'spec.nodeName'}}},"
                + "{'name':'S','valueFrom':{'secretKeyRef':{'name':'creds','key':'token'}}}]"),
        env.toArray());
  }

  @Test
  @DisplayName("toArray hands out copies: changing the array changes nothing in the list")
  void arrayIsACopy() {
    EnvList env = new EnvList().put("A", "1");
    ((ObjectNode) env.toArray().get(0)).put("value", "2");
    assertEquals("1", env.toArray().get(0).path("value").asText());
  }

  @Test
  @DisplayName(
      "merge: objects merge key by key, the generated side wins a conflict, and keys only the skeleton has stay")
  void mergeObjects() {
    ObjectNode base = json("{'a':{'keep':1,'both':'skeleton'},'list':[1,2],'only':true}");
    TreeMerge.merge(base, json("{'a':{'both':'generated','new':2},'list':[3]}"));
    assertEquals(json("{'a':{'keep':1,'both':'generated','new':2},'list':[3],'only':true}"), base);
  }

  @Test
  @DisplayName(
      "merge: lists of named items merge by name, keeping skeleton-only items first and appending new ones")
  void mergeNamedLists() {
    ObjectNode base =
        json(
            "{'containers':[{'name':'side','image':'s'},{'name':'node','env':[{'name':'A','value':'1'}],'tty':true}]}");
    TreeMerge.merge(
        base,
        json(
            "{'containers':[{'name':'node','image':'n','env':[{'name':'B','value':'2'},{'name':'A','value':'3'}]},"
                + "{'name':'extra'}]}"));
    assertEquals(
        json(
            "{'containers':[{'name':'side','image':'s'},"
                + "{'name':'node','env':[{'name':'A','value':'3'},{'name':'B','value':'2'}],'tty':true,'image':'n'},{'name':'extra'}]}"),
        base);
  }

  @Test
  @DisplayName(
      "merge: a list with an unnamed item on either side is replaced whole by the generated list")
  void unnamedListsReplaced() {
    ObjectNode base = json("{'args':[{'name':'a'},{'x':1}],'more':[{'name':'a'}]}");
    TreeMerge.merge(base, json("{'args':[{'name':'b'}],'more':[{'name':'c'},'text']}"));
    assertEquals(json("{'args':[{'name':'b'}],'more':[{'name':'c'},'text']}"), base);
  }

  @Test
  @DisplayName(
      "merge copies the generated values: changing the generated tree afterwards leaves the merged one alone")
  void mergeCopies() {
    ObjectNode over = json("{'a':{'b':1}}");
    ObjectNode base = json("{}");
    TreeMerge.merge(base, over);
    ((ObjectNode) over.get("a")).put("b", 2);
    JsonNode merged = base.path("a").path("b");
    assertEquals(1, merged.asInt());
    assertTrue(merged.isInt());
    assertFalse(base.path("a").has("c"));
  }
}
