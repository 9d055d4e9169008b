package dev.trainyard.compiler.render;

import static dev.trainyard.compiler.testing.TrainProject.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.CompileCall;
import dev.trainyard.compiler.testing.TrainProject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The render stage end to end: a broken runtime template stops the compile; extra objects get the
 * run's stamp.
 */
class RenderStageTest {
  @TempDir Path dir;

  @Test
  @DisplayName(
      "a runtime template with an unknown variable stops the compile: E501 at the runtime file, no tree")
  void templateErrorStops() throws IOException {
    Path folder = Files.createDirectories(dir.resolve("runtimes/bad/1.0-1"));
    Files.writeString(
        folder.resolve("runtime.yaml"),
        "apiVersion: trainyard.dev/v1\nkind: Runtime\nname: bad\nversion: 1.0-1\n"
            + "framework: torch\nimage: docker.io/acme/t:1\njobset:\n  metadata:\n    annotations: {acme.dev/x: '{{ job.nope }}'}\n");
    TrainProject p =
        TrainProject.create(dir.resolve("p"), "name: bad\nruntime: bad\nrun: python t.py\n");
    CompileResult r = CompileCall.of(p.trainYaml()).runtimes(dir.resolve("runtimes")).compile();
    assertTrue(r.tree().isEmpty(), "no output for a broken runtime");
    List<Diagnostic> errors = TrainProject.withCode(r, DiagnosticCode.TEMPLATE_ERROR);
    assertEquals(1, errors.size(), r.diagnostics().toString());
    assertEquals("/jobset/metadata/annotations/acme.dev~1x", errors.get(0).pointer());
    assertTrue(
        errors.get(0).location().file().endsWith("bad/1.0-1/runtime.yaml"),
        errors.get(0).location().file());
  }

  @Test
  @DisplayName(
      "the run's other objects (MPI ConfigMap and Secret) carry the run labels and provenance annotations")
  void extraObjectsStamped() {
    CompileResult r =
        TrainProject.create(dir, "name: mp\nruntime: mpi\nnodes: 2\nrun: python t.py\n").compile();
    JsonNode js = object(r, "JobSet");
    String run = js.path("metadata").path("name").asText();
    for (String kind : new String[] {"ConfigMap", "Secret"}) {
      JsonNode meta = object(r, kind).path("metadata");
      assertEquals(run, meta.path("labels").path(Provenance.RUN).asText(), kind);
      assertEquals("mp", meta.path("labels").path(Provenance.JOB).asText(), kind);
      assertEquals(
          "trainyard", meta.path("labels").path("app.kubernetes.io/managed-by").asText(), kind);
      assertTrue(
          meta.path("labels").path(Provenance.QUEUE_NAME).isMissingNode(),
          kind + ": the queue label is the JobSet's only");
      assertEquals(
          js.path("metadata").path("annotations").path(Provenance.SOURCE_COMMIT).asText(),
          meta.path("annotations").path(Provenance.SOURCE_COMMIT).asText(),
          kind);
      assertEquals("mpi@0.6.0-2", meta.path("annotations").path(Provenance.RUNTIME).asText(), kind);
    }
  }

  @Test
  @DisplayName(
      "queue objects carry the platform they came from and the compiler version, not a run's provenance")
  void queueAnnotations() {
    CompileResult r =
        TrainProject.create(dir, "name: q\nruntime: torch\nrun: python t.py\n").compile();
    String lq =
        TrainProject.tree(r).files().get("clusters/local/default/_queues/localqueue-default.yaml");
    JsonNode a = TrainProject.parse("lq", lq).path("metadata").path("annotations");
    assertEquals(2, a.size(), a.toString());
    assertTrue(a.has(Provenance.PLATFORM) && a.has(Provenance.COMPILER_VERSION), a.toString());
    assertEquals(
        object(r, "JobSet")
            .path("metadata")
            .path("annotations")
            .path(Provenance.COMPILER_VERSION)
            .asText(),
        a.path(Provenance.COMPILER_VERSION).asText());
  }
}
