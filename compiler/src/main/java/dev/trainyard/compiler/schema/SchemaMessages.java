package dev.trainyard.compiler.schema;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.source.ParsedDocument;
import dev.trainyard.compiler.source.SourceMap;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Writes our own diagnostic for each schema violation, kpt style ("`nodes` must be at least 1, got
 * 0"), from the violation's structured fields and the schema's own annotations: {@code
 * patternErrorMessage} and {@code errorMessage} (the VS Code / yaml-language-server extensions, so
 * editors show the same words), {@code description}, {@code examples}, {@code properties}. Never
 * prints the validator library's text.
 */
final class SchemaMessages {
  /**
   * Units tried after a bare number, most likely meant first: {@code timeout: 90} is 90 minutes
   * more often than 90 s.
   */
  private static final List<String> DURATION_UNITS = List.of("m", "h", "s", "d");

  private static final Set<String> RANGE_KEYWORDS =
      Set.of(
          "minimum",
          "maximum",
          "exclusiveMinimum",
          "exclusiveMaximum",
          "minLength",
          "maxLength",
          "minItems",
          "maxItems");
  private static final Set<String> BRANCHES = Set.of("then", "else", "if", "not");

  private final JsonNode schema;
  private final ParsedDocument doc;
  private final FieldLabels labels;

  SchemaMessages(JsonNode schema, ParsedDocument doc) {
    this.schema = schema;
    this.doc = doc;
    this.labels = new FieldLabels(doc.root());
  }

  /** One diagnostic per violation left after {@link ViolationTriage}, sorted and de-duplicated. */
  List<Diagnostic> describe(List<SchemaViolation> violations) {
    return ViolationTriage.withoutCascades(violations).stream()
        .map(this::describe)
        .sorted(Diagnostic.ORDER)
        .distinct()
        .toList();
  }

  private Diagnostic describe(SchemaViolation v) {
    String keyword = v.keyword();
    if (keyword.equals("additionalProperties") || keyword.equals("unevaluatedProperties")) {
      return unknownField(v);
    }
    if (keyword.equals("required") || keyword.equals("dependentRequired")) {
      return missingField(v);
    }
    if (keyword.equals("type")) {
      return wrongType(v);
    }
    if (RANGE_KEYWORDS.contains(keyword)) {
      return outOfRange(v);
    }
    return keyword.equals("propertyNames") ? badName(v) : invalidValue(v);
  }

  private Diagnostic unknownField(SchemaViolation v) {
    String pointer = SourceMap.child(v.instancePointer(), v.property());
    List<String> allowed = new ArrayList<>();
    fieldSchema(v.subschemaPointer())
        .path("properties")
        .fieldNames()
        .forEachRemaining(allowed::add);
    String where =
        v.instancePointer().isEmpty() ? "" : " in `" + labels.of(v.instancePointer()) + "`";
    return error(
        DiagnosticCode.UNKNOWN_FIELD,
        doc.map().keyAt(pointer),
        pointer,
        "unknown field `" + v.property() + "`" + where,
        FieldSuggestions.hint(v.property(), allowed));
  }

  private Diagnostic missingField(SchemaViolation v) {
    String pointer = SourceMap.child(v.instancePointer(), v.property());
    String field = "`" + v.property() + "`";
    String message =
        v.instancePointer().isEmpty()
            ? "missing required field " + field
            : "`" + labels.of(v.instancePointer()) + "` is missing required field " + field;
    JsonNode owner = fieldSchema(v.subschemaPointer());
    boolean conditional = BRANCHES.contains(SchemaViolation.lastSegment(v.subschemaPointer()));
    String about =
        conditional
            ? owner.path("description").asText("")
            : owner.path("properties").path(v.property()).path("description").asText("");
    String hint = "add `" + v.property() + ":`" + (about.isEmpty() ? "" : " — " + about);
    return error(DiagnosticCode.MISSING_FIELD, doc.map().at(pointer), pointer, message, hint);
  }

  private Diagnostic wrongType(SchemaViolation v) {
    List<String> expected = new ArrayList<>();
    JsonNode type = schema.at(v.schemaPointer());
    if (type.isArray()) {
      type.forEach(t -> expected.add(t.asText()));
    } else {
      expected.add(type.asText());
    }
    String rule =
        schema
            .at(v.subschemaPointer())
            .path("errorMessage")
            .asText("must be " + TypeWords.expected(expected));
    // writeOnly (JSON Schema's annotation for values never read back) marks where a secret may be
    // written by mistake.
    boolean hidden =
        schema.at(v.subschemaPointer()).path("writeOnly").asBoolean(false)
            && v.instance().isValueNode();
    String got =
        hidden
            ? "a value (not shown: it may be a secret)"
            : TypeWords.actual(v.instance(), doc.map().scalarText(v.instancePointer()));
    String message = subject(v) + " " + rule + ", got " + got;
    // The quote and unquote hints repeat the value, so a hidden one gets the field's description
    // instead.
    return error(
        DiagnosticCode.WRONG_TYPE,
        doc.map().at(v.instancePointer()),
        v.instancePointer(),
        message,
        hidden ? describeField(v) : typeHint(v, expected));
  }

  private String typeHint(SchemaViolation v, List<String> expected) {
    JsonNode value = v.instance();
    boolean wantsNumber = expected.contains("integer") || expected.contains("number");
    String name = labels.leaf(v.instancePointer());
    String text = value.asText().strip();
    if (value.isTextual() && wantsNumber && text.matches("[-+]?[0-9]+(\\.[0-9]+)?")) {
      // In decimal: unquoted, "010" would be octal 8 to YAML 1.1 (E205).
      return "remove the quotes: `" + name + ": " + new BigDecimal(text).toPlainString() + "`";
    }
    if (value.isTextual() && wantsNumber && text.matches("0[ox][0-9a-fA-F]+")) {
      return yaml12Integer(text, name);
    }
    if (value.isNull()) {
      return "give `"
          + labels.of(v.instancePointer())
          + "` a value, or delete the line; write `\"\"` for empty text";
    }
    if (expected.equals(List.of("string")) && (value.isNumber() || value.isBoolean())) {
      return quoteHint(v, name);
    }
    return describeField(v);
  }

  /**
   * The hint for {@code text}, an octal ({@code 0o17}) or hexadecimal ({@code 0x1F}) integer to
   * YAML 1.2's core schema (YAML 1.2.2 §10.3.2) where a number belongs: YAML 1.1 (Trainyard,
   * Kubernetes) reads {@code 0o17} as text; a quoted {@code "0x1F"} is text to both.
   */
  private static String yaml12Integer(String text, String name) {
    boolean octal = text.charAt(1) == 'o';
    if (octal && !text.substring(2).matches("[0-7]+")) {
      return "write `" + name + "` as a decimal number";
    }
    BigInteger number = new BigInteger(text.substring(2), octal ? 8 : 16);
    return (octal
            ? "`"
                + text
                + "` is octal "
                + number
                + " to YAML 1.2 but text to YAML 1.1 (Trainyard,"
                + " Kubernetes); "
            : "")
        + "write it in decimal: `"
        + name
        + ": "
        + number
        + "`";
  }

  /**
   * "Quote it", unless the quoted text would break the field's {@code pattern} too (a bare {@code
   * timeout: 90}): then the same number with the first unit the pattern accepts, so the hint always
   * leads to a valid value.
   */
  private String quoteHint(SchemaViolation v, String name) {
    String text = scalar(v);
    String pattern = fieldSchema(v.subschemaPointer()).path("pattern").asText("");
    if (pattern.isEmpty() || Pattern.compile(pattern).matcher(text).find()) {
      return "quote it to keep it as text: `" + name + ": \"" + text + "\"`";
    }
    String rule =
        fieldSchema(v.subschemaPointer()).path("patternErrorMessage").asText(describeField(v));
    for (String unit : DURATION_UNITS) {
      if (Pattern.compile(pattern).matcher(text + unit).find()) {
        return "a number alone has no unit; `"
            + name
            + "` "
            + rule
            + ", e.g. `"
            + name
            + ": "
            + text
            + unit
            + "`";
      }
    }
    return rule;
  }

  private Diagnostic outOfRange(SchemaViolation v) {
    String bound = schema.at(v.schemaPointer()).asText();
    String message =
        subject(v) + " " + RangeWords.sentence(v.keyword(), bound, v.instance(), scalar(v));
    JsonNode owner = schema.at(v.subschemaPointer());
    String hint =
        owner.has("minimum") && owner.has("maximum")
            ? "`"
                + labels.of(v.instancePointer())
                + "` accepts "
                + owner.get("minimum").asText()
                + " to "
                + owner.get("maximum").asText()
            : describeField(v);
    return error(
        DiagnosticCode.OUT_OF_RANGE,
        doc.map().at(v.instancePointer()),
        v.instancePointer(),
        message,
        hint);
  }

  private Diagnostic badName(SchemaViolation v) {
    String pointer = SourceMap.child(v.instancePointer(), v.property());
    JsonNode names = schema.at(v.schemaPointer());
    String rule =
        names
            .path("patternErrorMessage")
            .asText("must match the pattern `" + names.path("pattern").asText() + "`");
    String message = "`" + labels.of(v.instancePointer()) + "` name `" + v.property() + "` " + rule;
    return error(
        DiagnosticCode.INVALID_VALUE,
        doc.map().keyAt(pointer),
        pointer,
        message,
        "rename `" + v.property() + "`; " + describeField(v));
  }

  private Diagnostic invalidValue(SchemaViolation v) {
    JsonNode owner = schema.at(v.subschemaPointer());
    String rule =
        switch (v.keyword()) {
          case "pattern" ->
              owner
                  .path("patternErrorMessage")
                  .asText(
                      owner
                          .path("errorMessage")
                          .asText(
                              "must match the pattern `" + owner.path("pattern").asText() + "`"));
          case "enum" ->
              owner.path("errorMessage").asText("must be one of " + listed(owner.path("enum")));
          case "const" ->
              owner.path("errorMessage").asText("must be `" + owner.path("const").asText() + "`");
          default ->
              owner
                  .path("errorMessage")
                  .asText("is not valid here (schema rule `" + v.keyword() + "`)");
        };
    boolean scalar = v.instance().isValueNode();
    String message = subject(v) + " " + rule + (scalar ? ", got " + quoted(v) : "");
    return error(
        DiagnosticCode.INVALID_VALUE,
        doc.map().at(v.instancePointer()),
        v.instancePointer(),
        message,
        examplesHint(v));
  }

  private String examplesHint(SchemaViolation v) {
    List<String> shown = new ArrayList<>();
    for (JsonNode example : fieldSchema(v.subschemaPointer()).path("examples")) {
      if (example.isValueNode() && shown.size() < 3) {
        shown.add("`" + example.asText() + "`");
      }
    }
    return shown.isEmpty() ? describeField(v) : "for example " + String.join(", ", shown);
  }

  /** The field's schema description, else where to read what it accepts (never no hint). */
  private String describeField(SchemaViolation v) {
    String description = fieldSchema(v.subschemaPointer()).path("description").asText("");
    if (!description.isBlank()) {
      return description;
    }
    String id = schema.path("$id").asText("");
    String field = "`" + labels.of(v.instancePointer()) + "`";
    String file = id.substring(id.lastIndexOf('/') + 1);
    return switch (file) {
      case "train.v1.schema.json" -> "`trainyard schema` shows what " + field + " accepts";
      case "platform.v1.schema.json", "runtime.v1.schema.json" ->
          "docs/platform-guide.md says what " + field + " accepts";
      case "controller.v1.schema.json" -> "docs/controller.md says what " + field + " accepts";
      case "" -> "";
      default -> "what " + field + " accepts: see " + id;
    };
  }

  /**
   * The schema of the field itself: the keyword's schema object, out of {@code then}/{@code
   * else}/{@code not}.
   */
  private JsonNode fieldSchema(String subschemaPointer) {
    String pointer = subschemaPointer;
    while (!pointer.isEmpty() && BRANCHES.contains(SchemaViolation.lastSegment(pointer))) {
      pointer = SchemaViolation.parentOf(pointer);
    }
    return schema.at(pointer);
  }

  private String subject(SchemaViolation v) {
    return v.instancePointer().isEmpty() ? "the file" : "`" + labels.of(v.instancePointer()) + "`";
  }

  private String scalar(SchemaViolation v) {
    return doc.map().scalarText(v.instancePointer()).orElse(v.instance().asText());
  }

  private String quoted(SchemaViolation v) {
    return v.instance().isTextual() ? TypeWords.quote(v.instance().asText()) : scalar(v);
  }

  private static String listed(JsonNode values) {
    List<String> out = new ArrayList<>();
    values.forEach(value -> out.add("`" + value.asText() + "`"));
    return String.join(", ", out);
  }

  private static Diagnostic error(
      DiagnosticCode code, SourceLocation at, String pointer, String message, String hint) {
    return Diagnostic.error(code, at, pointer, message).withHint(hint);
  }
}
