package dev.trainyard.gitops.preview;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Flattens a Kubernetes object into its leaf fields by path, in document order, so two versions
 * compare field by field instead of as reflowed text. A list whose items are all objects with
 * distinct string {@code name}s (containers, env, replicated jobs, volumes) is keyed by name
 * ({@code env[NNODES].value}), so inserting an item does not shift every later index; other lists
 * by index. Each sealed Secret value is one leaf (one per data key; a SOPS {@code sops} block is
 * one leaf).
 */
final class FieldPaths {
  private static final Pattern PLAIN_KEY = Pattern.compile("[A-Za-z0-9_-]+");

  private FieldPaths() {}

  /**
   * One leaf.
   *
   * @param text the value as YAML shows it, or a Secret value's real text (compared, never shown)
   * @param mask for a Secret value, what may be shown instead ({@code ***}, {@code KEY=***}); else
   *     empty
   */
  record Leaf(String text, Optional<String> mask) {}

  /**
   * Leaf path → value (scalars as YAML shows them; {@code {}}/{@code []} for empty containers) of a
   * {@link SecretMask#seal sealed} tree.
   */
  static Map<String, Leaf> flatten(JsonNode sealedRoot) {
    Map<String, Leaf> leaves = new LinkedHashMap<>();
    walk(sealedRoot, "", leaves);
    return leaves;
  }

  private static void walk(JsonNode node, String path, Map<String, Leaf> out) {
    Optional<SecretMask.Sealed> sealed = SecretMask.sealedOf(node);
    if (sealed.isPresent()) {
      out.put(path, new Leaf(sealed.get().real(), Optional.of(sealed.get().shown())));
    } else if (node.isObject() && node.size() > 0) {
      node.properties().forEach(e -> walk(e.getValue(), child(path, e.getKey()), out));
    } else if (node.isArray() && node.size() > 0) {
      boolean named = namedItems(node);
      for (int i = 0; i < node.size(); i++) {
        String key = named ? node.get(i).get("name").asText() : Integer.toString(i);
        walk(node.get(i), path + "[" + key + "]", out);
      }
    } else {
      out.put(path, new Leaf(text(node), Optional.empty()));
    }
  }

  /**
   * The path of {@code key} below {@code path}: {@code a.b}, or {@code a["x.io/y"]} for keys with
   * dots or slashes.
   */
  static String child(String path, String key) {
    if (PLAIN_KEY.matcher(key).matches()) {
      return path.isEmpty() ? key : path + "." + key;
    }
    return path + "[\"" + key.replace("\\", "\\\\").replace("\"", "\\\"") + "\"]";
  }

  private static boolean namedItems(JsonNode list) {
    Set<String> names = new HashSet<>();
    for (JsonNode item : list) {
      if (!item.isObject()
          || !item.path("name").isTextual()
          || !names.add(item.get("name").asText())) {
        return false;
      }
    }
    return true;
  }

  private static String text(JsonNode node) {
    if (node.isObject()) {
      return "{}";
    }
    if (node.isArray()) {
      return "[]";
    }
    return node.isNull() ? "null" : node.asText();
  }
}
