package dev.trainyard.compiler.render;

import static dev.trainyard.compiler.testing.TrainProject.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.testing.CompileCall;
import dev.trainyard.compiler.testing.TrainProject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JobSet as assembled around the plugin's pods: every field the JobSet webhook would default
 * written out, the failure policies, the Job spec, and a runtime skeleton merged under the
 * generated fields.
 */
class JobSetBuilderTest {
  @TempDir Path dir;

  private JsonNode torch() {
    CompileResult r =
        TrainProject.create(
                dir,
                "name: js\nruntime: torch\nnodes: 3\nrun: torchrun t.py\nretries: 4\ntimeout: 2h\n")
            .compile();
    return object(r, "JobSet");
  }

  @Test
  @DisplayName(
      "spec: DNS hostnames with not-ready addresses on subdomain <run>, success when All jobs succeed, AnyOrder start-up")
  void webhookDefaultsWritten() {
    JsonNode js = torch();
    String run = js.path("metadata").path("name").asText();
    assertEquals(
        "{\"enableDNSHostnames\":true,\"publishNotReadyAddresses\":true,\"subdomain\":\""
            + run
            + "\"}",
        js.path("spec").path("network").toString());
    assertEquals("{\"operator\":\"All\"}", js.path("spec").path("successPolicy").toString());
    assertEquals(
        "{\"startupPolicyOrder\":\"AnyOrder\"}", js.path("spec").path("startupPolicy").toString());
    assertEquals("jobset.x-k8s.io/v1alpha2", js.path("apiVersion").asText());
  }

  @Test
  @DisplayName(
      "failurePolicy: maxRestarts = retries, Recreate; rules RestartOnDisruption, FailOnDeadline, FailOnUserExitCode in that order")
  void failurePolicy() {
    assertEquals(
        "{\"maxRestarts\":4,\"restartStrategy\":\"Recreate\",\"rules\":["
            + "{\"action\":\"RestartJobSet\",\"name\":\"RestartOnDisruption\",\"onJobFailureMessagePatterns\":"
            + "[\"^Pod [^ ]+ has condition DisruptionTarget matching FailJob rule\"],\"onJobFailureReasons\":[\"PodFailurePolicy\"]},"
            + "{\"action\":\"FailJobSet\",\"name\":\"FailOnDeadline\",\"onJobFailureReasons\":[\"DeadlineExceeded\"]},"
            + "{\"action\":\"FailJobSet\",\"name\":\"FailOnUserExitCode\",\"onJobFailureMessagePatterns\":"
            + "[\"^Container node for pod [^ ]+ failed with exit code\"],\"onJobFailureReasons\":[\"PodFailurePolicy\"]}]}",
        torch().path("spec").path("failurePolicy").toString());
  }

  @Test
  @DisplayName(
      "the node job: group default, 1 replica, Indexed with one pod per node, backoffLimit 0 and no per-index limit, the timeout as deadline")
  void jobSpec() {
    JsonNode rj = torch().path("spec").path("replicatedJobs").path(0);
    assertEquals("node", rj.path("name").asText());
    assertEquals("default", rj.path("groupName").asText());
    assertEquals(1, rj.path("replicas").asInt());
    assertTrue(rj.path("dependsOn").isMissingNode(), rj.toString());
    JsonNode spec = rj.path("template").path("spec");
    assertEquals(3, spec.path("parallelism").asInt());
    assertEquals(3, spec.path("completions").asInt());
    assertEquals("Indexed", spec.path("completionMode").asText());
    assertEquals(0, spec.path("backoffLimit").asInt(-1));
    assertTrue(spec.path("backoffLimit").isInt());
    assertTrue(spec.path("backoffLimitPerIndex").isMissingNode(), spec.toString());
    assertEquals(7200, spec.path("activeDeadlineSeconds").asLong());
  }

  @Test
  @DisplayName(
      "podFailurePolicy: DisruptionTarget, a node exit and a code-sync exit each fail the Job at once; a SIGTERM exit (143) fails nothing")
  void podFailurePolicy() {
    assertEquals(
        "{\"rules\":[{\"action\":\"FailJob\",\"onPodConditions\":[{\"status\":\"True\",\"type\":\"DisruptionTarget\"}]},"
            + "{\"action\":\"FailJob\",\"onExitCodes\":{\"containerName\":\"node\",\"operator\":\"NotIn\",\"values\":[0,143]}},"
            + "{\"action\":\"FailJob\",\"onExitCodes\":{\"containerName\":\"code-sync\",\"operator\":\"NotIn\",\"values\":[0,143]}}]}",
        torch()
            .path("spec")
            .path("replicatedJobs")
            .path(0)
            .path("template")
            .path("spec")
            .path("podFailurePolicy")
            .toString());
  }

  @Test
  @DisplayName(
      "torch pods carry the run label and only the torch skeleton's framework annotation: no mesh opt-out, no runs-ranks")
  void podMetadata() {
    JsonNode js = torch();
    JsonNode meta =
        js.path("spec")
            .path("replicatedJobs")
            .path(0)
            .path("template")
            .path("spec")
            .path("template")
            .path("metadata");
    assertEquals(
        "{\"annotations\":{\"trainyard.dev/framework\":\"torch\"},\"labels\":{\"trainyard.dev/run\":\""
            + js.path("metadata").path("name").asText()
            + "\"}}",
        meta.toString());
  }

  @Test
  @DisplayName(
      "a runtime skeleton merges under the generated job: its sidecar and extra env stay, generated fields win, metadata joins the JobSet's")
  void skeletonMerged() throws IOException {
    Path folder = Files.createDirectories(dir.resolve("runtimes/sk/1.0-1"));
    Files.writeString(
        folder.resolve("runtime.yaml"),
        "apiVersion: trainyard.dev/v1\nkind: Runtime\nname: sk\nversion: 1.0-1\n"
            + "framework: torch\nimage: docker.io/acme/t:1\n"
            + "jobset:\n  metadata:\n    labels: {acme.dev/team: ml, trainyard.dev/run: skeleton}\n    annotations: {acme.dev/owner: '{{ job.runName }}'}\n"
            + "  spec:\n    replicatedJobs:\n      - name: node\n        replicas: 7\n        template:\n          spec:\n"
            + "            template:\n              spec:\n                priorityClassName: batch\n                containers:\n"
            + "                  - name: node\n                    env: [{name: ACME, value: '{{ image }} {{ job.gpus }}'}]\n"
            + "                  - name: sidecar\n                    image: docker.io/acme/side:1\n");
    TrainProject p =
        TrainProject.create(
            dir.resolve("p"), "name: sk\nruntime: sk\nrun: torchrun t.py\nresources: {gpus: 2}\n");
    CompileResult r = CompileCall.of(p.trainYaml()).runtimes(dir.resolve("runtimes")).compile();
    JsonNode js = object(r, "JobSet");
    String run = js.path("metadata").path("name").asText();
    assertEquals("ml", js.path("metadata").path("labels").path("acme.dev/team").asText());
    assertEquals(
        run,
        js.path("metadata").path("labels").path("trainyard.dev/run").asText(),
        "the run label is Trainyard's");
    assertEquals(run, js.path("metadata").path("annotations").path("acme.dev/owner").asText());
    JsonNode rj = js.path("spec").path("replicatedJobs").path(0);
    assertEquals(1, rj.path("replicas").asInt(), "generated replicas win");
    JsonNode pod = rj.path("template").path("spec").path("template").path("spec");
    assertEquals("batch", pod.path("priorityClassName").asText());
    assertEquals("node", pod.path("containers").path(0).path("name").asText());
    assertEquals("sidecar", pod.path("containers").path(1).path("name").asText());
    assertEquals("docker.io/acme/side:1", pod.path("containers").path(1).path("image").asText());
    assertEquals("docker.io/acme/t:1", pod.path("containers").path(0).path("image").asText());
    assertEquals(
        "docker.io/acme/t:1 2", TrainProject.env(js, "node", "ACME").path("value").asText());
    assertEquals(
        "torchrun t.py", TrainProject.env(js, "node", "TRAINYARD_RUN").path("value").asText());
  }
}
