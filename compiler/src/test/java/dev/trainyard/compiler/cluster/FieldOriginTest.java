package dev.trainyard.compiler.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.testing.TrainProject;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which train.yaml field an API-server rejection of an emitted field points at. */
class FieldOriginTest {
  private static final JsonNode FULL =
      TrainProject.parse(
          "train.yaml",
          "name: demo\nimage: img\nenv: {A: '1'}\nresources: {gpuType: H100}\n"
              + "volumes: [{name: data, mountPath: /data}]\nnodes: 2\ntimeout: 1h\nretries: 1\nqueue: q\npriority: high\nworkdir: src\n"
              + "run: python x.py\n");
  private static final JsonNode BARE = TrainProject.parse("train.yaml", "run: python x.py\n");

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "metadata.name, /name",
    "spec.network.subdomain, /name",
    "spec.replicatedJobs[0].template.spec.template.spec.containers[0].image, /image",
    "spec.replicatedJobs[0].template.spec.template.spec.containers[0].env[2].name, /env",
    "spec.replicatedJobs[0].template.spec.template.spec.containers[0].resources.limits.cpu, /resources",
    "spec.replicatedJobs[0].template.spec.template.spec.volumes[0].name, /volumes",
    "spec.replicatedJobs[0].template.spec.template.spec.containers[0].volumeMounts[0].mountPath, /volumes",
    "spec.replicatedJobs[0].template.spec.parallelism, /nodes",
    "spec.replicatedJobs[0].template.spec.completions, /nodes",
    "spec.replicatedJobs[0].template.spec.activeDeadlineSeconds, /timeout",
    "spec.failurePolicy.maxRestarts, /retries",
    "metadata.labels.kueue.x-k8s.io/queue-name, /queue",
    "metadata.labels.kueue.x-k8s.io/priority-class, /priority",
    "spec.replicatedJobs[0].template.spec.template.spec.containers[0].workingDir, /workdir",
    "spec.replicatedJobs[0].template.spec.template.spec.nodeSelector, /resources/gpuType",
    "spec.startupPolicy.startupPolicyOrder, ''"
  })
  @DisplayName(
      "each emitted field maps to the train.yaml field it comes from; an unknown field to the file")
  void written(String field, String pointer) {
    assertEquals(pointer, FieldOrigin.pointerFor(field, FULL));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "metadata.name",
    "spec.replicatedJobs[0].template.spec.template.spec.containers[0].image",
    "spec.replicatedJobs[0].template.spec.parallelism",
    "spec.failurePolicy.maxRestarts"
  })
  @DisplayName("a field the user did not write points at the file (the runtime set it)")
  void notWritten(String field) {
    assertEquals("", FieldOrigin.pointerFor(field, BARE));
  }
}
