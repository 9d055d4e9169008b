package dev.trainyard.gitops.preview;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.POJONode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.trainyard.compiler.manifest.YamlWriter;
import dev.trainyard.compiler.secrets.CredentialPatterns;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * Which values of an object are Secret data (or a credential written as plain env), and their
 * masks. Secret data never reaches a preview: not as text, base64, a hash or a fragment (Argo CD's
 * server-side diff returned it in plain text, CVE-2026-42880; kubectl and Flux show {@code ***
 * (before)} / {@code *** (after)}, fluxcd/pkg#661). {@link #seal} replaces each such value of a
 * tree by a {@link Sealed} leaf (its real text for comparing, its mask for showing):
 *
 * <ul>
 *   <li>{@code data}, {@code stringData} of every {@code Secret} and {@code spec.encryptedData},
 *       {@code spec.template.data} of every {@code SealedSecret} (bitnami.com/v1alpha1), wherever
 *       the object sits: the root, the {@code items} of a {@code kind: List}, any nesting; and the
 *       {@code kubectl.kubernetes.io/last-applied-configuration} annotation of either (it repeats
 *       the data);
 *   <li>every {@code sops} block and every {@code ENC[…]} value of any file (SOPS, getsops/sops
 *       {@code stores/stores.go});
 *   <li>kustomize's {@code secretGenerator[].literals} ({@code KEY=value}: shown as {@code
 *       KEY=***}), and inline {@code patches[].patch}, {@code patchesStrategicMerge[]} and {@code
 *       patchesJson6902[].patch} texts that patch a Secret (shown with the Secret's values masked;
 *       as {@code ***} when unreadable);
 *   <li>the {@code value} of any {@code {name, value}} env entry that looks like a credential
 *       ({@code CredentialPatterns}: a token shape from gitleaks' rule set, or a credential name
 *       with a literal value).
 * </ul>
 */
final class SecretMask {
  /** The mask of a Secret value that did not change, or of an added or removed one. */
  static final String MASK = "***";

  /** The old value of a changed Secret value. */
  static final String BEFORE = "*** (before)";

  /** The new value of a changed Secret value. */
  static final String AFTER = "*** (after)";

  private static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
  private static final List<String> PATCH_LISTS = List.of("patches", "patchesJson6902");

  /**
   * A Secret value in a sealed tree.
   *
   * @param shown what a preview may show ({@code ***}, {@code KEY=***}, a patch with its values
   *     masked)
   * @param real the value itself, only ever compared, never shown
   */
  record Sealed(String shown, String real) {
    @Override
    public String toString() {
      return shown;
    }
  }

  private SecretMask() {}

  /**
   * Whether an object carries Secret data anywhere (a Secret, a SealedSecret, a SOPS file, a List
   * of them, a secretGenerator).
   */
  static boolean sensitive(JsonNode object) {
    return form(object) != ObjectChange.SecretForm.NONE;
  }

  /**
   * How {@code tree} holds Secret data: SOPS before sealed before plain; {@code NONE} when it holds
   * none.
   */
  static ObjectChange.SecretForm form(JsonNode tree) {
    if (tree.has("sops")) {
      return ObjectChange.SecretForm.SOPS;
    }
    ObjectChange.SecretForm found =
        switch (tree.path("kind").asText("")) {
          case "Secret" -> ObjectChange.SecretForm.PLAIN;
          case "SealedSecret" -> ObjectChange.SecretForm.SEALED;
          default ->
              tree.path("secretGenerator").isArray() && tree.path("secretGenerator").size() > 0
                  ? ObjectChange.SecretForm.PLAIN
                  : ObjectChange.SecretForm.NONE;
        };
    if (found != ObjectChange.SecretForm.NONE) {
      return found;
    }
    // The strongest form below wins (the enum's order: NONE < PLAIN < SEALED < SOPS); a value node
    // has no children.
    for (JsonNode child : tree) {
      found = Collections.max(List.of(found, form(child)));
    }
    return found;
  }

  /** A SOPS-encrypted value ({@code ENC[AES256_GCM,data:…]}), in any file. */
  static boolean encrypted(String value) {
    return value.startsWith("ENC[");
  }

  /** A copy of {@code tree} with every Secret value replaced by a {@link Sealed} leaf. */
  static JsonNode seal(JsonNode tree) {
    return copy(tree);
  }

  /** A copy of {@code tree} with every Secret value replaced by its mask, for showing it whole. */
  static JsonNode maskedCopy(JsonNode tree) {
    return unseal(seal(tree));
  }

  private static JsonNode copy(JsonNode node) {
    if (node.isArray()) {
      ArrayNode out = JsonNodeFactory.instance.arrayNode();
      node.forEach(item -> out.add(copy(item)));
      return out;
    }
    if (!node.isObject()) {
      return node.isTextual() && encrypted(node.asText()) ? sealed(MASK, node) : node;
    }
    String kind = node.path("kind").asText("");
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    node.properties().forEach(e -> out.set(e.getKey(), field(kind, e.getKey(), e.getValue())));
    if (credentialEnv(node)) {
      out.set("value", sealed(MASK, node.get("value")));
    }
    return out;
  }

  /**
   * A container env entry ({@code {name, value}}) whose plain value looks like a credential ({@link
   * CredentialPatterns}, W432 at compile time): masked like Secret data.
   */
  private static boolean credentialEnv(JsonNode node) {
    return node.path("name").isTextual()
        && node.path("value").isTextual()
        && CredentialPatterns.match(node.get("name").asText(), node.get("value").asText())
            .isPresent();
  }

  private static JsonNode field(String kind, String key, JsonNode value) {
    boolean secret = kind.equals("Secret") || kind.equals("SealedSecret");
    if (key.equals("sops") && value.isObject()) {
      return sealed(MASK, value);
    }
    if (kind.equals("Secret") && (key.equals("data") || key.equals("stringData"))
        || kind.equals("SealedSecret") && key.equals("spec")) {
      return kind.equals("Secret") ? secretData(value) : sealedSecretSpec(value);
    }
    if (secret && key.equals("metadata") && value.path("annotations").has(LAST_APPLIED)) {
      ObjectNode meta = (ObjectNode) copy(value);
      ((ObjectNode) meta.get("annotations"))
          .set(LAST_APPLIED, sealed(MASK, value.path("annotations").get(LAST_APPLIED)));
      return meta;
    }
    if (key.equals("secretGenerator") && value.isArray()) {
      return KustomizeSecrets.generators(copy(value));
    }
    if (key.equals("patchesStrategicMerge") && value.isArray()
        || PATCH_LISTS.contains(key) && value.isArray()) {
      return KustomizeSecrets.patches(copy(value), key.equals("patchesStrategicMerge"));
    }
    return copy(value);
  }

  /**
   * Each key of a Secret's data shown, each value sealed; a data block that is not a mapping is
   * sealed whole.
   */
  private static JsonNode secretData(JsonNode data) {
    if (!data.isObject()) {
      return sealed(MASK, data);
    }
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    data.properties().forEach(e -> out.set(e.getKey(), sealed(MASK, e.getValue())));
    return out;
  }

  private static JsonNode sealedSecretSpec(JsonNode spec) {
    if (!spec.isObject()) {
      return copy(spec);
    }
    ObjectNode out = (ObjectNode) copy(spec);
    if (spec.has("encryptedData")) {
      out.set("encryptedData", secretData(spec.get("encryptedData")));
    }
    if (spec.path("template").isObject() && spec.path("template").has("data")) {
      ((ObjectNode) out.get("template")).set("data", secretData(spec.path("template").get("data")));
    }
    return out;
  }

  /**
   * {@code value} sealed: its mask {@code shown}, its text (a container's JSON) kept for comparing.
   */
  static JsonNode sealed(String shown, JsonNode value) {
    return new POJONode(new Sealed(shown, value.isValueNode() ? value.asText() : value.toString()));
  }

  /** The sealed value of {@code node}, if it is one. */
  static Optional<Sealed> sealedOf(JsonNode node) {
    return node instanceof POJONode p && p.getPojo() instanceof Sealed s
        ? Optional.of(s)
        : Optional.empty();
  }

  /** {@code tree} with each sealed leaf replaced by its mask. */
  static JsonNode unseal(JsonNode tree) {
    if (sealedOf(tree).isPresent()) {
      return TextNode.valueOf(sealedOf(tree).get().shown());
    }
    if (tree.isArray()) {
      ArrayNode out = JsonNodeFactory.instance.arrayNode();
      tree.forEach(item -> out.add(unseal(item)));
      return out;
    }
    if (tree.isObject()) {
      ObjectNode out = JsonNodeFactory.instance.objectNode();
      tree.properties().forEach(e -> out.set(e.getKey(), unseal(e.getValue())));
      return out;
    }
    return tree;
  }

  /** A text of YAML documents with every Secret value masked (for an inline kustomize patch). */
  static String maskedYaml(List<JsonNode> documents) {
    StringBuilder out = new StringBuilder();
    for (JsonNode d : documents) {
      out.append(out.length() == 0 ? "" : "---\n").append(YamlWriter.write(maskedCopy(d)));
    }
    return out.toString();
  }
}
