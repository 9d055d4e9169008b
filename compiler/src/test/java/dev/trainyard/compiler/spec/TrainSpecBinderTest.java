package dev.trainyard.compiler.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.schema.SampleTrainYaml;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrainSpecBinderTest {
  private final SpecReader reader = new SpecReader();

  private StageResult<TrainSpec> read(Path dir, String yaml) throws Exception {
    Path file = dir.resolve("train.yaml");
    Files.writeString(file, yaml);
    return reader.read(file, "train.yaml");
  }

  @Test
  @DisplayName(
      "a full train.yaml binds every field; numbers and booleans in env and cpu keep their YAML text")
  void bindsEveryField(@TempDir Path dir) throws Exception {
    StageResult<TrainSpec> result = read(dir, SampleTrainYaml.FULL);
    assertEquals(List.of(), result.diagnostics());
    TrainSpec spec = result.value().orElseThrow();
    assertEquals(Optional.of("llama-finetune"), spec.name());
    assertEquals(Optional.of("torch@2.5"), spec.runtime());
    assertEquals(Optional.of("ghcr.io/acme/trainer:2024.06"), spec.image());
    assertEquals(Optional.of("recipes/llama"), spec.workdir());
    assertEquals(Optional.of("pip install -r requirements.txt"), spec.setup());
    assertEquals("torchrun train.py --epochs 3", spec.run());
    assertEquals(Optional.of(2), spec.nodes());
    assertEquals(Optional.of(ProcsPerNode.AUTO), spec.procsPerNode());
    assertEquals(
        new ResourceRequest(
            Optional.of(4),
            Optional.of("H100"),
            Optional.of("4"),
            Optional.of("128Gi"),
            Optional.of("16Gi")),
        spec.resources());
    assertEquals(
        Map.of("HF_MODEL", "t5-small", "LR", "1.0", "DEBUG", "true", "EPOCHS", "3"), spec.env());
    assertEquals(List.of("DEBUG", "EPOCHS", "HF_MODEL", "LR"), List.copyOf(spec.env().keySet()));
    assertEquals(
        List.of(
            new SecretRef(
                "hf-token", Optional.of("token"), Optional.of("HF_TOKEN"), Optional.empty()),
            new SecretRef("wandb", Optional.empty(), Optional.empty(), Optional.of("/etc/wandb"))),
        spec.secrets());
    assertEquals(
        List.of(
            new VolumeMount("datasets", "/data", true),
            new VolumeMount("checkpoints", "/ckpt", false)),
        spec.volumes());
    assertEquals(Optional.of("team-a"), spec.queue());
    assertEquals(Optional.of("high"), spec.priority());
    assertEquals(Optional.of(0), spec.retries());
    assertEquals(Optional.of("1h30m"), spec.timeout());
    assertEquals("train.yaml:12:8", spec.document().map().at("/resources/cpu").toString());
  }

  @Test
  @DisplayName("a two-line train.yaml leaves every other field empty for the resolve stage")
  void minimal(@TempDir Path dir) throws Exception {
    TrainSpec spec =
        read(dir, "run: python train.py\nprocsPerNode: 8\nresources: {cpu: 500m}\n")
            .value()
            .orElseThrow();
    assertEquals(Optional.of(ProcsPerNode.of(8)), spec.procsPerNode());
    assertEquals(Optional.of("500m"), spec.resources().cpu());
    assertEquals(Optional.empty(), spec.nodes());
    assertEquals(Optional.empty(), spec.resources().gpus());
    assertTrue(spec.env().isEmpty() && spec.secrets().isEmpty() && spec.volumes().isEmpty());
  }

  @Test
  @DisplayName("the reader stops at the first failing step: a load error means no schema errors")
  void stopsAtFirstFailingStep(@TempDir Path dir) throws Exception {
    StageResult<TrainSpec> result = read(dir, "node: 2\nnode: 3\n");
    assertTrue(result.failed());
    assertEquals(
        List.of(DiagnosticCode.DUPLICATE_KEY),
        result.diagnostics().stream().map(d -> d.code()).toList());
  }

  @Test
  @DisplayName("the reader reports schema errors and binds nothing")
  void schemaErrors(@TempDir Path dir) throws Exception {
    StageResult<TrainSpec> result = read(dir, "run: x\nnodes: 0\n");
    assertTrue(result.value().isEmpty());
    assertEquals(
        "train.yaml:2:8: `nodes` must be at least 1, got 0",
        result.diagnostics().get(0).location() + ": " + result.diagnostics().get(0).message());
  }
}
