package dev.trainyard.compiler.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.source.ParsedDocument;
import dev.trainyard.compiler.source.SourceFile;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Binding of the fields {@code TrainSpecBinderTest} does not cover, and the reader's first-step
 * failures.
 */
class SpecBindingEdgesTest {
  private final SpecReader reader = new SpecReader();

  private TrainSpec bind(Path dir, String yaml) throws Exception {
    Path file = dir.resolve("train.yaml");
    Files.writeString(file, yaml);
    StageResult<TrainSpec> result = reader.read(file, "train.yaml");
    assertEquals(List.of(), result.diagnostics());
    return result.value().orElseThrow();
  }

  @Test
  @DisplayName("mpi binds bindTo, mapBy and each MCA value as written, sorted by name")
  void mpiBound(@TempDir Path dir) throws Exception {
    TrainSpec spec =
        bind(
            dir,
            "run: python t.py\nmpi:\n  bindTo: none\n  mapBy: slot\n  mca:\n"
                + "    zz_b: true\n    btl_tcp_if_include: eth0\n    pml_ob1_x: 010\n");
    MpiOptions mpi = spec.mpi().orElseThrow();
    assertEquals(Optional.of("none"), mpi.bindTo());
    assertEquals(Optional.of("slot"), mpi.mapBy());
    assertEquals(
        Map.of("btl_tcp_if_include", "eth0", "pml_ob1_x", "010", "zz_b", "true"), mpi.mca());
    assertEquals(
        List.of("btl_tcp_if_include", "pml_ob1_x", "zz_b"), List.copyOf(mpi.mca().keySet()));
    assertThrows(UnsupportedOperationException.class, () -> mpi.mca().put("a", "b"));
  }

  @Test
  @DisplayName("without mpi the field is empty; an empty mpi mapping is present with nothing set")
  void mpiAbsentOrEmpty(@TempDir Path dir) throws Exception {
    assertEquals(Optional.empty(), bind(dir, "run: x\n").mpi());
    assertEquals(
        Optional.of(new MpiOptions(Optional.empty(), Optional.empty(), new TreeMap<>())),
        bind(dir, "run: x\nmpi: {}\n").mpi());
  }

  @Test
  @DisplayName(
      "cpu 0.5 stays `0.5`; gpus alone leave the other resources empty; absent fields stay empty")
  void partialResources(@TempDir Path dir) throws Exception {
    TrainSpec spec = bind(dir, "run: x\nresources:\n  gpus: 2\n  cpu: 0.50\n");
    assertEquals(
        new ResourceRequest(
            Optional.of(2),
            Optional.empty(),
            Optional.of("0.50"),
            Optional.empty(),
            Optional.empty()),
        spec.resources());
    TrainSpec bare = bind(dir, "run: x\n");
    assertEquals(ResourceRequest.NONE, bare.resources());
    assertEquals(Optional.empty(), bare.procsPerNode());
    assertEquals(Optional.empty(), bare.retries());
    assertEquals(Optional.empty(), bare.name());
    assertEquals(Optional.empty(), bare.timeout());
  }

  @Test
  @DisplayName("env values: text as is, numbers and booleans as written (`1e3`, `0x1F`, `yes`)")
  void envAsWritten(@TempDir Path dir) throws Exception {
    TrainSpec spec = bind(dir, "run: x\nenv:\n  A: '007'\n  B: 1e3\n  C: 0x1F\n  D: yes\n");
    assertEquals(Map.of("A", "007", "B", "1e3", "C", "0x1F", "D", "yes"), spec.env());
  }

  @Test
  @DisplayName(
      "a volume without readOnly is read-write; a secret with only a path has no key or env")
  void volumeAndSecretDefaults(@TempDir Path dir) throws Exception {
    TrainSpec spec =
        bind(
            dir,
            "run: x\nvolumes:\n  - {claim: c, path: /c}\n  - {claim: d, path: /d, readOnly: false}\n"
                + "secrets:\n  - {name: s, path: /s}\n");
    assertEquals(
        List.of(new VolumeMount("c", "/c", false), new VolumeMount("d", "/d", false)),
        spec.volumes());
    assertEquals(
        List.of(new SecretRef("s", Optional.empty(), Optional.empty(), Optional.of("/s"))),
        spec.secrets());
  }

  @Test
  @DisplayName("an unreadable file stops the reader with FILE_UNREADABLE and binds nothing")
  void unreadable(@TempDir Path dir) {
    StageResult<TrainSpec> result = reader.read(dir.resolve("absent.yaml"), "absent.yaml");
    assertTrue(result.value().isEmpty());
    assertEquals(
        List.of("absent.yaml E108 cannot read the file: no such file"),
        result.diagnostics().stream()
            .map(d -> d.location() + " " + d.code().id() + " " + d.message())
            .toList());
  }

  @Test
  @DisplayName("binding a document without `run` is a programming error, not a diagnostic")
  void bindNeedsValidatedDocument() {
    ParsedDocument doc =
        new YamlDocumentLoader().load(new SourceFile("t.yaml", "nodes: 2\n")).value().orElseThrow();
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new TrainSpecBinder().bind(doc));
    assertEquals("bind() needs a schema-validated train.yaml; `run` is missing", e.getMessage());
    ParsedDocument listRun =
        new YamlDocumentLoader().load(new SourceFile("t.yaml", "run: [a]\n")).value().orElseThrow();
    assertThrows(IllegalArgumentException.class, () -> new TrainSpecBinder().bind(listRun));
  }

  @Test
  @DisplayName("records refuse null required parts and copy their collections sorted and read-only")
  void recordInvariants() {
    assertThrows(
        NullPointerException.class,
        () -> new SecretRef(null, Optional.empty(), Optional.empty(), Optional.empty()));
    assertThrows(NullPointerException.class, () -> new VolumeMount(null, "/p", false));
    assertThrows(NullPointerException.class, () -> new VolumeMount("c", null, false));
    assertEquals(new ProcsPerNode(false, 3), ProcsPerNode.of(3));
    assertEquals(new ProcsPerNode(true, 0), ProcsPerNode.AUTO);
    ParsedDocument doc =
        new YamlDocumentLoader().load(new SourceFile("t.yaml", "run: x\n")).value().orElseThrow();
    TreeMap<String, String> env = new TreeMap<>(Map.of("B", "2", "A", "1"));
    TrainSpec spec =
        new TrainSpec(
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            "x",
            Optional.empty(),
            Optional.empty(),
            ResourceRequest.NONE,
            env,
            List.of(),
            List.of(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            doc);
    env.put("C", "3");
    assertEquals(List.of("A", "B"), List.copyOf(spec.env().keySet()));
    assertThrows(UnsupportedOperationException.class, () -> spec.env().put("D", "4"));
    assertThrows(
        NullPointerException.class,
        () ->
            new TrainSpec(
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                null,
                Optional.empty(),
                Optional.empty(),
                ResourceRequest.NONE,
                env,
                List.of(),
                List.of(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                doc));
    assertThrows(
        NullPointerException.class,
        () ->
            new TrainSpec(
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                "x",
                Optional.empty(),
                Optional.empty(),
                null,
                env,
                List.of(),
                List.of(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                doc));
    assertThrows(
        NullPointerException.class,
        () ->
            new TrainSpec(
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                "x",
                Optional.empty(),
                Optional.empty(),
                ResourceRequest.NONE,
                env,
                List.of(),
                List.of(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                null,
                Optional.empty(),
                doc));
    assertThrows(
        NullPointerException.class,
        () ->
            new TrainSpec(
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                "x",
                Optional.empty(),
                Optional.empty(),
                ResourceRequest.NONE,
                env,
                List.of(),
                List.of(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                null,
                doc));
    assertThrows(
        NullPointerException.class,
        () ->
            new TrainSpec(
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                "x",
                Optional.empty(),
                Optional.empty(),
                ResourceRequest.NONE,
                env,
                List.of(),
                List.of(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                null));
  }

  @Test
  @DisplayName("schema warnings alone do not stop the reader (only errors do)")
  void onlyErrorsStop(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("train.yaml");
    Files.writeString(file, "run: x\n");
    SpecReader warning =
        new SpecReader(
            new YamlDocumentLoader(),
            (doc, schema) ->
                List.of(
                    Diagnostic.warning(
                        DiagnosticCode.UNKNOWN_FIELD, doc.map().at(""), "", "just a warning")));
    StageResult<TrainSpec> result = warning.read(file, "train.yaml");
    assertEquals("x", result.value().orElseThrow().run());
    assertEquals(
        List.of("just a warning"), result.diagnostics().stream().map(Diagnostic::message).toList());
  }
}
