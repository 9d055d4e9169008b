package dev.trainyard.compiler.cases;

import static dev.trainyard.compiler.testing.TrainProject.object;
import static dev.trainyard.compiler.testing.TrainProject.podSpec;
import static dev.trainyard.compiler.testing.TrainProject.withCode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.PlatformYaml;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Node disk (platform.yaml {@code ephemeralStorage}): the code-sync and node containers of every
 * pod request the same ephemeral-storage (and limit), so the scheduler picks nodes with disk and a
 * LimitRange that requires it admits the pod; no platform setting, no request; a ClusterQueue that
 * does not cover it (kueue#4848), a limit below the request and a run over the queue's disk quota
 * are errors before any commit.
 */
class EphemeralStorageTest {
  static final String COVERED =
      "{cpu: \"64\", memory: 256Gi, nvidia.com/gpu: \"16\", ephemeral-storage: 1Ti}";

  @TempDir Path dir;

  CompileResult compile(String trainYaml, String platformYaml) {
    return TrainProject.create(dir, trainYaml).withPlatform(platformYaml).compile();
  }

  static String platform(String quota, String ephemeralStorage) {
    return PlatformYaml.base().quota(quota).text() + "ephemeralStorage: " + ephemeralStorage + "\n";
  }

  static JsonNode resources(JsonNode pod, String containers) {
    return pod.path(containers).path(0).path("resources");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"torch", "mpi"})
  @DisplayName(
      "the embedded platform: every pod's code-sync and node containers request 10Gi of node disk, no limit")
  void embeddedDefaultRequests(String runtime) {
    JsonNode js =
        object(
            TrainProject.create(dir, "runtime: " + runtime + "\nrun: python train.py\nnodes: 2\n")
                .compile(),
            "JobSet");
    List<String> rjobs = CaseCompile.replicatedJobNames(js);
    assertEquals(runtime.equals("mpi") ? 2 : 1, rjobs.size(), rjobs.toString());
    for (String rjob : rjobs) {
      JsonNode pod = podSpec(js, rjob);
      for (String containers : List.of("initContainers", "containers")) {
        JsonNode r = resources(pod, containers);
        assertEquals("10Gi", r.at("/requests/ephemeral-storage").asText(), rjob + " " + containers);
        assertTrue(r.at("/limits/ephemeral-storage").isMissingNode(), rjob + " " + containers);
      }
    }
  }

  @Test
  @DisplayName(
      "request and limit from platform.yaml land on both containers; the memory-backed /dev/shm keeps its own sizeLimit")
  void requestAndLimit() {
    CompileResult result =
        compile("run: python train.py\n", platform(COVERED, "{request: 20Gi, limit: 80Gi}"));
    JsonNode pod = podSpec(object(result, "JobSet"), "node");
    for (String containers : List.of("initContainers", "containers")) {
      JsonNode r = resources(pod, containers);
      assertEquals("20Gi", r.at("/requests/ephemeral-storage").asText(), containers);
      assertEquals("80Gi", r.at("/limits/ephemeral-storage").asText(), containers);
    }
    for (JsonNode v : pod.path("volumes")) {
      if (v.has("emptyDir") && !v.at("/emptyDir/medium").asText().equals("Memory")) {
        assertFalse(v.at("/emptyDir").has("sizeLimit"), v.toString());
      }
    }
  }

  @Test
  @DisplayName("a platform.yaml without ephemeralStorage compiles pods with no ephemeral-storage")
  void noSettingNoRequest() {
    String jobSet =
        object(compile("run: python train.py\n", PlatformYaml.base().text()), "JobSet").toString();
    assertFalse(jobSet.contains("ephemeral-storage"), jobSet);
  }

  @Test
  @DisplayName(
      "a request with a ClusterQueue that covers no ephemeral-storage is E304 at the queue's flavors, naming kueue#4848")
  void uncoveredQueueRefused() {
    CompileResult result =
        compile(
            "run: python train.py\n", platform("{cpu: \"64\", memory: 256Gi}", "{request: 20Gi}"));
    List<Diagnostic> d = withCode(result, DiagnosticCode.INVALID_PLATFORM);
    assertEquals(1, d.size(), result.diagnostics().toString());
    assertEquals("/queues/clusterQueues/0/flavors", d.get(0).pointer());
    assertEquals(10, d.get(0).location().line());
    assertTrue(d.get(0).message().contains("ClusterQueue `cq` covers no `ephemeral-storage`"));
    assertTrue(d.get(0).message().contains("kueue#4848"), d.get(0).message());
    assertTrue(d.get(0).hint().contains("ephemeral-storage: <quantity>"));
  }

  @Test
  @DisplayName("a limit below the request is E304 at ephemeralStorage.limit")
  void limitBelowRequest() {
    CompileResult result =
        compile("run: python train.py\n", platform(COVERED, "{request: 20Gi, limit: 10Gi}"));
    List<Diagnostic> d = withCode(result, DiagnosticCode.INVALID_PLATFORM);
    assertEquals(1, d.size(), result.diagnostics().toString());
    assertEquals("/ephemeralStorage/limit", d.get(0).pointer());
    assertTrue(d.get(0).location().file().endsWith("platform.yaml"), d.get(0).location().file());
    assertTrue(d.get(0).message().contains("10Gi is below `ephemeralStorage.request` 20Gi"));
  }

  @Test
  @DisplayName(
      "nodes × request over the queue's ephemeral-storage quota is E414 at nodes; the request alone is not")
  void overDiskQuota() {
    String quota = "{cpu: \"64\", memory: 256Gi, ephemeral-storage: 100Gi}";
    CompileResult over =
        compile("run: python train.py\nnodes: 3\n", platform(quota, "{request: 40Gi}"));
    List<Diagnostic> d = withCode(over, DiagnosticCode.OVER_QUOTA);
    assertEquals(1, d.size(), over.diagnostics().toString());
    assertEquals("/nodes", d.get(0).pointer());
    assertTrue(d.get(0).message().contains("120Gi of `ephemeral-storage`"), d.get(0).message());
    CompileResult fits =
        compile("run: python train.py\nnodes: 2\n", platform(quota, "{request: 40Gi}"));
    assertFalse(fits.hasErrors(), fits.diagnostics().toString());
  }
}
