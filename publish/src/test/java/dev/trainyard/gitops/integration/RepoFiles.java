package dev.trainyard.gitops.integration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The integration files a platform team copies (under {@code examples/}), read from the checkout:
 * raw text and parsed YAML documents. The checkout root comes from the {@code trainyard.repo.root}
 * system property that the module's surefire configuration sets.
 */
final class RepoFiles {
  private static final ObjectMapper YAML = new YAMLMapper();
  private static final ObjectMapper JSON = JsonMapper.builder().build();

  private RepoFiles() {}

  /** A path relative to the checkout root, e.g. {@code examples/ci/github/trainyard.yml}. */
  static Path path(String relative) {
    return Path.of(System.getProperty("trainyard.repo.root", "..")).resolve(relative).normalize();
  }

  /** The file's text as UTF-8. */
  static String text(String relative) {
    try {
      return Files.readString(path(relative), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The single YAML document in the file. */
  static JsonNode yaml(String relative) {
    List<JsonNode> docs = yamlDocuments(relative);
    if (docs.size() != 1) {
      throw new IllegalStateException(
          relative + " holds " + docs.size() + " YAML documents, expected 1");
    }
    return docs.get(0);
  }

  /** Every YAML document in the file, in order (a {@code ---} separated stream). */
  static List<JsonNode> yamlDocuments(String relative) {
    return parseDocuments(text(relative));
  }

  /** Every YAML document in a string. */
  static List<JsonNode> parseDocuments(String yaml) {
    try (var parser = new YAMLFactory().createParser(yaml)) {
      List<JsonNode> docs = new ArrayList<>();
      var it = YAML.readValues(parser, JsonNode.class);
      while (it.hasNext()) {
        docs.add(it.next());
      }
      return List.copyOf(docs);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A JSON string of the node (for messages and for handing objects to other tools). */
  static String json(JsonNode node) {
    try {
      return JSON.writeValueAsString(node);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
