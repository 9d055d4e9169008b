package dev.trainyard.compiler.schema;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Optional;

/** Words for JSON Schema types and YAML values in messages: "an integer", "got string \"two\"". */
final class TypeWords {
  private static final int MAX_QUOTED = 60;

  private TypeWords() {}

  /**
   * {@code [integer]} → "an integer"; {@code [string, number, boolean]} → "a string, a number or a
   * boolean".
   */
  static String expected(List<String> types) {
    List<String> words = types.stream().map(TypeWords::article).toList();
    if (words.size() == 1) {
      return words.get(0);
    }
    return String.join(", ", words.subList(0, words.size() - 1))
        + " or "
        + words.get(words.size() - 1);
  }

  /**
   * What the user wrote, with its YAML type: {@code string "two"}, {@code integer 3}, {@code a
   * list}.
   */
  static String actual(JsonNode value, Optional<String> asWritten) {
    String text = asWritten.orElse(value.asText());
    if (value.isTextual()) {
      return "string " + quote(value.asText());
    }
    if (value.isIntegralNumber()) {
      return "integer " + text;
    }
    if (value.isNumber()) {
      return "number " + text;
    }
    if (value.isBoolean()) {
      return "boolean " + text;
    }
    if (value.isNull()) {
      return "null (an empty value)";
    }
    return value.isArray() ? "a list" : "a mapping";
  }

  /**
   * {@code "value"} with quotes and backslashes escaped, shortened with {@code …} past 60
   * characters.
   */
  static String quote(String text) {
    String shown = text.length() > MAX_QUOTED ? text.substring(0, MAX_QUOTED) + "…" : text;
    return "\"" + shown.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
  }

  private static String article(String type) {
    return switch (type) {
      case "integer" -> "an integer";
      case "number" -> "a number";
      case "string" -> "a string";
      case "boolean" -> "a boolean";
      case "object" -> "a mapping";
      case "array" -> "a list";
      case "null" -> "null";
      default -> "a " + type;
    };
  }
}
