package dev.trainyard.compiler.schema;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One failed schema keyword, in library-neutral terms.
 *
 * @param keyword the JSON Schema keyword that failed ({@code type}, {@code minimum}, {@code
 *     required}, …)
 * @param instancePointer RFC 6901 pointer of the value in the document ({@code /resources/gpus})
 * @param schemaPointer pointer of the keyword inside the schema document ({@code
 *     /properties/nodes/minimum})
 * @param property the member concerned, for {@code required}, {@code additionalProperties} and
 *     {@code propertyNames}; else null
 * @param instance the offending value
 */
record SchemaViolation(
    String keyword,
    String instancePointer,
    String schemaPointer,
    String property,
    JsonNode instance) {

  /** The pointer of the schema object that holds the keyword ({@code /properties/nodes}). */
  String subschemaPointer() {
    return parentOf(schemaPointer);
  }

  static String parentOf(String pointer) {
    return pointer.substring(0, Math.max(0, pointer.lastIndexOf('/')));
  }

  static String lastSegment(String pointer) {
    return pointer.substring(pointer.lastIndexOf('/') + 1);
  }
}
