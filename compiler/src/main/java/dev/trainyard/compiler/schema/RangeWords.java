package dev.trainyard.compiler.schema;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The sentence for a range keyword: "must be at least 1, got 0", "must be at most 63 characters
 * long, got 70".
 */
final class RangeWords {
  private RangeWords() {}

  /**
   * @param keyword {@code minimum}, {@code maximum}, {@code exclusiveMinimum}, {@code
   *     exclusiveMaximum}, {@code minLength}, {@code maxLength}, {@code minItems} or {@code
   *     maxItems}
   * @param bound the schema's limit as text
   * @param value the user's value
   * @param asWritten the user's value as written (numbers keep their YAML text)
   */
  static String sentence(String keyword, String bound, JsonNode value, String asWritten) {
    return switch (keyword) {
      case "minimum" -> "must be at least " + bound + ", got " + asWritten;
      case "maximum" -> "must be at most " + bound + ", got " + asWritten;
      case "exclusiveMinimum" -> "must be greater than " + bound + ", got " + asWritten;
      case "exclusiveMaximum" -> "must be less than " + bound + ", got " + asWritten;
      case "minLength" ->
          bound.equals("1")
              ? "must not be empty"
              : "must be at least "
                  + bound
                  + " characters long, got "
                  + length(value)
                  + " ("
                  + TypeWords.quote(value.asText())
                  + ")";
      case "maxLength" ->
          "must be at most "
              + bound
              + " characters long, got "
              + length(value)
              + " ("
              + TypeWords.quote(value.asText())
              + ")";
      case "minItems" -> "must have at least " + bound + " items, got " + value.size();
      default -> "must have at most " + bound + " items, got " + value.size();
    };
  }

  private static int length(JsonNode value) {
    String text = value.asText();
    return text.codePointCount(0, text.length());
  }
}
