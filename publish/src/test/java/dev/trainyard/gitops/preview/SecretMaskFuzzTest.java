package dev.trainyard.gitops.preview;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * Jazzer on the preview's YAML masking ({@link SecretMask#maskedYaml}): a Secret (or a List holding
 * one) with fuzzed names, keys and surrounding fields, whose every data and stringData value
 * carries a marker (no other text holds it); the masked YAML never contains the marker, and masking
 * never throws. Corpus: {@code SecretMaskFuzzTestInputs/maskedYaml/}.
 */
class SecretMaskFuzzTest {
  private static final String MARKER = "S3CR3T";
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** The entry point standalone Jazzer ({@code bench/fuzz}) calls. */
  public static void fuzzerTestOneInput(FuzzedDataProvider data) {
    ObjectNode secret = NODES.objectNode();
    secret.put("apiVersion", data.consumeBoolean() ? "v1" : text(data, 8));
    secret.put("kind", "Secret");
    secret.putObject("metadata").put("name", text(data, 40));
    for (String field : List.of("data", "stringData")) {
      if (data.consumeBoolean()) {
        ObjectNode values = secret.putObject(field);
        for (int i = data.consumeInt(0, 4); i > 0; i--) {
          values.put(text(data, 20), MARKER + data.consumeString(40));
        }
      }
    }
    for (int i = data.consumeInt(0, 3); i > 0; i--) {
      String field = text(data, 12);
      // Any field but kind: an object whose kind is not Secret is no Secret (the fuzzer once made
      // it a list, and its stringData rightly passed unmasked).
      if (!field.equals("kind")) {
        secret.set(field, value(data, 3));
      }
    }
    JsonNode doc = secret;
    if (data.consumeBoolean()) {
      ObjectNode list = NODES.objectNode().put("apiVersion", "v1").put("kind", "List");
      list.putArray("items").add(value(data, 2)).add(secret);
      doc = list;
    }
    String masked = SecretMask.maskedYaml(List.of(doc, value(data, 3)));
    if (masked.contains(MARKER)) {
      throw new AssertionError("a Secret value reached the masked YAML:\n" + masked);
    }
  }

  /**
   * Fuzzed text that is not Secret data, without the marker (a name or an unrelated field may be
   * anything but that).
   */
  private static String text(FuzzedDataProvider data, int max) {
    String text = data.consumeString(max);
    while (text.contains(MARKER)) {
      text = text.replace(MARKER, "");
    }
    return text;
  }

  /** A fuzzed value: text, number, boolean, null, list or mapping, at most {@code depth} deep. */
  private static JsonNode value(FuzzedDataProvider data, int depth) {
    int kind = data.consumeInt(0, depth > 0 ? 5 : 3);
    switch (kind) {
      case 0:
        return NODES.textNode(text(data, 30));
      case 1:
        return NODES.numberNode(data.consumeLong());
      case 2:
        return NODES.booleanNode(data.consumeBoolean());
      case 3:
        return NODES.nullNode();
      case 4:
        {
          var array = NODES.arrayNode();
          for (int i = data.consumeInt(0, 3); i > 0; i--) {
            array.add(value(data, depth - 1));
          }
          return array;
        }
      default:
        {
          ObjectNode object = NODES.objectNode();
          for (int i = data.consumeInt(0, 3); i > 0; i--) {
            object.set(text(data, 12), value(data, depth - 1));
          }
          return object;
        }
    }
  }

  @FuzzTest
  void maskedYaml(FuzzedDataProvider data) {
    fuzzerTestOneInput(data);
  }
}
