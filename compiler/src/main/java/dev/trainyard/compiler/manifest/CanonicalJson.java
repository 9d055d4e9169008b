package dev.trainyard.compiler.manifest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * One shared Jackson mapper for trees, and a canonical form (keys sorted at every level, compact
 * JSON, UTF-8) for content digests such as {@code trainyard.dev/runtime-digest}.
 */
public final class CanonicalJson {
  private static final ObjectMapper MAPPER =
      new ObjectMapper().enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);

  private CanonicalJson() {}

  /** The shared mapper; create nodes with it, never configure it. */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /** A deep copy of {@code node} whose object keys are sorted at every level. */
  public static JsonNode sorted(JsonNode node) {
    if (node.isObject()) {
      ObjectNode out = MAPPER.createObjectNode();
      List<String> names = new ArrayList<>();
      node.fieldNames().forEachRemaining(names::add);
      names.sort(String::compareTo);
      names.forEach(n -> out.set(n, sorted(node.get(n))));
      return out;
    }
    if (node.isArray()) {
      ArrayNode out = MAPPER.createArrayNode();
      node.forEach(item -> out.add(sorted(item)));
      return out;
    }
    return node;
  }

  /** {@code sha256:<64 hex>} of the canonical JSON of {@code node}. */
  public static String sha256(JsonNode node) {
    try {
      byte[] bytes = MAPPER.writeValueAsString(sorted(node)).getBytes(StandardCharsets.UTF_8);
      return "sha256:"
          + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (JsonProcessingException | NoSuchAlgorithmException e) {
      throw new IllegalStateException("cannot digest a JSON tree", e);
    }
  }

  /** Hex SHA-256 of a UTF-8 string. */
  public static String sha256Hex(String text) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JDK", e);
    }
  }
}
