package dev.trainyard.gitops.preview;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.trainyard.compiler.manifest.YamlWriter;
import java.util.List;
import java.util.Optional;

/**
 * Secret data a {@code kustomization.yaml} carries itself (kustomize {@code
 * api/types/kustomization.go}): {@code secretGenerator[].literals} are {@code KEY=value} pairs
 * (shown as {@code KEY=***}; {@code envs} and {@code files} name files, which are shown as names);
 * inline patches that patch a Secret ({@code patches[].patch} and {@code patchesJson6902[].patch}
 * with a Secret target or a Secret document, {@code patchesStrategicMerge[]} texts holding a
 * Secret) are shown with the Secret's values masked. A patch text that is not readable YAML is
 * masked whole: it cannot be told apart from broken Secret data.
 */
final class KustomizeSecrets {
  private KustomizeSecrets() {}

  /** The generators with each literal's value sealed. */
  static JsonNode generators(JsonNode generators) {
    ArrayNode out = JsonNodeFactory.instance.arrayNode();
    for (JsonNode g : generators) {
      if (g.isObject() && g.path("literals").isArray()) {
        ObjectNode copy = ((ObjectNode) g).deepCopy();
        ArrayNode literals = copy.putArray("literals");
        g.path("literals").forEach(l -> literals.add(literal(l)));
        out.add(copy);
      } else {
        out.add(g);
      }
    }
    return out;
  }

  private static JsonNode literal(JsonNode literal) {
    String text = literal.isValueNode() ? literal.asText() : literal.toString();
    int eq = text.indexOf('=');
    return SecretMask.sealed(
        eq > 0 && literal.isValueNode()
            ? text.substring(0, eq + 1) + SecretMask.MASK
            : SecretMask.MASK,
        literal);
  }

  /**
   * The patch list with each inline patch of a Secret sealed ({@code strategic}: a
   * patchesStrategicMerge list of texts).
   */
  static JsonNode patches(JsonNode patches, boolean strategic) {
    ArrayNode out = JsonNodeFactory.instance.arrayNode();
    for (JsonNode p : patches) {
      if (strategic && p.isTextual()) {
        out.add(patchText(p, false));
      } else if (p.isObject() && p.path("patch").isTextual()) {
        ObjectNode copy = ((ObjectNode) p).deepCopy();
        copy.set(
            "patch",
            patchText(p.get("patch"), p.path("target").path("kind").asText("").equals("Secret")));
        out.add(copy);
      } else {
        out.add(p);
      }
    }
    return out;
  }

  private static JsonNode patchText(JsonNode text, boolean secretTarget) {
    Optional<List<JsonNode>> docs = YamlTrees.anyDocuments(text.asText());
    if (docs.isEmpty()) {
      // A one-line entry is a file name (patchesStrategicMerge allows both); several lines of
      // broken YAML may be broken Secret data.
      return text.asText().contains("\n") ? SecretMask.sealed(SecretMask.MASK, text) : text;
    }
    boolean secret = secretTarget || docs.get().stream().anyMatch(SecretMask::sensitive);
    if (!secret) {
      return text;
    }
    StringBuilder shown = new StringBuilder();
    for (JsonNode d : docs.get()) {
      shown
          .append(shown.length() == 0 ? "" : "---\n")
          .append(YamlWriter.write(masked(d, secretTarget)));
    }
    return SecretMask.sealed(shown.toString(), text);
  }

  /**
   * A patch document masked: a JSON 6902 op list of a Secret keeps op and path, never value; a
   * merge patch its keys.
   */
  private static JsonNode masked(JsonNode doc, boolean secretTarget) {
    if (doc.isArray() && secretTarget) {
      ArrayNode ops = JsonNodeFactory.instance.arrayNode();
      for (JsonNode op : doc) {
        ObjectNode copy =
            op.isObject() ? ((ObjectNode) op).deepCopy() : JsonNodeFactory.instance.objectNode();
        if (op.has("value") || !op.isObject()) {
          copy.put("value", SecretMask.MASK);
        }
        ops.add(copy);
      }
      return ops;
    }
    if (doc.isObject() && secretTarget && !doc.has("kind")) {
      ObjectNode asSecret = ((ObjectNode) doc).deepCopy().put("kind", "Secret");
      ObjectNode out = (ObjectNode) SecretMask.maskedCopy(asSecret);
      out.remove("kind");
      return out;
    }
    return doc.isContainerNode() ? SecretMask.maskedCopy(doc) : TextNode.valueOf(SecretMask.MASK);
  }
}
