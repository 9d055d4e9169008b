package dev.trainyard.compiler.schema;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.source.ParsedDocument;
import java.util.List;

/**
 * The schema stage: checks a parsed document against a JSON Schema and reports every violation at
 * once.
 *
 * <p>Codes: {@code E201} unknown field (at the key, with a "did you mean" hint), {@code E202} wrong
 * type, {@code E203} missing field, {@code E204} out of range (numbers and lengths), {@code E205}
 * invalid value (pattern, enum, const). Example:
 *
 * <pre>
 * train.yaml:2:8: error[E204]: `nodes` must be at least 1, got 0
 *     at /nodes
 *     hint: `nodes` accepts 1 to 1024
 * </pre>
 */
public interface SchemaValidator {
  /**
   * @return every violation as an error diagnostic located at the offending value (unknown fields:
   *     at the key), sorted by {@link Diagnostic#ORDER} and de-duplicated; empty when the document
   *     is valid
   * @throws IllegalStateException when the schema itself is missing from the jar or invalid (a
   *     build bug)
   */
  List<Diagnostic> validate(ParsedDocument doc, SchemaId schema);
}
