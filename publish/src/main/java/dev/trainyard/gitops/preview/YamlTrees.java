package dev.trainyard.gitops.preview;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Reads GitOps files as JSON trees for the preview (the only class here that imports Jackson's YAML format).
 * Unlike the compiler's loader it keeps no line and column map: a preview reads thousands of generated
 * files and reports no positions in them, and the map made parsing several times slower. Each text is parsed
 * once per preview (the same JobSet is read for its facts and for its diff). Not thread-safe.
 */
final class YamlTrees {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private final Map<String, Optional<JsonNode>> parsed = new HashMap<>();

  /** The object {@code text} holds, or empty when it is not one YAML object (a list, a scalar, broken YAML). */
  Optional<JsonNode> object(String text) {
    return parsed.computeIfAbsent(text, YamlTrees::parse);
  }

  /** As {@link #object}, but not kept: for texts read once (the metadata blocks of earlier runs). */
  Optional<JsonNode> once(String text) {
    Optional<JsonNode> known = parsed.get(text);
    return known != null ? known : parse(text);
  }

  private static Optional<JsonNode> parse(String text) {
    try {
      JsonNode root = YAML.readTree(text);
      return root != null && root.isObject() ? Optional.of(root) : Optional.empty();
    } catch (JacksonException | RuntimeException e) {
      // Unreadable files are reported as such and never shown: they may be broken Secrets (argo-cd#16193).
      return Optional.empty();
    }
  }
}
