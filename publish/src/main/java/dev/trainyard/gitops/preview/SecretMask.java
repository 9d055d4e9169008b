package dev.trainyard.gitops.preview;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.List;

/**
 * Which values of an object are Secret data, and their masks. Secret data never reaches a preview: not as
 * text, base64, a hash or a fragment (Argo CD's server-side diff returned it in plain text, CVE-2026-42880;
 * kubectl and Flux show {@code *** (before)} / {@code *** (after)}, fluxcd/pkg#661). Masked:
 * <ul>
 *   <li>{@code data}, {@code stringData} of a {@code Secret}; {@code spec.encryptedData} and
 *       {@code spec.template.data} of a {@code SealedSecret} (bitnami.com/v1alpha1);</li>
 *   <li>the whole {@code sops} block and every {@code ENC[…]} value of any file (SOPS, getsops/sops
 *       {@code stores/stores.go});</li>
 *   <li>{@code kubectl.kubernetes.io/last-applied-configuration} of a Secret (it repeats the data).</li>
 * </ul>
 */
final class SecretMask {
  /** The mask of a Secret value that did not change, or of an added or removed one. */
  static final String MASK = "***";
  /** The old value of a changed Secret value. */
  static final String BEFORE = "*** (before)";
  /** The new value of a changed Secret value. */
  static final String AFTER = "*** (after)";
  private static final List<String> SECRET_ROOTS = List.of("data", "stringData", "spec.encryptedData", "spec.template.data", "sops",
      "metadata.annotations[\"kubectl.kubernetes.io/last-applied-configuration\"]");

  private SecretMask() {}

  /** Whether an object carries Secret data: a Secret, a SealedSecret, or any SOPS-encrypted file. */
  static boolean sensitive(JsonNode object) {
    String kind = object.path("kind").asText("");
    return kind.equals("Secret") || kind.equals("SealedSecret") || object.has("sops");
  }

  /** Whether {@code path} lies in a Secret-data subtree of a sensitive object. */
  static boolean isSecretSubtree(String path) {
    for (String root : SECRET_ROOTS) {
      if (path.equals(root) || path.startsWith(root + ".") || path.startsWith(root + "[")) {
        return true;
      }
    }
    return false;
  }

  /** Whether the leaf at {@code path} with {@code value} must be masked. */
  static boolean masked(boolean sensitive, String path, String value) {
    return sensitive && isSecretSubtree(path) || encrypted(value);
  }

  /** A SOPS-encrypted value ({@code ENC[AES256_GCM,data:…]}), in any file. */
  static boolean encrypted(String value) {
    return value.startsWith("ENC[");
  }

  /** A copy of {@code object} with every Secret value replaced by {@link #MASK}, for showing it whole. */
  static JsonNode maskedCopy(JsonNode object) {
    return copy(object, "", sensitive(object));
  }

  private static JsonNode copy(JsonNode node, String path, boolean sensitive) {
    if (sensitive && isSecretSubtree(path) && !(node.isObject() && !path.equals("sops"))) {
      return TextNode.valueOf(MASK);
    }
    if (node.isObject()) {
      ObjectNode out = ((ObjectNode) node).objectNode();
      node.fields().forEachRemaining(e -> out.set(e.getKey(), copy(e.getValue(), FieldPaths.child(path, e.getKey()), sensitive)));
      return out;
    }
    if (node.isArray()) {
      ArrayNode out = ((ArrayNode) node).arrayNode();
      for (int i = 0; i < node.size(); i++) {
        out.add(copy(node.get(i), path + "[" + i + "]", sensitive));
      }
      return out;
    }
    return node.isTextual() && encrypted(node.asText()) ? TextNode.valueOf(MASK) : node;
  }
}
