package dev.trainyard.compiler.cases;

import static dev.trainyard.compiler.testing.TrainProject.env;
import static dev.trainyard.compiler.testing.TrainProject.object;
import static dev.trainyard.compiler.testing.TrainProject.podSpec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.testing.TrainProject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A GPU job must not train on the CPU: the generated start-up of every pod that requests GPUs
 * checks it sees them, with a driver at least the runtime's floor, and fails with exit 80 and a
 * message naming the node otherwise. The scripts run in real bash; {@code nvidia-smi} is a stand-in
 * printing what a node with the given GPUs and driver prints ({@code -L}: "GPU 0: NAME (UUID:
 * ...)"; {@code --query-gpu=driver_version --format=csv,noheader}: one version per GPU), since this
 * machine has no GPU.
 */
class GpuStartupCheckTest {
  @TempDir Path dir;
  Path bin;

  @BeforeEach
  void bash() throws IOException {
    ToolRun.require("bash", "bash");
    bin = Files.createDirectories(dir.resolve("bin"));
  }

  /** Puts an nvidia-smi on {@code bin} that lists {@code gpus} GPUs with driver {@code driver}. */
  void nvidiaSmi(int gpus, String driver) throws IOException {
    Path smi = bin.resolve("nvidia-smi");
    Files.writeString(
        smi,
        "#!/bin/bash\nif [ \"$1\" = -L ]; then for i in $(seq 0 $(("
            + gpus
            + " - 1))); do "
            + "echo \"GPU $i: NVIDIA H100 80GB HBM3 (UUID: GPU-$i)\"; done; exit 0; fi\n"
            + "for i in $(seq 1 "
            + gpus
            + "); do echo "
            + driver
            + "; done\n",
        StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(smi, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  /** Runs the torch node container's command with its literal env, nvidia-smi from {@link #bin}. */
  ToolRun runTorchNode(JsonNode js) {
    JsonNode c = podSpec(js, "node").path("containers").path(0);
    Map<String, String> envs = new HashMap<>();
    c.path("env")
        .forEach(
            e -> {
              if (e.has("value")) {
                envs.put(e.path("name").asText(), e.path("value").asText().replace("$$", "$"));
              }
            });
    envs.put("TRAINYARD_NODE_NAME", "gpu-node-7");
    envs.put("TRAINYARD_RUN", "echo trained on the GPUs");
    envs.put("PATH", bin + ":" + System.getenv("PATH"));
    List<String> argv =
        List.of(
            c.at("/command/0").asText(), c.at("/command/1").asText(), c.at("/command/2").asText());
    return ToolRun.run(argv, dir, envs);
  }

  JsonNode torch(int gpus) {
    return object(
        TrainProject.create(
                dir.resolve("p" + gpus),
                "runtime: torch\nrun: torchrun train.py\nnodes: 2\nresources: {gpus: "
                    + gpus
                    + "}\n")
            .compile(),
        "JobSet");
  }

  @Test
  @DisplayName("with all requested GPUs and a new enough driver the pod trains")
  void enoughGpusTrain() throws IOException {
    nvidiaSmi(2, "580.65.06");
    ToolRun run = runTorchNode(torch(2));
    assertEquals(0, run.exitCode(), run.output());
    assertEquals("trained on the GPUs\n", run.output());
  }

  @Test
  @DisplayName(
      "fewer GPUs than requested: exit 80, a platform error naming the node, nothing trains")
  void missingGpusFail() throws IOException {
    nvidiaSmi(1, "580.65.06");
    ToolRun run = runTorchNode(torch(2));
    assertEquals(80, run.exitCode(), run.output());
    assertTrue(
        run.output().startsWith("trainyard: platform error: node gpu-node-7 (pod "), run.output());
    assertTrue(run.output().contains("sees 1 of 2 requested GPU(s)"), run.output());
    assertFalse(run.output().contains("trained"), run.output());
  }

  @Test
  @DisplayName(
      "a driver older than the runtime's floor (CUDA 13: 580) fails before training on the CPU")
  void oldDriverFails() throws IOException {
    nvidiaSmi(2, "550.127.05");
    ToolRun run = runTorchNode(torch(2));
    assertEquals(80, run.exitCode(), run.output());
    assertTrue(
        run.output().contains("node gpu-node-7")
            && run.output()
                .contains("has NVIDIA driver 550.127.05; this image's CUDA needs 580 or newer"),
        run.output());
  }

  @Test
  @DisplayName("no nvidia-smi and no /dev/nvidia devices: the GPUs are missing")
  void noDevicesFail() {
    ToolRun run = runTorchNode(torch(1));
    assertEquals(80, run.exitCode(), run.output());
    assertTrue(run.output().contains("sees 0 of 1 requested GPU(s)"), run.output());
  }

  @Test
  @DisplayName("GPU pods learn their node from the downward API; CPU pods run no check")
  void onlyGpuPodsCheck() {
    JsonNode gpu = torch(2);
    assertEquals(
        "spec.nodeName",
        env(gpu, "node", "TRAINYARD_NODE_NAME").at("/valueFrom/fieldRef/fieldPath").asText());
    JsonNode cpu = torch(0);
    assertTrue(env(cpu, "node", "TRAINYARD_NODE_NAME").isMissingNode());
    assertFalse(podSpec(cpu, "node").at("/containers/0/command/2").asText().contains("nvidia-smi"));
  }

  @Test
  @DisplayName(
      "an image of the user's own is not the runtime's CUDA: only the device count is checked")
  void ownImageNoDriverFloor() throws IOException {
    nvidiaSmi(2, "470.1");
    JsonNode js =
        object(
            TrainProject.create(
                    dir.resolve("own"),
                    "runtime: torch\nimage: docker.io/acme/train@sha256:"
                        + "a".repeat(64)
                        + "\nrun: torchrun train.py\nresources: {gpus: 2}\n")
                .compile(),
            "JobSet");
    ToolRun run = runTorchNode(js);
    assertEquals(0, run.exitCode(), run.output());
    assertTrue(
        !podSpec(js, "node").at("/containers/0/command/2").asText().contains("trainyard_driver%%"),
        "no driver check");
  }

  @Test
  @DisplayName(
      "MPI node pods check before sshd starts; a launcher that trains checks too, a separate one does not")
  void mpiScriptsCheck() throws IOException {
    nvidiaSmi(1, "580.65.06");
    CompileResult deepspeed =
        TrainProject.create(
                dir.resolve("ds"),
                "runtime: deepspeed\nrun: python train.py\nnodes: 2\nresources: {gpus: 4}\n")
            .compile();
    Path node =
        Files.writeString(dir.resolve("node.sh"), CaseCompile.mpiFile(deepspeed, "node.sh"));
    ToolRun run =
        ToolRun.run(
            List.of("bash", node.toString()),
            dir,
            Map.of("PATH", bin + ":" + System.getenv("PATH"), "TRAINYARD_NODE_NAME", "gpu-3"));
    assertEquals(80, run.exitCode(), run.output());
    assertTrue(
        run.output().contains("node gpu-3")
            && run.output().contains("sees 1 of 4 requested GPU(s)"),
        run.output());
    assertTrue(
        CaseCompile.mpiFile(deepspeed, "launch.sh")
            .contains("sees ${trainyard_gpus:-0} of 4 requested GPU(s)"));
    CompileResult mpi =
        CaseCompile.compile(
            TrainProject.create(
                dir.resolve("mpi"), "runtime: mpi\nrun: ./a.out\nnodes: 2\nresources: {gpus: 4}\n"),
            Optional.empty());
    assertFalse(CaseCompile.mpiFile(mpi, "launch.sh").contains("nvidia-smi"));
    assertTrue(CaseCompile.mpiFile(mpi, "node.sh").contains("nvidia-smi -L"));
  }
}
