package dev.trainyard.compiler.render;

import static dev.trainyard.compiler.testing.TrainProject.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.CompileRequest;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Provenance on the emitted objects: where the run came from, which runtime built it, and Kueue's
 * labels.
 */
class ProvenanceTest {
  @TempDir Path dir;

  private CompileResult compile(String extra) {
    return TrainProject.create(dir, "name: prov\nruntime: torch\nrun: python t.py\n" + extra)
        .compile();
  }

  @Test
  @DisplayName(
      "the JobSet names its source repo, commit and train.yaml path, the runtime and its digest, the image, compiler and cluster")
  void annotations() {
    JsonNode meta = object(compile(""), "JobSet").path("metadata");
    JsonNode a = meta.path("annotations");
    assertEquals(TrainProject.REMOTE, a.path(Provenance.SOURCE_REPO).asText());
    assertTrue(a.path(Provenance.SOURCE_COMMIT).asText().matches("[0-9a-f]{40}"), a.toString());
    assertEquals(TrainProject.FOLDER + "/train.yaml", a.path(Provenance.SOURCE_PATH).asText());
    assertEquals("torch@2.13.0-2", a.path(Provenance.RUNTIME).asText());
    assertTrue(
        a.path(Provenance.RUNTIME_DIGEST).asText().matches("sha256:[0-9a-f]{64}"), a.toString());
    assertTrue(
        a.path(Provenance.IMAGE).asText().startsWith("docker.io/pytorch/pytorch:2.13.0"),
        a.toString());
    assertEquals("local", a.path(Provenance.CLUSTER).asText());
    assertTrue(a.has(Provenance.COMPILER_VERSION), a.toString());
    assertTrue(
        a.path(Provenance.CREATED_AT).isMissingNode(),
        "no created-at when the request names no creation time: " + a);
    assertTrue(
        a.path(Provenance.IMAGE_SOURCE).isMissingNode(),
        "the runtime's image has no image-source: " + a);
    assertEquals(8, a.size(), a.toString());
  }

  @Test
  @DisplayName(
      "an image: in train.yaml is marked image-source train.yaml, so the controller can tell the user's image from the runtime's")
  void imageFromTrainYaml() {
    JsonNode a =
        object(compile("image: ghcr.io/acme/trainer:1.2\n"), "JobSet")
            .path("metadata")
            .path("annotations");
    assertEquals("ghcr.io/acme/trainer:1.2", a.path(Provenance.IMAGE).asText(), a.toString());
    assertEquals("train.yaml", a.path(Provenance.IMAGE_SOURCE).asText(), a.toString());
  }

  @Test
  @DisplayName(
      "the JobSet is labelled managed-by trainyard, with job, run and Kueue queue-name; no priority-class without priority")
  void jobSetLabels() {
    JsonNode meta = object(compile(""), "JobSet").path("metadata");
    assertEquals(
        "{\"app.kubernetes.io/managed-by\":\"trainyard\",\"kueue.x-k8s.io/queue-name\":\"default\","
            + "\"trainyard.dev/job\":\"prov\",\"trainyard.dev/run\":\""
            + meta.path("name").asText()
            + "\"}",
        meta.path("labels").toString());
  }

  @Test
  @DisplayName("priority in train.yaml is Kueue's priority-class label on the JobSet")
  void priorityLabel() {
    CompileResult r = compile("priority: high\n");
    assertEquals(
        "high",
        object(r, "JobSet")
            .path("metadata")
            .path("labels")
            .path(Provenance.PRIORITY_CLASS)
            .asText(),
        r.diagnostics().toString());
  }

  @Test
  @DisplayName(
      "a request with a submit time records it as created-at in ISO-8601 UTC whole seconds")
  void createdAt() {
    TrainProject p = TrainProject.create(dir, "name: prov\nruntime: torch\nrun: python t.py\n");
    var request =
        CompileRequest.builder(p.trainYaml())
            .displayPath("train.yaml")
            .createdAt(Instant.parse("2026-03-04T05:06:07.890Z"))
            .build();
    CompileResult r =
        new Compiler(
                new SshSecretProvider(
                    TrainProject.seeded(),
                    Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC)))
            .compile(request);
    assertEquals(
        "2026-03-04T05:06:07Z",
        object(r, "JobSet")
            .path("metadata")
            .path("annotations")
            .path(Provenance.CREATED_AT)
            .asText(),
        r.diagnostics().toString());
  }
}
