package dev.trainyard.compiler.secrets;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.manifest.CanonicalJson;
import java.util.Map;

/** Builders of the tree parts that every sealed form shares, keys inserted in sorted order. */
final class SecretNodes {
  private SecretNodes() {}

  /** An empty object node from the shared mapper. */
  static ObjectNode object() {
    return CanonicalJson.mapper().createObjectNode();
  }

  /** {@code {annotations?, labels?, name, namespace}}; empty maps are left out. */
  static ObjectNode metadata(UnsealedSecret secret) {
    ObjectNode metadata = object();
    putMapIfAny(metadata, "annotations", secret.annotations());
    putMapIfAny(metadata, "labels", secret.labels());
    metadata.put("name", secret.name());
    metadata.put("namespace", secret.namespace());
    return metadata;
  }

  /** Sets {@code field} to a string map (iterated in the map's order) unless the map is empty. */
  static void putMapIfAny(ObjectNode parent, String field, Map<String, String> values) {
    if (!values.isEmpty()) {
      ObjectNode node = parent.putObject(field);
      values.forEach(node::put);
    }
  }
}
