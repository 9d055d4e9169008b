package dev.trainyard.gitops.integration;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Every string in a parsed YAML tree with its JSON-pointer-like path, for checks over a whole CI
 * file.
 */
final class YamlScalars {
  /**
   * A string value and where it sits, e.g. {@code /jobs/submit/steps/6/env/TRAINYARD_GITOPS_TOKEN}.
   */
  record Scalar(String path, String value) {}

  private YamlScalars() {}

  static List<Scalar> strings(JsonNode root) {
    List<Scalar> out = new ArrayList<>();
    collect("", root, out);
    return List.copyOf(out);
  }

  private static void collect(String path, JsonNode node, List<Scalar> out) {
    if (node.isObject()) {
      for (Map.Entry<String, JsonNode> field : node.properties()) {
        collect(path + "/" + field.getKey(), field.getValue(), out);
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        collect(path + "/" + i, node.get(i), out);
      }
    } else if (node.isTextual()) {
      out.add(new Scalar(path, node.asText()));
    }
  }
}
