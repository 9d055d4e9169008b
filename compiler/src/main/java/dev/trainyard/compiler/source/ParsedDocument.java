package dev.trainyard.compiler.source;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * A YAML file parsed into a Jackson tree, with the position of every value.
 *
 * @param source the file it came from
 * @param root the document's root (an {@code ObjectNode} for every file Trainyard reads)
 * @param map JSON pointer → line:column
 */
public record ParsedDocument(SourceFile source, JsonNode root, SourceMap map) {
  public ParsedDocument {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(root, "root");
    Objects.requireNonNull(map, "map");
  }
}
