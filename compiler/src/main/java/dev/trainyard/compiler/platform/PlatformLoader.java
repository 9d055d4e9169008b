package dev.trainyard.compiler.platform;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.schema.NetworkntSchemaValidator;
import dev.trainyard.compiler.schema.SchemaId;
import dev.trainyard.compiler.schema.SchemaValidator;
import dev.trainyard.compiler.source.ParsedDocument;
import dev.trainyard.compiler.source.SourceFile;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Reads {@code platform.yaml} (an edge: it touches the disk), or the embedded default platform when
 * none is given: load → {@code schemas/platform.v1.schema.json} → bind and cross-check.
 */
public final class PlatformLoader {
  /** Classpath location of the embedded default. */
  public static final String EMBEDDED = "trainyard/platform/default-platform.yaml";

  /** How diagnostics and provenance name the embedded default. */
  public static final String EMBEDDED_NAME = "<embedded default platform>";

  /**
   * The one way to read {@code platform.yaml} outside the compiler: Trainyard's YAML loader and
   * JSON Schema validator.
   */
  public static PlatformLoader standard() {
    return new PlatformLoader(new YamlDocumentLoader(), new NetworkntSchemaValidator());
  }

  /** Schema of platform.yaml. */
  public static final SchemaId SCHEMA = new SchemaId("platform.v1.schema.json");

  private final YamlDocumentLoader loader;
  private final SchemaValidator validator;

  public PlatformLoader(YamlDocumentLoader loader, SchemaValidator validator) {
    this.loader = loader;
    this.validator = validator;
  }

  /**
   * @param file platform.yaml, or empty for the embedded default
   * @param displayPath how diagnostics name the file
   */
  public StageResult<Platform> load(Optional<Path> file, String displayPath) {
    StageResult<SourceFile> source =
        file.isPresent()
            ? YamlDocumentLoader.readFile(file.get(), displayPath)
            : StageResult.of(embedded(), List.of());
    if (source.failed()) {
      return StageResult.failed(source.diagnostics());
    }
    return load(source.value().orElseThrow(), file.isEmpty());
  }

  /**
   * The platform in {@code source}, already read (a caller that compiles many train.yaml files
   * against one platform.yaml reads it each time but parses it only when its text changed).
   *
   * @param embedded whether {@code source} is the embedded default (its defaults apply)
   */
  public StageResult<Platform> load(SourceFile source, boolean embedded) {
    StageResult<ParsedDocument> doc = loader.load(source);
    if (doc.failed()) {
      return StageResult.failed(doc.diagnostics());
    }
    List<Diagnostic> problems = validator.validate(doc.value().orElseThrow(), SCHEMA);
    if (problems.stream().anyMatch(Diagnostic::isError)) {
      return StageResult.failed(problems);
    }
    return PlatformBinder.bind(doc.value().orElseThrow(), embedded);
  }

  /** The embedded default platform's text. */
  public static SourceFile embedded() {
    return EmbeddedText.SOURCE;
  }

  /**
   * The embedded default's text, read from the jar once per JVM (it was read on every compile: 3 %
   * of a served 500-run preview's samples).
   */
  private static final class EmbeddedText {
    static final SourceFile SOURCE = read();

    private static SourceFile read() {
      try (InputStream in = PlatformLoader.class.getClassLoader().getResourceAsStream(EMBEDDED)) {
        if (in == null) {
          throw new IllegalStateException("the jar lacks " + EMBEDDED);
        }
        return new SourceFile(EMBEDDED_NAME, new String(in.readAllBytes(), StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
