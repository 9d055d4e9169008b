package dev.trainyard.compiler.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The shipped train.yaml schema, read from the classpath as the CLI reads it. */
class TrainSchemaTest {
  private static JsonNode schema() throws Exception {
    try (InputStream in =
        TrainSchemaTest.class.getClassLoader().getResourceAsStream(SchemaId.TRAIN_V1.resource())) {
      return new ObjectMapper().readTree(in);
    }
  }

  @Test
  @DisplayName("the schema is valid JSON Schema 2020-12 (meta-validated)")
  void metaValid() throws Exception {
    var meta =
        JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
            .getSchema(SchemaLocation.of("https://json-schema.org/draft/2020-12/schema"));
    Set<ValidationMessage> errors = meta.validate(schema());
    assertEquals(Set.of(), errors);
    assertEquals("https://json-schema.org/draft/2020-12/schema", schema().get("$schema").asText());
    assertEquals(
        "https://trainyard.dev/schemas/train.v1.schema.json", schema().get("$id").asText());
  }

  @Test
  @DisplayName(
      "every field has title, description and examples, every object forbids unknown fields,"
          + " and every pattern compiles")
  void editorFriendly() throws Exception {
    List<String> problems = new ArrayList<>();
    walk("", schema(), problems);
    assertEquals(List.of(), problems);
  }

  @Test
  @DisplayName("only `run` is required at the top level")
  void onlyRunRequired() throws Exception {
    assertEquals("[\"run\"]", schema().get("required").toString());
    assertFalse(schema().get("properties").get("nodes").has("required"));
  }

  private static void walk(String at, JsonNode node, List<String> problems) {
    for (Map.Entry<String, JsonNode> field : iterable(node.path("properties"))) {
      JsonNode property = field.getValue();
      String path = at + "/" + field.getKey();
      for (String annotation : List.of("title", "description", "examples")) {
        if (!property.has(annotation)) {
          problems.add(path + " lacks " + annotation);
        }
      }
      checkObject(path, property, problems);
      checkObject(path + "[]", property.path("items"), problems);
      walk(path, property, problems);
      walk(path + "[]", property.path("items"), problems);
    }
    node.findValues("pattern").forEach(p -> Pattern.compile(p.asText()));
  }

  private static void checkObject(String path, JsonNode schema, List<String> problems) {
    if (schema.path("type").asText().equals("object") && !schema.has("additionalProperties")) {
      problems.add(path + " allows unknown fields");
    }
    if (schema.path("type").asText().equals("object") && schema.has("properties")) {
      assertTrue(
          schema.path("additionalProperties").isBoolean()
              || schema.path("additionalProperties").isObject());
    }
  }

  private static Iterable<Map.Entry<String, JsonNode>> iterable(JsonNode node) {
    return node.properties();
  }
}
