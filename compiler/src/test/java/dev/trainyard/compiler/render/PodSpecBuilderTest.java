package dev.trainyard.compiler.render;

import static dev.trainyard.compiler.testing.TrainProject.env;
import static dev.trainyard.compiler.testing.TrainProject.object;
import static dev.trainyard.compiler.testing.TrainProject.podSpec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.testing.PlatformYaml;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pod every training job shares, read from real compiles: a torch run with GPUs of one type,
 * Secrets (as env and as files), PVCs and a private-repo credential; and an MPI run whose image
 * owns HOME.
 */
class PodSpecBuilderTest {
  private static final String TORCH =
      "name: pods\nruntime: torch\nnodes: 2\nrun: torchrun t.py\n"
          + "resources: {gpus: 2, gpuType: H100, shm: 2Gi}\n"
          + "secrets: [{name: hf, key: token, env: HF_TOKEN}, {name: wandb, path: /etc/wandb/}]\n"
          + "volumes: [{claim: data, path: /data/, readOnly: true}, {claim: ckpt, path: /ckpt}]\n";

  @TempDir Path dir;

  private JsonNode torchPod(String trainYaml, String codeSync) {
    String platform = PlatformYaml.base().text() + codeSync;
    CompileResult r = TrainProject.create(dir, trainYaml).withPlatform(platform).compile();
    return podSpec(object(r, "JobSet"), "node");
  }

  private JsonNode torchPod() {
    return torchPod(
        TORCH,
        "codeSync: {image: registry.example.com/git-sync:v4, credentialSecret: git-creds}\n");
  }

  private static JsonNode named(JsonNode list, String name) {
    for (JsonNode n : list) {
      if (n.path("name").asText().equals(name)) {
        return n;
      }
    }
    return MissingNode.getInstance();
  }

  @Test
  @DisplayName(
      "a GPU pod requests and limits its GPUs under the platform's resource name, with its cpu and memory")
  void gpuResources() {
    assertEquals(
        "{\"limits\":{\"memory\":\"16Gi\",\"nvidia.com/gpu\":\"2\"},"
            + "\"requests\":{\"cpu\":\"4\",\"memory\":\"16Gi\",\"nvidia.com/gpu\":\"2\"}}",
        torchPod().path("containers").path(0).path("resources").toString());
  }

  @Test
  @DisplayName(
      "gpuType selects the platform's node labels for that type; without gpuType there is no nodeSelector")
  void nodeSelector() {
    assertEquals(
        "{\"nvidia.com/gpu.product\":\"NVIDIA-H100\"}", torchPod().path("nodeSelector").toString());
    JsonNode untyped =
        torchPod("name: pods\nruntime: torch\nrun: python t.py\nresources: {gpus: 1}\n", "");
    assertTrue(untyped.path("nodeSelector").isMissingNode(), untyped.toString());
  }

  @Test
  @DisplayName(
      "a Secret with env becomes a secretKeyRef; one with path a read-only secret volume at the normalised path")
  void secrets() {
    JsonNode pod = torchPod();
    JsonNode container = pod.path("containers").path(0);
    assertEquals(
        "{\"name\":\"HF_TOKEN\",\"valueFrom\":{\"secretKeyRef\":{\"key\":\"token\",\"name\":\"hf\"}}}",
        named(container.path("env"), "HF_TOKEN").toString());
    assertEquals(
        "{\"mountPath\":\"/etc/wandb\",\"name\":\"secret-1\",\"readOnly\":true}",
        named(container.path("volumeMounts"), "secret-1").toString());
    assertEquals(
        "{\"name\":\"secret-1\",\"secret\":{\"secretName\":\"wandb\"}}",
        named(pod.path("volumes"), "secret-1").toString());
    assertTrue(
        named(pod.path("volumes"), "secret-0").isMissingNode(),
        "an env-only Secret gets no volume");
  }

  @Test
  @DisplayName(
      "each PVC is volume pvc-<i> with its claim and readOnly, mounted at its normalised path")
  void volumes() {
    JsonNode pod = torchPod();
    JsonNode mounts = pod.path("containers").path(0).path("volumeMounts");
    assertEquals(
        "{\"mountPath\":\"/data\",\"name\":\"pvc-0\",\"readOnly\":true}",
        named(mounts, "pvc-0").toString());
    assertEquals(
        "{\"mountPath\":\"/ckpt\",\"name\":\"pvc-1\",\"readOnly\":false}",
        named(mounts, "pvc-1").toString());
    assertEquals(
        "{\"name\":\"pvc-0\",\"persistentVolumeClaim\":{\"claimName\":\"data\",\"readOnly\":true}}",
        named(pod.path("volumes"), "pvc-0").toString());
    assertEquals(
        "{\"name\":\"pvc-1\",\"persistentVolumeClaim\":{\"claimName\":\"ckpt\",\"readOnly\":false}}",
        named(pod.path("volumes"), "pvc-1").toString());
  }

  @Test
  @DisplayName(
      "workspace and a writable home are emptyDirs; /dev/shm is memory-backed with the run's shm as its limit")
  void scratchVolumes() {
    JsonNode pod = torchPod();
    assertEquals(
        "{\"emptyDir\":{},\"name\":\"workspace\"}",
        named(pod.path("volumes"), "workspace").toString());
    assertEquals(
        "{\"emptyDir\":{},\"name\":\"home\"}", named(pod.path("volumes"), "home").toString());
    assertEquals(
        "{\"emptyDir\":{\"medium\":\"Memory\",\"sizeLimit\":\"2Gi\"},\"name\":\"dshm\"}",
        named(pod.path("volumes"), "dshm").toString());
    JsonNode mounts = pod.path("containers").path(0).path("volumeMounts");
    assertEquals("/root", named(mounts, "home").path("mountPath").asText());
    assertEquals("/dev/shm", named(mounts, "dshm").path("mountPath").asText());
  }

  @Test
  @DisplayName(
      "code-sync clones $(GIT_REPO) at $(GIT_COMMIT) into /workspace, with the platform's credential Secret as GITSYNC_*")
  void codeSyncWithCredential() {
    JsonNode sync = torchPod().path("initContainers").path(0);
    assertEquals("code-sync", sync.path("name").asText());
    assertEquals("registry.example.com/git-sync:v4", sync.path("image").asText());
    assertEquals(
        "[\"--repo=$(GIT_REPO)\",\"--ref=$(GIT_COMMIT)\",\"--root=/workspace\",\"--link=src\",\"--one-time\",\"--depth=1\"]",
        sync.path("args").toString());
    assertEquals(
        "{\"name\":\"GITSYNC_PASSWORD\",\"valueFrom\":{\"secretKeyRef\":{\"key\":\"password\",\"name\":\"git-creds\"}}}",
        sync.path("env").path(0).toString());
    assertEquals(
        "{\"name\":\"GITSYNC_USERNAME\",\"valueFrom\":{\"secretKeyRef\":{\"key\":\"username\",\"name\":\"git-creds\"}}}",
        sync.path("env").path(1).toString());
    assertEquals("GIT_REPO", sync.path("env").path(3).path("name").asText());
    assertEquals(TrainProject.REMOTE, sync.path("env").path(3).path("value").asText());
    assertEquals(
        "{\"limits\":{\"cpu\":\"1\",\"memory\":\"512Mi\"},\"requests\":{\"cpu\":\"100m\",\"memory\":\"128Mi\"}}",
        sync.path("resources").toString());
    assertEquals("{\"runAsUser\":0}", sync.path("securityContext").toString());
    assertEquals(
        "[{\"mountPath\":\"/workspace\",\"name\":\"workspace\"}]",
        sync.path("volumeMounts").toString());
  }

  @Test
  @DisplayName("without a credential Secret code-sync gets only GIT_REPO and GIT_COMMIT")
  void codeSyncWithoutCredential() {
    JsonNode sync = torchPod(TORCH, "").path("initContainers").path(0);
    assertEquals(2, sync.path("env").size(), sync.path("env").toString());
    assertEquals("GIT_COMMIT", sync.path("env").path(0).path("name").asText());
  }

  @Test
  @DisplayName(
      "a root runtime's pod sets runAsUser 0 only: no runAsGroup or fsGroup 0, no restricted fields")
  void rootSecurityContext() {
    JsonNode pod = torchPod();
    assertEquals("{\"runAsUser\":0}", pod.path("securityContext").toString());
    assertFalse(
        pod.path("containers").path(0).has("securityContext"),
        pod.path("containers").path(0).toString());
    assertEquals("Never", pod.path("restartPolicy").asText());
  }

  @Test
  @DisplayName(
      "the node container runs the run's image IfNotPresent in the train.yaml folder under /workspace/src")
  void nodeContainer() {
    JsonNode c = torchPod().path("containers").path(0);
    assertEquals("node", c.path("name").asText());
    assertEquals("IfNotPresent", c.path("imagePullPolicy").asText());
    assertEquals("/workspace/src/" + TrainProject.FOLDER, c.path("workingDir").asText());
    assertTrue(
        c.path("image").asText().startsWith("docker.io/pytorch/pytorch:2.13.0"),
        c.path("image").asText());
  }

  @Test
  @DisplayName(
      "a non-root runtime whose image owns HOME: group and fsGroup are the uid, and only HOME/.cache is scratch")
  void nonRootImageOwnsHome() {
    CompileResult r =
        TrainProject.create(dir, "name: mp\nruntime: mpi\nnodes: 2\nrun: python t.py\n").compile();
    JsonNode pod = podSpec(object(r, "JobSet"), "node");
    assertEquals(
        "{\"fsGroup\":1000,\"runAsGroup\":1000,\"runAsNonRoot\":true,\"runAsUser\":1000,"
            + "\"seccompProfile\":{\"type\":\"RuntimeDefault\"}}",
        pod.path("securityContext").toString());
    assertEquals(
        "{\"emptyDir\":{},\"name\":\"cache\"}", named(pod.path("volumes"), "cache").toString());
    assertTrue(named(pod.path("volumes"), "home").isMissingNode(), pod.path("volumes").toString());
    assertEquals(
        "/home/mpiuser/.cache",
        named(pod.path("containers").path(0).path("volumeMounts"), "cache")
            .path("mountPath")
            .asText());
    assertEquals("/home/mpiuser", env(object(r, "JobSet"), "node", "HOME").path("value").asText());
    JsonNode sync = pod.path("initContainers").path(0).path("securityContext");
    assertEquals(
        "{\"allowPrivilegeEscalation\":false,\"capabilities\":{\"drop\":[\"ALL\"]},\"runAsUser\":1000}",
        sync.toString());
  }

  @Test
  @DisplayName(
      "a pod without GPUs requests the run's cpu and memory only: no GPU resource, not even \"0\"")
  void cpuResources() {
    JsonNode pod =
        torchPod(
            "name: pods\nruntime: torch\nrun: python t.py\nresources: {cpu: 3, memory: 5Gi}\n", "");
    assertEquals(
        "{\"limits\":{\"memory\":\"5Gi\"},\"requests\":{\"cpu\":\"3\",\"memory\":\"5Gi\"}}",
        pod.path("containers").path(0).path("resources").toString());
  }

  @Test
  @DisplayName(
      "a run without gpuType gets no nodeSelector even when platform.yaml names a GPU type \"\"")
  void noTypeIsNotTheEmptyType() {
    String platform =
        PlatformYaml.base()
            .gpuTypes("{\"\": {pool: any}, H100: {nvidia.com/gpu.product: NVIDIA-H100}}")
            .text();
    CompileResult r =
        TrainProject.create(
                dir, "name: pods\nruntime: torch\nrun: python t.py\nresources: {gpus: 1}\n")
            .withPlatform(platform)
            .compile();
    JsonNode pod = podSpec(object(r, "JobSet"), "node");
    assertTrue(pod.path("nodeSelector").isMissingNode(), pod.path("nodeSelector").toString());
  }
}
