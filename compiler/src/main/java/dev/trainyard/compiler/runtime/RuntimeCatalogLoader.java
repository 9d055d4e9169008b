package dev.trainyard.compiler.runtime;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Loads the runtime catalog (an edge): the built-ins listed in the jar's {@code
 * trainyard/runtimes/index.txt} (one {@code <name>/<version>/runtime.yaml} per line), then every
 * {@code <name>/<version>/runtime.yaml} under the platform's runtimes folder, which override and
 * add.
 */
public final class RuntimeCatalogLoader {
  /**
   * The one way to read runtime definitions outside the compiler: Trainyard's YAML loader and JSON
   * Schema validator.
   */
  public static RuntimeCatalogLoader standard() {
    return new RuntimeCatalogLoader(new YamlDocumentLoader(), new NetworkntSchemaValidator());
  }

  /** Schema of runtime.yaml. */
  public static final SchemaId SCHEMA = new SchemaId("runtime.v1.schema.json");

  private static final String BUILTIN_ROOT = "trainyard/runtimes/";

  private final YamlDocumentLoader loader;
  private final SchemaValidator validator;

  public RuntimeCatalogLoader(YamlDocumentLoader loader, SchemaValidator validator) {
    this.loader = loader;
    this.validator = validator;
  }

  /** The built-ins plus {@code platformDir}'s runtimes; diagnostics for any broken definition. */
  public StageResult<RuntimeCatalog> load(Optional<Path> platformDir) {
    List<RuntimeDefinition> defs = new ArrayList<>();
    List<Diagnostic> problems = new ArrayList<>();
    for (String entry : builtinIndex()) {
      add(new SourceFile("builtin:" + entry, resource(BUILTIN_ROOT + entry)), defs, problems);
    }
    if (platformDir.isPresent()) {
      for (Path file : platformFiles(platformDir.get(), problems)) {
        StageResult<SourceFile> source = YamlDocumentLoader.readFile(file, file.toString());
        int before = defs.size();
        source
            .value()
            .ifPresentOrElse(
                s -> add(s, defs, problems), () -> problems.addAll(source.diagnostics()));
        if (defs.size() > before) {
          checkFolder(file, defs.get(defs.size() - 1), problems);
        }
      }
    }
    return problems.isEmpty()
        ? StageResult.of(new RuntimeCatalog(defs), List.of())
        : StageResult.failed(problems);
  }

  private void add(SourceFile file, List<RuntimeDefinition> defs, List<Diagnostic> problems) {
    StageResult<ParsedDocument> doc = loader.load(file);
    if (doc.failed()) {
      problems.addAll(doc.diagnostics());
      return;
    }
    List<Diagnostic> schema = validator.validate(doc.value().orElseThrow(), SCHEMA);
    if (schema.stream().anyMatch(Diagnostic::isError)) {
      problems.addAll(schema);
      return;
    }
    StageResult<RuntimeDefinition> def =
        RuntimeBinder.bind(doc.value().orElseThrow(), file.displayPath());
    def.value().ifPresent(defs::add);
    problems.addAll(def.diagnostics());
  }

  /**
   * Versions are immutable folders: {@code <name>/<version>/runtime.yaml} must say that name and
   * version.
   */
  private static void checkFolder(Path file, RuntimeDefinition def, List<Diagnostic> problems) {
    Path versionDir = file.getParent();
    Path nameDir = versionDir == null ? null : versionDir.getParent();
    String expected =
        (nameDir == null ? "?" : nameDir.getFileName()) + "/" + versionDir.getFileName();
    if (!expected.equals(def.name() + "/" + def.version())) {
      problems.add(
          Diagnostic.error(
                  DiagnosticCode.INVALID_RUNTIME,
                  SourceLocation.ofFile(file.toString()),
                  "",
                  "runtime "
                      + def.ref()
                      + " is in folder "
                      + expected
                      + "; the folder must be "
                      + def.name()
                      + "/"
                      + def.version())
              .withHint("a changed runtime is a new version folder; versions are immutable"));
    }
  }

  private static List<Path> platformFiles(Path dir, List<Diagnostic> problems) {
    if (!Files.isDirectory(dir)) {
      boolean file = Files.exists(dir);
      problems.add(
          Diagnostic.error(
                  DiagnosticCode.INVALID_RUNTIME,
                  SourceLocation.ofFile(dir.toString()),
                  "",
                  "runtimes folder "
                      + dir
                      + (file ? " is a file, not a folder" : " does not exist"))
              .withHint(
                  "name the folder that holds <name>/<version>/runtime.yaml (the platform's"
                      + " runtimes/)"));
      return List.of();
    }
    try (Stream<Path> files =
        Files.find(dir, 3, (p, a) -> p.getFileName().toString().equals("runtime.yaml"))) {
      return files.sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<String> builtinIndex() {
    return resource(BUILTIN_ROOT + "index.txt")
        .lines()
        .map(String::strip)
        .filter(l -> !l.isEmpty() && !l.startsWith("#"))
        .toList();
  }

  private static String resource(String name) {
    try (InputStream in = RuntimeCatalogLoader.class.getClassLoader().getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("the jar lacks " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
