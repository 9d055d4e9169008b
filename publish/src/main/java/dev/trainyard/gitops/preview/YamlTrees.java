package dev.trainyard.gitops.preview;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.JsonParserDelegate;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads GitOps files as JSON trees for the preview (the only class here that imports Jackson's YAML
 * format). A file may hold several YAML documents ({@code ---}); each is read, as {@code kubectl
 * apply}, kustomize and Flux read them all. Unlike the compiler's loader it keeps no line and
 * column map: only the position of a syntax error is kept (never its message, which quotes the
 * offending line and so may quote Secret data). Each text is parsed once per preview (the same
 * JobSet is read for its facts and for its diff). Safe for concurrent use: a preview reads its runs
 * on all cores ({@link PreviewBuilder}).
 */
final class YamlTrees {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  /**
   * The problem of a file that uses YAML aliases: Jackson reads an alias ({@code *name}) as the
   * text {@code name}, not as the anchored node, so its objects cannot be shown or checked
   * faithfully (kubectl and kustomize expand them).
   */
  static final String ALIASES =
      "written with YAML aliases (*name), which the preview does not expand";

  private final Map<String, Documents> parsed = new ConcurrentHashMap<>();

  /**
   * The documents of one file, empty ones ({@code ---} alone) left out.
   *
   * @param objects the documents, in file order, when every one is a YAML mapping
   * @param problem why the file is not a list of objects ({@code "not valid YAML"}), or ""
   * @param line 1-based line of a syntax error, 0 when unknown or readable
   * @param column 1-based column of a syntax error, 0 when unknown
   */
  record Documents(List<JsonNode> objects, String problem, int line, int column) {
    Documents {
      objects = List.copyOf(objects);
    }

    Documents(List<JsonNode> objects, String problem) {
      this(objects, problem, 0, 0);
    }

    boolean readable() {
      return problem.isEmpty();
    }
  }

  /**
   * The object {@code text} holds, or empty when it is not exactly one YAML object (a list, a
   * scalar, broken YAML, several documents).
   */
  Optional<JsonNode> object(String text) {
    return single(documents(text));
  }

  /** Every document of {@code text}, or the problem that makes it unreadable. */
  Documents documents(String text) {
    Documents known = parsed.get(text);
    if (known != null) {
      return known;
    }
    // Parsed outside the map's lock (computeIfAbsent would hold it for the whole parse and stall
    // the other threads' reads); two threads parsing the same text keep the first result.
    Documents mine = parse(text);
    Documents first = parsed.putIfAbsent(text, mine);
    return first != null ? first : mine;
  }

  /**
   * As {@link #object}, but not kept: for texts read once (the JobSets of earlier runs that need a
   * parse).
   */
  Optional<JsonNode> once(String text) {
    return single(parse(text));
  }

  /** The only object of {@code d} (an unreadable file has none). */
  private static Optional<JsonNode> single(Documents d) {
    return d.objects().size() == 1 ? Optional.of(d.objects().get(0)) : Optional.empty();
  }

  static Documents parse(String text) {
    Optional<JsonNode> fast =
        BlockYaml.read(text); // the files Trainyard wrote, several times faster
    if (fast.isPresent()) {
      return new Documents(List.of(fast.get()), "");
    }
    AliasWatch parser = null;
    try {
      parser = new AliasWatch((YAMLParser) YAML.createParser(text));
      List<JsonNode> docs = read(parser);
      if (parser.seen) {
        return new Documents(List.of(), ALIASES);
      }
      for (int i = 0; i < docs.size(); i++) {
        if (!docs.get(i).isObject()) {
          return new Documents(
              List.of(),
              "not a Kubernetes object (document " + (i + 1) + " is not a YAML mapping)");
        }
      }
      return new Documents(docs, "");
    } catch (JacksonException e) {
      if (parser != null && parser.seen) {
        return new Documents(List.of(), ALIASES); // an alias came first, as a scan finds it
      }
      // Unreadable files are reported by position only and never shown: they may be broken Secrets
      // (argo-cd#16193).
      JsonLocation at = e.getLocation();
      return at == null || at.getLineNr() < 1
          ? new Documents(List.of(), "not valid YAML")
          : new Documents(
              List.of(), "not valid YAML", at.getLineNr(), Math.max(1, at.getColumnNr()));
    } catch (IOException | RuntimeException e) {
      return new Documents(List.of(), parser != null && parser.seen ? ALIASES : "not valid YAML");
    }
  }

  /**
   * The YAML parser, noting whether any token it hands out is an alias, so that one parse both
   * reads the documents and finds aliases (a separate scan for them read each JobSet of a preview
   * twice: its shell scripts hold {@code *}). Every way of reading on goes through {@link
   * #nextToken}.
   */
  static final class AliasWatch extends JsonParserDelegate {
    private final YAMLParser yaml;
    boolean seen;

    AliasWatch(YAMLParser yaml) {
      super(yaml);
      this.yaml = yaml;
    }

    @Override
    public JsonToken nextToken() throws IOException {
      JsonToken token = yaml.nextToken();
      seen |= yaml.isCurrentAlias();
      return token;
    }

    @Override
    public JsonToken nextValue() throws IOException {
      JsonToken token = nextToken();
      return token == JsonToken.FIELD_NAME ? nextToken() : token;
    }

    @Override
    public JsonParser skipChildren() throws IOException {
      JsonToken at = currentToken();
      if (at != JsonToken.START_OBJECT && at != JsonToken.START_ARRAY) {
        return this;
      }
      int open = 1;
      while (open > 0) {
        JsonToken token = nextToken();
        if (token == null) {
          return this;
        }
        if (token.isStructStart()) {
          open++;
        } else if (token.isStructEnd()) {
          open--;
        }
      }
      return this;
    }
  }

  /**
   * Every document of {@code text} whatever its shape (a JSON 6902 patch is a list), or empty when
   * it is not valid YAML.
   */
  static Optional<List<JsonNode>> anyDocuments(String text) {
    try {
      return Optional.of(read(text));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * The documents one by one (a root list stays one list: Jackson's readValues would unwrap it),
   * empty ones left out.
   */
  private static List<JsonNode> read(String text) throws IOException {
    return read(YAML.createParser(text));
  }

  private static List<JsonNode> read(JsonParser parser) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    try (JsonParser p = parser) {
      while (p.nextToken() != null) {
        JsonNode doc = YAML.readTree(p);
        if (doc != null && !doc.isNull() && !doc.isMissingNode()) {
          out.add(doc);
        }
      }
    }
    return out;
  }
}
