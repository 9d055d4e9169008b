package dev.trainyard.compiler.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.source.ParsedDocument;
import dev.trainyard.compiler.source.SourceFile;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import dev.trainyard.compiler.testing.Wording;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class NetworkntSchemaValidatorTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  private static final SchemaValidator VALIDATOR = new NetworkntSchemaValidator();

  private static List<Diagnostic> validate(String name, String yaml) {
    ParsedDocument doc =
        new YamlDocumentLoader().load(new SourceFile(name, yaml)).value().orElseThrow();
    return VALIDATOR.validate(doc, SchemaId.TRAIN_V1);
  }

  private static List<Diagnostic> validateBadInput(String name) throws Exception {
    Path path =
        Path.of(NetworkntSchemaValidatorTest.class.getResource("/bad-input/" + name).toURI());
    return validate(name, Files.readString(path));
  }

  /** {@code file:line:col code message | hint}, to compare whole diagnostics in one assertion. */
  private static String line(Diagnostic d) {
    return d.location() + " " + d.code().id() + " " + d.message() + " | " + d.hint();
  }

  @Test
  @DisplayName("`node: 2` is an unknown field at its key, with \"did you mean `nodes`?\"")
  void unknownFieldDidYouMean() throws Exception {
    List<Diagnostic> all = validateBadInput("unknown-field.yaml");
    assertEquals(1, all.size(), all::toString);
    assertEquals(DiagnosticCode.UNKNOWN_FIELD, all.get(0).code());
    assertEquals(
        "unknown-field.yaml:2:1 E201 unknown field `node` | did you mean `nodes`?",
        line(all.get(0)));
    assertEquals("/node", all.get(0).pointer());
  }

  @Test
  @DisplayName("an unknown field with no close match lists the allowed names at that level")
  void unknownFieldListsAllowed() {
    Diagnostic d = validate("t.yaml", "run: x\nresources:\n  accelerators: 8\n").get(0);
    assertEquals(
        "t.yaml:3:3 E201 unknown field `accelerators` in `resources` | allowed fields here: `cpu`,"
            + " `gpuType`, `gpus`, `memory`, `shm`",
        line(d));
  }

  @Test
  @DisplayName("wrong types quote the user's value and its YAML type")
  void wrongTypes() throws Exception {
    List<String> all =
        validateBadInput("wrong-types.yaml").stream()
            .map(NetworkntSchemaValidatorTest::line)
            .toList();
    assertEquals(
        List.of(
            "wrong-types.yaml:2:8 E202 `nodes` must be an integer, got string \"two\" | Number of nodes (pods) the"
                + " job runs on, 1 to 1024.",
            "wrong-types.yaml:3:10 E202 `retries` must be an integer, got number 1.5 | Restarts of the whole job after"
                + " a failure (JobSet `failurePolicy.maxRestarts`), 0 to 100.",
            "wrong-types.yaml:5:9 E202 `env.DEBUG` must be a string, a number or a boolean, got null (an empty value)"
                + " | give `env.DEBUG` a value, or delete the line; write `\"\"` for empty text"),
        all);
  }

  @Test
  @DisplayName("a quoted number where an integer belongs gets a 'remove the quotes' hint")
  void quotedNumber() {
    Diagnostic d = validate("t.yaml", "run: x\nnodes: \"2\"\n").get(0);
    assertEquals(
        "t.yaml:2:8 E202 `nodes` must be an integer, got string \"2\" | remove the quotes: `nodes: 2`",
        line(d));
  }

  @Test
  @DisplayName("nodes: 0 and procsPerNode: -5 each fail at their own line (trainer#3809)")
  void nodesZeroAndNegativeProcs() throws Exception {
    List<String> all =
        validateBadInput("nodes-zero-procs-negative.yaml").stream()
            .map(NetworkntSchemaValidatorTest::line)
            .toList();
    assertEquals(
        List.of(
            "nodes-zero-procs-negative.yaml:2:8 E204 `nodes` must be at least 1, got 0 | `nodes` accepts 1 to 1024",
            "nodes-zero-procs-negative.yaml:3:15 E204 `procsPerNode` must be at least 1, got -5 | `procsPerNode`"
                + " accepts 1 to 1024"),
        all);
  }

  @Test
  @DisplayName("several errors are reported at once, in line order, each at its own value")
  void severalErrorsInLineOrder() throws Exception {
    List<String> all =
        validateBadInput("several-errors.yaml").stream()
            .map(NetworkntSchemaValidatorTest::line)
            .map(s -> s.substring(0, s.indexOf(" |")))
            .toList();
    assertEquals(
        List.of(
            "several-errors.yaml:1:1 E203 missing required field `run`",
            "several-errors.yaml:2:1 E201 unknown field `node`",
            "several-errors.yaml:4:9 E204 `resources.gpus` must be at least 0, got -1",
            "several-errors.yaml:5:11 E205 `resources.memory` must be a Kubernetes quantity like `32Gi` or `512Mi`,"
                + " got \"32GB\"",
            "several-errors.yaml:6:10 E205 `timeout` must be a duration like `2d`, `24h`, `90m`, `1h30m` or `3600s`, got"
                + " \"1w\""),
        all);
  }

  @Test
  @DisplayName("the secrets either/or rule gives one readable message per mistake")
  void secretsEitherOr() throws Exception {
    List<String> all =
        validateBadInput("secrets-either-or.yaml").stream()
            .map(d -> d.location() + " " + d.code().id() + " " + d.message())
            .toList();
    assertEquals(
        List.of(
            "secrets-either-or.yaml:3:5 E205 `secrets[0]` sets `path` together with `key`/`env`; use either `key` +"
                + " `env` or `path`",
            "secrets-either-or.yaml:6:5 E203 `secrets[1]` is missing required field `env`",
            "secrets-either-or.yaml:6:5 E203 `secrets[1]` is missing required field `key`"),
        all);
  }

  @Test
  @DisplayName("a value of the wrong type gets one message, not one per failed branch")
  void noCascade() {
    List<Diagnostic> all = validate("t.yaml", "run: x\nprocsPerNode: true\nsecrets: [3]\n");
    assertEquals(
        List.of(
            "t.yaml:2:15 E202 `procsPerNode` must be `auto` or a whole number from 1 to 1024, got boolean true",
            "t.yaml:3:11 E202 `secrets[0]` must be a mapping, got integer 3"),
        all.stream().map(d -> d.location() + " " + d.code().id() + " " + d.message()).toList());
  }

  @Test
  @DisplayName("pattern errors say the rule in words and quote the value")
  void patternInWords() {
    Diagnostic d = validate("t.yaml", "run: x\nqueue: Team_A\n").get(0);
    assertEquals(DiagnosticCode.INVALID_VALUE, d.code());
    assertEquals("t.yaml:2:8", d.location().toString());
    assertTrue(
        d.message().startsWith("`queue` must ") && d.message().endsWith("got \"Team_A\""),
        d.message());
  }

  @Test
  @DisplayName(
      "`name` is left to the policy stage, which suggests a valid spelling (mpi-operator#733)")
  void nameIsNotPatternChecked() {
    assertEquals(List.of(), validate("t.yaml", "run: x\nname: My_Job\n"));
  }

  @Test
  @DisplayName("env names are checked at the key")
  void envName() {
    Diagnostic d = validate("t.yaml", "run: x\nenv:\n  1X: a\n").get(0);
    assertEquals(DiagnosticCode.INVALID_VALUE, d.code());
    assertEquals("t.yaml:3:3", d.location().toString());
    WORDING.approve(d.message());
  }

  @Test
  @DisplayName("a valid full train.yaml has no diagnostics")
  void validFull() {
    assertEquals(List.of(), validate("t.yaml", SampleTrainYaml.FULL));
  }
}
