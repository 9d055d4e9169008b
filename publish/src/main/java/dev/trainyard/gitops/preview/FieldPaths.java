package dev.trainyard.gitops.preview;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Flattens a Kubernetes object into its leaf fields by path, in document order, so two versions compare field
 * by field instead of as reflowed text. A list whose items are all objects with distinct string {@code name}s
 * (containers, env, replicated jobs, volumes) is keyed by name ({@code env[NNODES].value}), so inserting an
 * item does not shift every later index; other lists by index. Secret data is one leaf per key; a SOPS
 * {@code sops} block is one leaf.
 */
final class FieldPaths {
  private static final Pattern PLAIN_KEY = Pattern.compile("[A-Za-z0-9_-]+");

  private FieldPaths() {}

  /** Leaf path → value text (scalars as YAML shows them; {@code {}}/{@code []} for empty containers). */
  static Map<String, String> flatten(JsonNode root, boolean sensitive) {
    Map<String, String> leaves = new LinkedHashMap<>();
    walk(root, "", sensitive, leaves);
    return leaves;
  }

  private static void walk(JsonNode node, String path, boolean sensitive, Map<String, String> out) {
    if (sensitive && SecretMask.isSecretSubtree(path) && !node.isObject()) {
      out.put(path, text(node));
    } else if (sensitive && path.equals("sops")) {
      out.put(path, node.toString());
    } else if (node.isObject() && node.size() > 0) {
      node.fields().forEachRemaining(e -> walk(e.getValue(), child(path, e.getKey()), sensitive, out));
    } else if (node.isArray() && node.size() > 0) {
      boolean named = namedItems(node);
      for (int i = 0; i < node.size(); i++) {
        String key = named ? node.get(i).get("name").asText() : Integer.toString(i);
        walk(node.get(i), path + "[" + key + "]", sensitive, out);
      }
    } else {
      out.put(path, text(node));
    }
  }

  /** The path of {@code key} below {@code path}: {@code a.b}, or {@code a["x.io/y"]} for keys with dots or slashes. */
  static String child(String path, String key) {
    if (PLAIN_KEY.matcher(key).matches()) {
      return path.isEmpty() ? key : path + "." + key;
    }
    return path + "[\"" + key.replace("\\", "\\\\").replace("\"", "\\\"") + "\"]";
  }

  private static boolean namedItems(JsonNode list) {
    Set<String> names = new HashSet<>();
    for (JsonNode item : list) {
      if (!item.isObject() || !item.path("name").isTextual() || !names.add(item.get("name").asText())) {
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
