package dev.trainyard.compiler.source;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds a Jackson tree from a token stream while recording where every key and value starts, and
 * reports duplicate keys (Jackson's own tree reader would silently keep the last one).
 *
 * <p>Format-neutral: it sees only {@link JsonParser} tokens, so YAML specifics stay in {@link
 * YamlDocumentLoader}. Nesting depth is bounded by the parser's {@code StreamReadConstraints},
 * which also bounds this class's recursion.
 */
final class TreeBuilder {
  private final JsonParser parser;
  private final String file;
  private final Map<String, SourceLocation> values = new HashMap<>();
  private final Map<String, SourceLocation> keys = new HashMap<>();
  private final Map<String, String> scalarTexts = new HashMap<>();
  private final List<Diagnostic> diagnostics = new ArrayList<>();

  TreeBuilder(JsonParser parser, String file) {
    this.parser = parser;
    this.file = file;
  }

  /**
   * Reads the value whose first token is the parser's current token; records it under {@code
   * pointer}.
   */
  JsonNode readValue(String pointer) throws IOException {
    values.put(pointer, here());
    JsonToken token = parser.currentToken();
    return switch (token) {
      case START_OBJECT -> readObject(pointer);
      case START_ARRAY -> readArray(pointer);
      case VALUE_STRING -> JsonNodeFactory.instance.textNode(parser.getText());
      default -> readScalar(pointer, token);
    };
  }

  /** Everything recorded so far, as a {@link SourceMap}. */
  SourceMap sourceMap() {
    return new SourceMap(file, values, keys, scalarTexts);
  }

  /** Duplicate keys found so far, in document order. */
  List<Diagnostic> diagnostics() {
    return List.copyOf(diagnostics);
  }

  private ObjectNode readObject(String pointer) throws IOException {
    ObjectNode object = JsonNodeFactory.instance.objectNode();
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String name = parser.currentName();
      String child = SourceMap.child(pointer, name);
      SourceLocation keyAt = here();
      parser.nextToken();
      if (object.has(name)) {
        diagnostics.add(duplicate(name, child, keyAt));
        parser.skipChildren();
        continue;
      }
      keys.put(child, keyAt);
      object.set(name, readValue(child));
    }
    return object;
  }

  private ArrayNode readArray(String pointer) throws IOException {
    ArrayNode array = JsonNodeFactory.instance.arrayNode();
    while (parser.nextToken() != JsonToken.END_ARRAY) {
      array.add(readValue(SourceMap.child(pointer, array.size())));
    }
    return array;
  }

  private JsonNode readScalar(String pointer, JsonToken token) throws IOException {
    scalarTexts.put(pointer, parser.getText());
    JsonNodeFactory nodes = JsonNodeFactory.instance;
    return switch (token) {
      case VALUE_TRUE -> nodes.booleanNode(true);
      case VALUE_FALSE -> nodes.booleanNode(false);
      case VALUE_NULL -> nodes.nullNode();
      case VALUE_NUMBER_INT ->
          switch (parser.getNumberType()) {
            case INT -> nodes.numberNode(parser.getIntValue());
            case LONG -> nodes.numberNode(parser.getLongValue());
            default -> nodes.numberNode(parser.getBigIntegerValue());
          };
      case VALUE_NUMBER_FLOAT -> nodes.numberNode(parser.getDoubleValue());
      default -> nodes.textNode(parser.getText());
    };
  }

  private Diagnostic duplicate(String name, String pointer, SourceLocation second) {
    SourceLocation first = keys.get(pointer);
    return Diagnostic.error(
            DiagnosticCode.DUPLICATE_KEY,
            second,
            pointer,
            "`" + name + "` is defined twice; the first one is at line " + first.line())
        .withHint(
            "delete one of the two `" + name + ":` lines (YAML keeps only one of them, silently)");
  }

  private SourceLocation here() {
    JsonLocation at = parser.currentTokenLocation();
    return new SourceLocation(file, Math.max(0, at.getLineNr()), Math.max(0, at.getColumnNr()));
  }
}
