package dev.trainyard.compiler.spec;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.schema.NetworkntSchemaValidator;
import dev.trainyard.compiler.schema.SchemaId;
import dev.trainyard.compiler.schema.SchemaValidator;
import dev.trainyard.compiler.source.ParsedDocument;
import dev.trainyard.compiler.source.SourceFile;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a {@code train.yaml} from disk into a {@link TrainSpec}: read → load → schema → bind,
 * stopping after the first step that reports an error, with every diagnostic of that step.
 *
 * <pre>
 * StageResult&lt;TrainSpec&gt; spec = new SpecReader().read(Path.of("train.yaml"), "train.yaml");
 * if (spec.failed()) { print(spec.diagnostics()); }
 * </pre>
 */
public final class SpecReader {
  private final YamlDocumentLoader loader;
  private final SchemaValidator validator;
  private final TrainSpecBinder binder = new TrainSpecBinder();

  /** With the default loader and the networknt validator. */
  public SpecReader() {
    this(new YamlDocumentLoader(), new NetworkntSchemaValidator());
  }

  /**
   * With a given loader and validator (share one validator across reads: it caches compiled
   * schemas).
   */
  public SpecReader(YamlDocumentLoader loader, SchemaValidator validator) {
    this.loader = loader;
    this.validator = validator;
  }

  /**
   * @param trainYaml the file to read
   * @param displayPath how diagnostics name it, e.g. {@code examples/ddp/train.yaml}
   */
  public StageResult<TrainSpec> read(Path trainYaml, String displayPath) {
    StageResult<SourceFile> file = YamlDocumentLoader.readFile(trainYaml, displayPath);
    if (file.failed()) {
      return StageResult.failed(file.diagnostics());
    }
    StageResult<ParsedDocument> doc = loader.load(file.value().orElseThrow());
    if (doc.failed()) {
      return StageResult.failed(doc.diagnostics());
    }
    List<Diagnostic> problems =
        new ArrayList<>(validator.validate(doc.value().orElseThrow(), SchemaId.TRAIN_V1));
    problems.addAll(IntegerForms.check(doc.value().orElseThrow()));
    problems.sort(Diagnostic.ORDER);
    if (problems.stream().anyMatch(Diagnostic::isError)) {
      return StageResult.failed(problems);
    }
    return StageResult.of(binder.bind(doc.value().orElseThrow()), problems);
  }
}
