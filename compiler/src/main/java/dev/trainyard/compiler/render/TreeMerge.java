package dev.trainyard.compiler.render;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;

/**
 * Merges generated Kubernetes fields over a runtime skeleton, in the spirit of a strategic merge
 * patch: objects merge key by key, lists of named items ({@code containers}, {@code env}, {@code
 * volumes}) merge by {@code name}, anything else from the generated side replaces the skeleton's.
 */
final class TreeMerge {
  private TreeMerge() {}

  /** Merges {@code over} into {@code base} in place; {@code over} wins on conflicts. */
  static void merge(ObjectNode base, ObjectNode over) {
    for (Iterator<Map.Entry<String, JsonNode>> it = over.properties().iterator(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode existing = base.get(e.getKey());
      if (existing instanceof ObjectNode b && e.getValue() instanceof ObjectNode o) {
        merge(b, o);
      } else if (existing instanceof ArrayNode b
          && e.getValue() instanceof ArrayNode o
          && named(b)
          && named(o)) {
        base.set(e.getKey(), mergeNamed(b, o));
      } else {
        base.set(e.getKey(), e.getValue().deepCopy());
      }
    }
  }

  private static boolean named(ArrayNode list) {
    for (JsonNode n : list) {
      if (!n.isObject() || !n.has("name")) {
        return false;
      }
    }
    return true;
  }

  private static ArrayNode mergeNamed(ArrayNode base, ArrayNode over) {
    ArrayNode out = base.deepCopy();
    for (JsonNode item : over) {
      ObjectNode match = null;
      for (JsonNode candidate : out) {
        if (candidate.path("name").asText().equals(item.path("name").asText())) {
          match = (ObjectNode) candidate;
        }
      }
      if (match == null) {
        out.add(item.deepCopy());
      } else {
        merge(match, (ObjectNode) item);
      }
    }
    return out;
  }
}
