package dev.trainyard.compiler.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.source.ParsedDocument;
import dev.trainyard.compiler.source.SourceFile;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Each message rule of the schema stage, as the whole diagnostic ({@code file:line:col code message
 * | hint}): the rules train.v1 uses through the shipped train schema, the others through the
 * test-only schema {@code trainyard/schemas/messages-test.schema.json} (test resources), read by
 * the same validator.
 */
class SchemaMessagesTest {
  private static final SchemaValidator VALIDATOR = new NetworkntSchemaValidator();
  private static final SchemaId TEST_SCHEMA = new SchemaId("messages-test.schema.json");
  private static final String CPU_ABOUT =
      "CPU per node: a number of cores (`4`, `0.5`) or a Kubernetes quantity"
          + " (`500m` = half a core). Default: the runtime's.";
  private static final String NODES_ABOUT = "Number of nodes (pods) the job runs on, 1 to 1024.";

  private static List<String> check(String yaml, SchemaId schema) {
    ParsedDocument doc =
        new YamlDocumentLoader().load(new SourceFile("t.yaml", yaml)).value().orElseThrow();
    return VALIDATOR.validate(doc, schema).stream().map(SchemaMessagesTest::line).toList();
  }

  private static List<String> train(String yaml) {
    return check(yaml, SchemaId.TRAIN_V1);
  }

  private static List<String> test(String yaml) {
    return check(yaml, TEST_SCHEMA);
  }

  private static String line(Diagnostic d) {
    return d.location() + " " + d.code().id() + " " + d.message() + " | " + d.hint();
  }

  @Test
  @DisplayName(
      "a typo that ties two names suggests the one that extends it (`gpu` → `gpus`, not `cpu`)")
  void tieGoesToTheExtension() {
    assertEquals(
        List.of("t.yaml:3:3 E201 unknown field `gpu` in `resources` | did you mean `gpus`?"),
        train("run: x\nresources:\n  gpu: 2\n"));
  }

  @Test
  @DisplayName(
      "a top-level unknown field up to 3 edits away is suggested; 4 edits away lists every field")
  void suggestionThreshold() {
    assertEquals(
        List.of("t.yaml:2:1 E201 unknown field `retriesxyz` | did you mean `retries`?"),
        train("run: x\nretriesxyz: 2\n"));
    assertEquals(
        List.of(
            "t.yaml:2:1 E201 unknown field `retriesxyzw` | allowed fields here: `checkpoint`, `env`, `image`, `mpi`,"
                + " `name`, `nodes`, `priority`, `procsPerNode`, `queue`, `resources`, `retries`, `run`, `runtime`,"
                + " `secrets`, `setup`, `timeout`, `volumes`, `workdir`"),
        train("run: x\nretriesxyzw: 2\n"));
  }

  @Test
  @DisplayName(
      "suggestions: one edit for names under 6 characters, a third of the name up to 3, ties by name")
  void suggestionRules() {
    assertEquals("did you mean `nodes`?", FieldSuggestions.hint("node", List.of("run", "nodes")));
    assertEquals("allowed fields here: `cd`, `x`", FieldSuggestions.hint("ab", List.of("x", "cd")));
    assertEquals("did you mean `abcdxy`?", FieldSuggestions.hint("abcdef", List.of("abcdxy")));
    assertEquals(
        "allowed fields here: `abcxyz`", FieldSuggestions.hint("abcdef", List.of("abcxyz")));
    assertEquals("did you mean `aa`?", FieldSuggestions.hint("ab", List.of("ac", "aa")));
    assertEquals("remove it; no fields are allowed here", FieldSuggestions.hint("x", List.of()));
  }

  @Test
  @DisplayName(
      "the edit distance is Levenshtein's, case-insensitive, up to the last character of both names")
  void editDistance() {
    assertEquals(3, FieldSuggestions.distance("kitten", "sitting"));
    assertEquals(1, FieldSuggestions.distance("abc", "abd"));
    assertEquals(1, FieldSuggestions.distance("ab", "abc"));
    assertEquals(0, FieldSuggestions.distance("GPUs", "gpus"));
    assertEquals(4, FieldSuggestions.distance("", "gpus"));
  }

  @Test
  @DisplayName("an over-long text says its length and quotes at most 60 characters of it, then …")
  void maxLength() {
    assertEquals(
        List.of(
            "t.yaml:2:8 E204 `queue` must be at most 63 characters long, got 64 (\""
                + "q".repeat(60)
                + "…\") | Kueue LocalQueue in the job's namespace (a DNS-1123 label, at most 63 characters). Default: the"
                + " namespace's queue from platform.yaml."),
        train("run: x\nqueue: " + "q".repeat(64) + "\n"));
    assertEquals("\"" + "a".repeat(60) + "\"", TypeWords.quote("a".repeat(60)));
    assertEquals("\"" + "a".repeat(60) + "…\"", TypeWords.quote("a".repeat(61)));
    assertEquals("\"a\\\\b\\\"c\\nd\"", TypeWords.quote("a\\b\"c\nd"));
  }

  @Test
  @DisplayName(
      "an exclusive minimum inside `else` is worded, with the field's own description as hint")
  void exclusiveMinimumInElse() {
    assertEquals(
        List.of("t.yaml:3:8 E204 `resources.cpu` must be greater than 0, got 0 | " + CPU_ABOUT),
        train("run: x\nresources:\n  cpu: 0\n"));
  }

  @Test
  @DisplayName(
      "a const inside `then` uses its errorMessage, and the hint shows the field's first 3 examples")
  void constInThen() {
    assertEquals(
        List.of(
            "t.yaml:2:15 E205 `procsPerNode` must be `auto` or a whole number from 1 to 1024, got"
                + " \"four\" | for example `auto`, `1`, `8`"),
        train("run: x\nprocsPerNode: four\n"));
  }

  @Test
  @DisplayName(
      "wrong types name what was written: a number, a list, a mapping; the hint is the description")
  void wrongTypeWords() {
    assertEquals(
        List.of("t.yaml:2:8 E202 `nodes` must be an integer, got number 2.5 | " + NODES_ABOUT),
        train("run: x\nnodes: 2.5\n"));
    assertEquals(
        List.of("t.yaml:2:8 E202 `nodes` must be an integer, got a list | " + NODES_ABOUT),
        train("run: x\nnodes: [1]\n"));
    assertEquals(
        List.of("t.yaml:2:8 E202 `nodes` must be an integer, got a mapping | " + NODES_ABOUT),
        train("run: x\nnodes: {a: 1}\n"));
  }

  @Test
  @DisplayName(
      "a number or boolean where text belongs gets a quote hint with the value as written (`yes`)")
  void quoteHint() {
    assertEquals(
        List.of(
            "t.yaml:2:8 E202 `queue` must be a string, got integer 5 | quote it to keep it as text:"
                + " `queue: \"5\"`"),
        train("run: x\nqueue: 5\n"));
    assertEquals(
        List.of(
            "t.yaml:2:8 E202 `queue` must be a string, got boolean yes | quote it to keep it as"
                + " text: `queue: \"yes\"`"),
        train("run: x\nqueue: yes\n"));
  }

  @Test
  @DisplayName(
      "a quoted negative number with blanks where an integer belongs: remove the quotes, blanks trimmed")
  void unquoteHint() {
    assertEquals(
        List.of(
            "t.yaml:2:8 E202 `nodes` must be an integer, got string \" -3 \" | remove the quotes:"
                + " `nodes: -3`"),
        train("run: x\nnodes: \" -3 \"\n"));
  }

  @Test
  @DisplayName(
      "a quoted number with leading zeros: remove the quotes, written in decimal (unquoted `010` is octal 8 to YAML 1.1, E205)")
  void unquoteHintInDecimal() {
    assertEquals(
        List.of(
            "t.yaml:2:8 E202 `nodes` must be an integer, got string \"010\" | remove the quotes:"
                + " `nodes: 10`"),
        train("run: x\nnodes: \"010\"\n"));
    assertEquals(
        List.of(
            "t.yaml:2:8 E202 `nodes` must be an integer, got string \"-007\" | remove the quotes:"
                + " `nodes: -7`"),
        train("run: x\nnodes: \"-007\"\n"));
    assertEquals(
        List.of(
            "t.yaml:2:8 E202 `nodes` must be an integer, got string \"+3\" | remove the quotes:"
                + " `nodes: 3`"),
        train("run: x\nnodes: \"+3\"\n"));
  }

  @Test
  @DisplayName(
      "YAML 1.2's octal `0o10` (text to YAML 1.1) and a quoted `0x10` where an integer belongs: the same number in decimal")
  void yaml12IntegerHint() {
    assertEquals(
        List.of(
            "t.yaml:2:8 E202 `nodes` must be an integer, got string \"0o10\" | `0o10` is octal 8 to"
                + " YAML 1.2 but text to YAML 1.1 (Trainyard, Kubernetes); write it in decimal:"
                + " `nodes: 8`"),
        train("run: x\nnodes: 0o10\n"));
    assertEquals(
        List.of(
            "t.yaml:2:8 E202 `nodes` must be an integer, got string \"0x1F\" | write it in decimal:"
                + " `nodes: 31`"),
        train("run: x\nnodes: \"0x1F\"\n"));
    assertEquals(
        List.of(
            "t.yaml:2:8 E202 `nodes` must be an integer, got string \"0o19\" | write `nodes` as a"
                + " decimal number"),
        train("run: x\nnodes: 0o19\n"));
  }

  @Test
  @DisplayName(
      "a missing field's hint adds its description; under if/else, the description of the object")
  void missingFieldHints() {
    List<String> run = train("nodes: 1\n");
    assertEquals(1, run.size(), run::toString);
    assertTrue(
        run.get(0)
            .startsWith(
                "t.yaml:1:1 E203 missing required field `run` | add `run:` — Shell command"
                    + " that trains."),
        run.get(0));
    assertEquals(
        List.of(
            "t.yaml:3:5 E203 `secrets[0]` is missing required field `env` | add `env:` — Either"
                + " `name` + `key` + `env` (one key as an environment variable) or `name` + `path` (every key as a file"
                + " under `path`)."),
        train("run: x\nsecrets:\n  - {name: a, key: k}\n"));
    assertEquals(
        List.of(
            "t.yaml:3:5 E203 `volumes[0]` is missing required field `path` | add `path:` —"
                + " Absolute path in the container."),
        train("run: x\nvolumes:\n  - {claim: c}\n"));
  }

  @Test
  @DisplayName("a bad key name's hint says to rename it and describes the mapping")
  void badNameHint() {
    List<String> all = train("run: x\nmpi:\n  mca:\n    Bad: 1\n");
    assertEquals(1, all.size(), all::toString);
    assertTrue(
        all.get(0)
            .startsWith(
                "t.yaml:4:5 E205 `mpi.mca` name `Bad` must be an MCA parameter name:"
                    + " lower-case letters, digits and `_`, starting with a letter | rename `Bad`; Open MPI MCA parameters,"),
        all.get(0));
    assertEquals(
        List.of(
            "t.yaml:2:9 E205 `names` name `Bad` must match the pattern `^[a-z]+$` | rename `Bad`;"
                + " Lower-case names."),
        test("id: a\nnames: {Bad: 1}\n"));
  }

  @Test
  @DisplayName("enum and const without errorMessage list the allowed values")
  void enumAndConst() {
    assertEquals(
        List.of("t.yaml:2:8 E205 `level` must be one of `low`, `high`, got \"mid\" | How loud."),
        test("id: a\nlevel: mid\n"));
    assertEquals(
        List.of("t.yaml:2:7 E205 `mode` must be `x`, got \"y\" | Always x."),
        test("id: a\nmode: y\n"));
  }

  @Test
  @DisplayName(
      "item counts, exclusive maximum, minimum and a minimum length over 1 are worded with the value")
  void rangesOfTheTestSchema() {
    assertEquals(
        List.of("t.yaml:2:7 E204 `tags` must have at least 1 items, got 0 | Up to two tags."),
        test("id: a\ntags: []\n"));
    assertEquals(
        List.of("t.yaml:2:7 E204 `tags` must have at most 2 items, got 3 | Up to two tags."),
        test("id: a\ntags: [a, b, c]\n"));
    assertEquals(
        List.of("t.yaml:2:8 E204 `ratio` must be less than 1, got 1.5 | A fraction."),
        test("id: a\nratio: 1.5\n"));
    assertEquals(
        List.of("t.yaml:2:7 E204 `size` must be at least 1, got 0 | At least one."),
        test("id: a\nsize: 0\n"));
    assertEquals(
        List.of(
            "t.yaml:2:7 E204 `code` must be at least 3 characters long, got 2 (\"ab\") |"
                + " Lower-case code."),
        test("id: a\ncode: ab\n"));
  }

  @Test
  @DisplayName(
      "a pattern without words shows the pattern; examples: value examples only, at most 3")
  void patternAndExamples() {
    assertEquals(
        List.of(
            "t.yaml:2:7 E205 `code` must match the pattern `^[a-z]+$`, got \"ABC\" | for example"
                + " `abc`, `def`, `ghi`"),
        test("id: a\ncode: ABC\n"));
    assertEquals(
        List.of(
            "t.yaml:2:8 E205 `ident` must be upper-case letters, got \"abc\" | what `ident` accepts: see "
                + "https://trainyard.dev/schemas/messages-test.schema.json"),
        test("id: a\nident: abc\n"));
  }

  @Test
  @DisplayName(
      "a keyword without its own words is named; a rule on the whole file speaks of `the file`")
  void otherKeywords() {
    assertEquals(
        List.of(
            "t.yaml:2:7 E205 `step` is not valid here (schema rule `multipleOf`), got 7 | A multiple"
                + " of five."),
        test("id: a\nstep: 7\n"));
    assertEquals(
        List.of(
            "t.yaml:1:1 E205 the file is not valid here (schema rule `minProperties`) | Test-only"
                + " schema: one field per message rule of SchemaMessages that train.v1 does not use."),
        test("id: a\n"));
  }

  @Test
  @DisplayName("unknown fields under unevaluatedProperties and in an object with no fields")
  void unknownFieldVariants() {
    assertEquals(
        List.of("t.yaml:2:9 E201 unknown field `b` in `loose` | did you mean `a`?"),
        test("id: a\nloose: {b: 1}\n"));
    assertEquals(
        List.of(
            "t.yaml:2:9 E201 unknown field `x` in `empty` | remove it; no fields are allowed here"),
        test("id: a\nempty: {x: 1}\n"));
  }

  @Test
  @DisplayName(
      "dependentRequired names the missing member (`b`), not the one that is present (`a`)")
  void dependentRequired() {
    assertEquals(
        List.of("t.yaml:2:7 E203 `pair` is missing required field `b` | add `b:` — The b half."),
        test("id: a\npair: {a: x}\n"));
  }

  @Test
  @DisplayName(
      "a quoted number where a number (not only an integer) belongs also gets the 'remove the quotes' hint")
  void quotedNumber() {
    List<String> found = test("id: a\nratio: \"0.5\"\n");
    assertEquals(1, found.size(), found.toString());
    assertTrue(
        found.get(0).startsWith("t.yaml:2:8 E202 `ratio` must be a number, got "), found.get(0));
    assertTrue(found.get(0).endsWith(" | remove the quotes: `ratio: 0.5`"), found.get(0));
  }

  @Test
  @DisplayName("a writeOnly value of the wrong type is not shown, not even in the hint")
  void writeOnlyHidden() {
    assertEquals(
        List.of(
            "t.yaml:2:8 E202 `token` must be a string, got a value (not shown: it may be a secret) |"
                + " A secret value."),
        test("id: a\ntoken: 4242\n"));
    assertEquals(
        List.of("t.yaml:2:8 E202 `token` must be a string, got a list | A secret value."),
        test("id: a\ntoken: [1]\n"));
  }

  @Test
  @DisplayName("a wrong type hides the value's other violations, but never another value's")
  void cascadeOnlyForTheSameValue() {
    assertEquals(
        List.of(
            "t.yaml:2:7 E204 `code` must be at least 3 characters long, got 2 (\"ab\") | Lower-case code.",
            "t.yaml:3:8 E202 `ratio` must be a number, got string \"x\" | A fraction."),
        test("id: a\ncode: ab\nratio: x\n"));
  }

  @Test
  @DisplayName(
      "an empty text where one is required says so once: not also that it fails the pattern; a text that is not empty still gets the pattern's message")
  void emptyText() {
    assertEquals(
        List.of(
            "t.yaml:2:8 E204 `image` must not be empty | Replaces the runtime's container image. Pin it"
                + " by digest (`@sha256:…`) for reproducible runs. Default: the runtime's image."),
        train("run: x\nimage: \"\"\n"));
    assertEquals(
        List.of(
            "t.yaml:2:8 E205 `image` must be a container image reference without spaces, like"
                + " `ghcr.io/org/trainer:1.2`, got \"a b\" | for example `ghcr.io/acme/trainer:2024.06`,"
                + " `nvcr.io/nvidia/pytorch@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef`"),
        train("run: x\nimage: \"a b\"\n"));
  }

  @Test
  @DisplayName("a value of the wrong type that also fails its enum gets the type message only")
  void typeHidesEnum() {
    assertEquals(
        List.of(
            "t.yaml:2:8 E202 `color` must be a string, got integer 5 | quote it to keep it as text:"
                + " `color: \"5\"`"),
        test("id: a\ncolor: 5\n"));
    assertEquals(
        List.of("t.yaml:2:8 E205 `color` must be one of `red`, `blue`, got \"green\" | A colour."),
        test("id: a\ncolor: green\n"));
  }

  @Test
  @DisplayName(
      "labels of nested lists put each index in brackets, following the document's own shape")
  void nestedListLabels() {
    assertEquals(
        List.of(
            "t.yaml:2:10 E202 `matrix[0]` must be a list, got integer 5 | what `matrix[0]` accepts: see "
                + "https://trainyard.dev/schemas/messages-test.schema.json",
            "t.yaml:2:17 E202 `matrix[1][1]` must be an integer, got string \"x\" | what `matrix[1][1]`"
                + " accepts: see https://trainyard.dev/schemas/messages-test.schema.json"),
        test("id: a\nmatrix: [5, [1, x]]\n"));
  }

  @Test
  @DisplayName(
      "schema ids are plain *.json names; an id not in the jar is an IllegalStateException")
  void schemaIds() {
    assertEquals("trainyard/schemas/train.v1.schema.json", SchemaId.TRAIN_V1.resource());
    assertThrows(IllegalArgumentException.class, () -> new SchemaId("../train.v1.schema.json"));
    assertThrows(IllegalArgumentException.class, () -> new SchemaId("train.yaml"));
    ParsedDocument doc =
        new YamlDocumentLoader().load(new SourceFile("t.yaml", "run: x\n")).value().orElseThrow();
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> VALIDATOR.validate(doc, new SchemaId("absent.schema.json")));
    assertEquals(
        "schema trainyard/schemas/absent.schema.json is not on the classpath (a packaging bug)",
        e.getMessage());
    assertFalse(VALIDATOR.validate(doc, SchemaId.TRAIN_V1).iterator().hasNext());
  }
}
