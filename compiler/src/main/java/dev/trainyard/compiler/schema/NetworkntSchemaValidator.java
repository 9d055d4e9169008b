package dev.trainyard.compiler.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonNodePath;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.PathType;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.source.ParsedDocument;
import dev.trainyard.compiler.source.SourceMap;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@link SchemaValidator} on networknt json-schema-validator 1.5.9, JSON Schema 2020-12; the only
 * class that imports it. Schemas are read from the classpath ({@link SchemaId#resource()}) and
 * compiled on first use, then cached, so commands that never validate never load the library.
 * Thread-safe.
 *
 * <pre>
 * List&lt;Diagnostic&gt; problems = new NetworkntSchemaValidator().validate(doc, SchemaId.TRAIN_V1);
 * </pre>
 */
public final class NetworkntSchemaValidator implements SchemaValidator {
  private final Map<SchemaId, Compiled> cache = new ConcurrentHashMap<>();

  private record Compiled(JsonSchema schema, JsonNode document) {}

  @Override
  public List<Diagnostic> validate(ParsedDocument doc, SchemaId schemaId) {
    Compiled compiled = cache.computeIfAbsent(schemaId, NetworkntSchemaValidator::compile);
    List<SchemaViolation> violations =
        compiled.schema().validate(doc.root()).stream()
            .map(NetworkntSchemaValidator::toViolation)
            .toList();
    return new SchemaMessages(compiled.document(), doc).describe(violations);
  }

  private static SchemaViolation toViolation(ValidationMessage message) {
    return new SchemaViolation(
        message.getType(),
        pointer(message.getInstanceLocation()),
        pointer(message.getSchemaLocation().getFragment()),
        property(message),
        message.getInstanceNode());
  }

  /**
   * The member concerned. For {@code dependentRequired} networknt 1.5.9 names the member that is
   * present as the property and the missing one as the first argument ({@code [missing, present]});
   * we want the missing one.
   */
  private static String property(ValidationMessage message) {
    // networknt always gives dependentRequired its two arguments.
    return message.getType().equals("dependentRequired")
        ? String.valueOf(message.getArguments()[0])
        : message.getProperty();
  }

  /**
   * Our RFC 6901 pointer from the library's path elements (names, and list indexes as Integers,
   * whose text needs no escaping).
   */
  private static String pointer(JsonNodePath path) {
    String pointer = "";
    for (int i = 0; i < path.getNameCount(); i++) {
      pointer = SourceMap.child(pointer, String.valueOf(path.getElement(i)));
    }
    return pointer;
  }

  private static Compiled compile(SchemaId id) {
    JsonNode document = read(id);
    SchemaValidatorsConfig config =
        SchemaValidatorsConfig.builder()
            .failFast(false)
            .pathType(PathType.JSON_POINTER)
            .formatAssertionsEnabled(true)
            .build();
    JsonSchema schema =
        JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(document, config);
    schema.initializeValidators();
    return new Compiled(schema, document);
  }

  private static JsonNode read(SchemaId id) {
    ClassLoader loader = NetworkntSchemaValidator.class.getClassLoader();
    try (InputStream in = loader.getResourceAsStream(id.resource())) {
      if (in == null) {
        throw new IllegalStateException(
            "schema " + id.resource() + " is not on the classpath (a packaging bug)");
      }
      return new ObjectMapper().readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read schema " + id.resource(), e);
    }
  }
}
