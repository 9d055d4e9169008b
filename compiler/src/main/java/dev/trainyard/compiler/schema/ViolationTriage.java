package dev.trainyard.compiler.schema;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Drops cascade noise so each mistake yields one message: once a value has the wrong type, nothing
 * else about it is reported (its {@code if}/{@code then} branches would fail vacuously); once a
 * string is empty where it must not be ({@code minLength}), its {@code pattern} or {@code format}
 * is not reported too ({@code image: ""} was E204 "must not be empty" and E205 "must be a container
 * image reference … got \"\"").
 *
 * <p>A failed {@code anyOf}/{@code oneOf} needs no rule here: networknt 1.5.9 reports it as its
 * branches' own violations only (one {@code type} per branch, each kept), never as a violation of
 * the combinator; train.v1 uses {@code anyOf} only under {@code not}, which is reported as the
 * {@code not}.
 */
final class ViolationTriage {
  /** What a string's content must look like: moot for an empty string already reported. */
  private static final Set<String> SHAPE = Set.of("pattern", "format");

  private ViolationTriage() {}

  static List<SchemaViolation> withoutCascades(List<SchemaViolation> all) {
    Set<String> mistyped =
        all.stream()
            .filter(v -> v.keyword().equals("type"))
            .map(SchemaViolation::instancePointer)
            .collect(Collectors.toSet());
    Set<String> empty =
        all.stream()
            .filter(v -> v.keyword().equals("minLength") && v.instance().asText("x").isEmpty())
            .map(SchemaViolation::instancePointer)
            .collect(Collectors.toSet());
    return all.stream()
        .filter(v -> v.keyword().equals("type") || !mistyped.contains(v.instancePointer()))
        .filter(v -> !SHAPE.contains(v.keyword()) || !empty.contains(v.instancePointer()))
        .toList();
  }
}
