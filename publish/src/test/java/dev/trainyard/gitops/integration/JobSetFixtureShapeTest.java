package dev.trainyard.gitops.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The health-check fixtures and the Lua script use only what JobSet v0.12.0 declares: every field
 * of the fixtures is in the real CRD's v1alpha2 schema, condition statuses are in its enum, and
 * every condition type the script reads is a constant of {@code
 * api/jobset/v1alpha2/jobset_types.go}. Read from the Go module cache; not run (assumption) when
 * the module has not been downloaded.
 */
class JobSetFixtureShapeTest {
  static final List<String> FIXTURES =
      List.of(
          "created",
          "queued",
          "preempted",
          "running",
          "restarting",
          "restarted",
          "completed",
          "failed",
          "failed-max-restarts");

  static Path module;

  @BeforeAll
  static void findModule() {
    module = JobSetModule.dir().orElse(null);
  }

  @Test
  @DisplayName(
      "every field of every JobSet fixture is declared by the JobSet v0.12.0 CRD (v1alpha2)")
  void fixturesMatchCrd() throws IOException {
    JsonNode schema = v1alpha2Schema();
    List<String> undeclared = new ArrayList<>();
    for (String name : FIXTURES) {
      JsonNode jobSet = JobSetHealthTest.fixture(name);
      assertEquals("jobset.x-k8s.io/v1alpha2", jobSet.path("apiVersion").asText(), name);
      for (String top : List.of("spec", "status")) {
        undeclaredFields(
            name + ":" + top, jobSet.path(top), schema.at("/properties/" + top), undeclared);
      }
    }
    assertEquals(List.of(), undeclared);
  }

  @Test
  @DisplayName(
      "fixture condition statuses are in the CRD's enum and condition types are JobSet constants")
  void conditionsAreReal() throws IOException {
    JsonNode conditionSchema =
        v1alpha2Schema().at("/properties/status/properties/conditions/items/properties");
    JsonNode statusEnum = conditionSchema.at("/status/enum");
    assertTrue(
        statusEnum.isArray() && statusEnum.size() > 0, "no enum for condition status in the CRD");
    String types = JobSetModule.read(module, JobSetModule.TYPES);
    for (String name : FIXTURES) {
      for (JsonNode condition : JobSetHealthTest.fixture(name).at("/status/conditions")) {
        assertTrue(
            contains(statusEnum, condition.path("status").asText()), name + ": " + condition);
        assertTrue(
            types.contains("JobSetConditionType = \"" + condition.path("type").asText() + "\""),
            name + ": " + condition);
      }
    }
    for (String scriptType : List.of("Completed", "Failed", "Suspended", "RestartingJobSet")) {
      assertTrue(JobSetHealthTest.SCRIPT.contains("\"" + scriptType + "\""), scriptType);
      assertTrue(types.contains("JobSetConditionType = \"" + scriptType + "\""), scriptType);
    }
  }

  @Test
  @DisplayName(
      "status.restarts, spec.suspend and failurePolicy.maxRestarts have the types the script assumes")
  void fieldTypes() throws IOException {
    JsonNode schema = v1alpha2Schema();
    assertEquals("integer", schema.at("/properties/status/properties/restarts/type").asText());
    assertEquals("boolean", schema.at("/properties/spec/properties/suspend/type").asText());
    assertEquals(
        "integer",
        schema
            .at("/properties/spec/properties/failurePolicy/properties/maxRestarts/type")
            .asText());
  }

  private static JsonNode v1alpha2Schema() throws IOException {
    assumeTrue(
        module != null,
        "not run: "
            + JobSetModule.MODULE
            + " is not in the Go module cache"
            + " (run: go mod download "
            + JobSetModule.MODULE
            + ")");
    JsonNode crd = RepoFiles.parseDocuments(JobSetModule.read(module, JobSetModule.CRD)).get(0);
    for (JsonNode version : crd.at("/spec/versions")) {
      if ("v1alpha2".equals(version.path("name").asText())) {
        return version.at("/schema/openAPIV3Schema");
      }
    }
    throw new IllegalStateException("no v1alpha2 in " + JobSetModule.CRD);
  }

  /** Walks a fixture value beside its schema; lists paths the schema does not declare. */
  private static void undeclaredFields(
      String path, JsonNode value, JsonNode schema, List<String> out) {
    if (schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)) {
      return;
    }
    if (value.isObject()) {
      JsonNode properties = schema.path("properties");
      boolean opaqueMap = properties.isMissingNode() && schema.has("additionalProperties");
      for (Map.Entry<String, JsonNode> field : value.properties()) {
        if (opaqueMap) {
          continue;
        }
        if (!properties.has(field.getKey())) {
          out.add(path + "." + field.getKey());
        } else {
          undeclaredFields(
              path + "." + field.getKey(), field.getValue(), properties.get(field.getKey()), out);
        }
      }
    } else if (value.isArray()) {
      for (int i = 0; i < value.size(); i++) {
        undeclaredFields(path + "[" + i + "]", value.get(i), schema.path("items"), out);
      }
    }
  }

  private static boolean contains(JsonNode array, String text) {
    for (JsonNode item : array) {
      if (text.equals(item.asText())) {
        return true;
      }
    }
    return false;
  }
}
