package dev.trainyard.compiler.manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The canonical form behind runtime digests, and the sorted YAML every emitted file is written in.
 */
class CanonicalJsonTest {
  private static ObjectNode unsorted() {
    ObjectNode o = CanonicalJson.mapper().createObjectNode().put("b", 1);
    o.putArray("list").addObject().put("z", true).put("y", "x");
    o.putObject("a").put("d", 2).put("c", 3);
    return o;
  }

  @Test
  @DisplayName(
      "sorted() orders keys at every level, inside nested objects and objects in lists, and keeps scalars")
  void sortedEverywhere() {
    assertEquals(
        "{\"a\":{\"c\":3,\"d\":2},\"b\":1,\"list\":[{\"y\":\"x\",\"z\":true}]}",
        CanonicalJson.sorted(unsorted()).toString());
  }

  @Test
  @DisplayName(
      "sha256 is sha256:<64 hex> of the compact sorted JSON, so key order does not change a digest")
  void digestIgnoresKeyOrder() {
    JsonNode same = CanonicalJson.sorted(unsorted());
    String digest = CanonicalJson.sha256(unsorted());
    assertEquals(digest, CanonicalJson.sha256(same));
    assertEquals(
        "sha256:"
            + CanonicalJson.sha256Hex(
                "{\"a\":{\"c\":3,\"d\":2},\"b\":1,\"list\":[{\"y\":\"x\",\"z\":true}]}"),
        digest);
  }

  @Test
  @DisplayName(
      "sha256Hex is the lower-case hex SHA-256 of the UTF-8 text (FIPS 180-2 test vector 'abc')")
  void sha256Hex() {
    assertEquals(
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        CanonicalJson.sha256Hex("abc"));
  }

  @Test
  @DisplayName(
      "YamlWriter writes keys sorted at every level, lists as '- ' items, a YAML 1.1 boolean key such as y quoted, and one final newline")
  void yamlSorted() {
    assertEquals(
        "a:\n  c: 3\n  d: 2\nb: 1\nlist:\n- \"y\": x\n  z: true\n", YamlWriter.write(unsorted()));
  }

  @Test
  @DisplayName(
      "YamlWriter quotes keys that YAML 1.1 would read as a number, timestamp or merge key, and leaves plain keys bare")
  void typedKeysQuoted() {
    ObjectNode o =
        CanonicalJson.mapper()
            .createObjectNode()
            .put("0x1F", "a")
            .put("1e4", "b")
            .put("2026-01-01", "c")
            .put("<<", "d")
            .put("plain", "e");
    assertEquals(
        "\"0x1F\": a\n\"1e4\": b\n\"2026-01-01\": c\n\"<<\": d\nplain: e\n", YamlWriter.write(o));
  }
}
