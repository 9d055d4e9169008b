package dev.trainyard.compiler.schema;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Drops cascade noise so each mistake yields one message: once a value has the wrong type, nothing
 * else about it is reported (its {@code if}/{@code then} branches would fail vacuously).
 *
 * <p>A failed {@code anyOf}/{@code oneOf} needs no rule here: networknt 1.5.9 reports it as its
 * branches' own violations only (one {@code type} per branch, each kept), never as a violation of
 * the combinator; train.v1 uses {@code anyOf} only under {@code not}, which is reported as the
 * {@code not}.
 */
final class ViolationTriage {
  private ViolationTriage() {}

  static List<SchemaViolation> withoutCascades(List<SchemaViolation> all) {
    Set<String> mistyped =
        all.stream()
            .filter(v -> v.keyword().equals("type"))
            .map(SchemaViolation::instancePointer)
            .collect(Collectors.toSet());
    return all.stream()
        .filter(v -> v.keyword().equals("type") || !mistyped.contains(v.instancePointer()))
        .toList();
  }
}
