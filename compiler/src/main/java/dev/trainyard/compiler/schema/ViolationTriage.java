package dev.trainyard.compiler.schema;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Drops cascade noise so each mistake yields one message: once a value has the wrong type, nothing else
 * about it is reported (its {@code if}/{@code then} branches would fail vacuously); inside a failed
 * {@code anyOf}/{@code oneOf} only the combinator's own violation is kept, never one per branch.
 */
final class ViolationTriage {
  private ViolationTriage() {}

  static List<SchemaViolation> withoutCascades(List<SchemaViolation> all) {
    Set<String> mistyped = all.stream()
        .filter(v -> v.keyword().equals("type"))
        .map(SchemaViolation::instancePointer)
        .collect(Collectors.toSet());
    List<String> combinators = all.stream()
        .filter(v -> SchemaViolation.COMBINATORS.contains(v.keyword()))
        .map(SchemaViolation::schemaPointer)
        .toList();
    return all.stream()
        .filter(v -> v.keyword().equals("type") || !mistyped.contains(v.instancePointer()))
        .filter(v -> combinators.stream().noneMatch(c -> v.schemaPointer().startsWith(c + "/")))
        .toList();
  }
}
