package dev.trainyard.compiler.schema;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.source.SourceMap;

/**
 * Names a field the way a user reads it: {@code /resources/gpus} → {@code resources.gpus}, {@code
 * /secrets/0/name} → {@code secrets[0].name}, {@code /env/A~1B} → {@code env.A/B}.
 */
final class FieldLabels {
  private final JsonNode root;

  FieldLabels(JsonNode root) {
    this.root = root;
  }

  /** The dotted label of an RFC 6901 pointer; list indexes in brackets. */
  String of(String pointer) {
    StringBuilder label = new StringBuilder();
    JsonNode node = root;
    for (String raw : segments(pointer)) {
      String name = unescape(raw);
      if (node.isArray()) {
        label.append('[').append(name).append(']');
      } else {
        label.append(label.length() == 0 ? "" : ".").append(name);
      }
      node = node.isArray() ? node.path(parseIndex(name)) : node.path(name);
    }
    return label.toString();
  }

  /** The last member name of a pointer ({@code /resources/gpus} → {@code gpus}). */
  String leaf(String pointer) {
    return SourceMap.leaf(pointer);
  }

  private static String[] segments(String pointer) {
    return pointer.isEmpty() ? new String[0] : pointer.substring(1).split("/", -1);
  }

  private static String unescape(String segment) {
    return segment.replace("~1", "/").replace("~0", "~");
  }

  private static int parseIndex(String name) {
    try {
      return Integer.parseInt(name);
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
