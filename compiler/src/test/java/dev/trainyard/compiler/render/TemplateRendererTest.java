package dev.trainyard.compiler.render;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.testing.CompileCall;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Pebble expressions in the string values of a runtime's JobSet skeleton. */
class TemplateRendererTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  private static final Map<String, Object> CONTEXT =
      Map.of(
          "job",
          Map.of("name", "demo", "nodes", 3),
          "runtime",
          Map.of("name", "tmpl", "version", "1.0-1"),
          "image",
          "img@sha256:x");
  @TempDir Path temp;

  private static JsonNode tree(String yaml) {
    return TrainProject.parse("skeleton.yaml", yaml);
  }

  @Test
  @DisplayName(
      "expressions and tags are rendered in object values, array items and nested arrays; other values stay as written")
  void rendersEverywhere() {
    JsonNode t =
        tree(
            "a: '{{ job.name }}-{{ job.nodes }}'\nb: [x, '{{ runtime.name }}@{{ runtime.version }}', [\"{{ image }}\"]]\n"
                + "c: {d: [{e: '{% if job.nodes > 2 %}many{% else %}few{% endif %}'}]}\nn: 5\nplain: 'no {expression} here'\n"
                + "hash: 'a {# is no comment here #} b'\n");
    List<Diagnostic> problems =
        new TemplateRenderer().renderInPlace(t, CONTEXT, "tmpl/1.0-1/runtime.yaml");
    assertEquals(List.of(), problems);
    assertEquals("demo-3", t.path("a").asText());
    assertEquals("x", t.path("b").path(0).asText());
    assertEquals("tmpl@1.0-1", t.path("b").path(1).asText());
    assertEquals("img@sha256:x", t.path("b").path(2).path(0).asText());
    assertEquals("many", t.path("c").path("d").path(0).path("e").asText());
    assertEquals(5, t.path("n").asInt());
    assertTrue(t.path("n").isInt());
    assertEquals("no {expression} here", t.path("plain").asText());
    assertEquals("a {# is no comment here #} b", t.path("hash").asText());
  }

  @Test
  @DisplayName(
      "an unknown variable is E501 at the runtime file with the value's JSON pointer (~1 for /), not an empty string")
  void unknownVariable() {
    JsonNode t =
        tree(
            "metadata:\n  annotations:\n    trainyard.dev/x: '{{ job.nope }}'\nlist: ['{{ job.name }}', '{{ nope }}']\n");
    List<Diagnostic> problems =
        new TemplateRenderer().renderInPlace(t, CONTEXT, "tmpl/1.0-1/runtime.yaml");
    assertEquals(2, problems.size(), problems.toString());
    Diagnostic d = problems.get(0);
    assertEquals(DiagnosticCode.TEMPLATE_ERROR, d.code());
    assertTrue(d.isError());
    assertEquals(SourceLocation.ofFile("tmpl/1.0-1/runtime.yaml"), d.location());
    assertEquals("/jobset/metadata/annotations/trainyard.dev~1x", d.pointer());
    WORDING.approve(d.message());
    WORDING.approve(d.hint());
    assertEquals("/jobset/list/1", problems.get(1).pointer());
    WORDING.approve(problems.get(1).message());
    assertFalse(d.message().contains("java."), "no Java class names: " + d.message());
    assertEquals(
        "{{ job.nope }}", t.path("metadata").path("annotations").path("trainyard.dev/x").asText());
    assertEquals("demo", t.path("list").path(0).asText());
  }

  @Test
  @DisplayName(
      "a runtime from the platform's runtimes folder gets its skeleton rendered into the JobSet")
  void compiledRuntime() throws IOException {
    Path dir = Files.createDirectories(temp.resolve("runtimes/tmpl/1.0-1"));
    Files.writeString(
        dir.resolve("runtime.yaml"),
        "apiVersion: trainyard.dev/v1\nkind: Runtime\nname: tmpl\nversion: 1.0-1\n"
            + "framework: torch\nimage: docker.io/acme/t@sha256:"
            + "b".repeat(64)
            + "\n"
            + "jobset:\n  spec:\n    replicatedJobs:\n      - name: node\n        template:\n          spec:\n            template:\n"
            + "              metadata:\n                annotations:\n"
            + "                  acme.dev/shape: '{{ job.name }} on {{ job.nodes }} x {{ job.procsPerNode }} in {{ job.namespace }}'\n"
            + "              spec:\n                dnsConfig:\n                  searches: ['{{ runtime.name }}-{{ runtime.version }}.svc']\n");
    TrainProject p =
        TrainProject.create(
            temp.resolve("p"),
            "name: demo\nruntime: tmpl\nnodes: 2\nrun: torchrun train.py\n"
                + "resources: {gpus: 4}\n");
    CompileResult r = CompileCall.of(p.trainYaml()).runtimes(temp.resolve("runtimes")).compile();
    JsonNode pod =
        TrainProject.object(r, "JobSet")
            .path("spec")
            .path("replicatedJobs")
            .path(0)
            .path("template")
            .path("spec")
            .path("template");
    assertEquals(
        "demo on 2 x 4 in default",
        pod.path("metadata").path("annotations").path("acme.dev/shape").asText());
    assertEquals(
        "tmpl-1.0-1.svc", pod.path("spec").path("dnsConfig").path("searches").path(0).asText());
  }
}
