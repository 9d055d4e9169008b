package dev.trainyard.compiler.schema;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A JSON Schema shipped in the jar under {@code trainyard/schemas/<file>} (the repo folder {@code
 * schemas/}, packaged by {@code compiler/pom.xml}).
 *
 * <pre>
 * validator.validate(doc, SchemaId.TRAIN_V1);
 * </pre>
 *
 * @param file the file name inside {@code schemas/}, e.g. {@code train.v1.schema.json}; no folders
 */
public record SchemaId(String file) {
  // Declared before TRAIN_V1: static fields initialize in order.
  private static final Pattern FILE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*\\.json");

  /** {@code train.yaml} contract v1. */
  public static final SchemaId TRAIN_V1 = new SchemaId("train.v1.schema.json");

  public SchemaId {
    Objects.requireNonNull(file, "file");
    if (!FILE_NAME.matcher(file).matches()) {
      throw new IllegalArgumentException("schema file must be a plain *.json name, got " + file);
    }
  }

  /** The classpath resource, e.g. {@code trainyard/schemas/train.v1.schema.json}. */
  public String resource() {
    return "trainyard/schemas/" + file;
  }
}
