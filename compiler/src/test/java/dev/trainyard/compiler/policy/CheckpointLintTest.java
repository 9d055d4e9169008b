package dev.trainyard.compiler.policy;

import static dev.trainyard.compiler.testing.TrainProject.withCode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import org.junit.jupiter.params.provider.CsvSource;

/** The run lint of a checkpointed run: W437 (not told to resume) and W438 (checkpoints lost). */
class CheckpointLintTest {
  @TempDir Path dir;

  private CompileResult compile(String run, String more) {
    return TrainProject.create(dir, "run: '" + run + "'\n" + more + "checkpoint: {}\n")
        .withPlatform(
            PlatformYaml.base()
                .namespaces(
                    "[{name: team-a, cluster: local, sources: [\"github.com/acme/*\"], defaultQueue:"
                        + " q, checkpoints: {size: 10Gi, accessMode: ReadWriteMany}}]")
                .text())
        .compile();
  }

  private static List<Diagnostic> codes(CompileResult r, DiagnosticCode code) {
    return withCode(r, code);
  }

  @ParameterizedTest(name = "{0} → {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "torchrun train.py --output_dir $CHECKPOINT_DIR | --output_dir | ${RESUME_FROM:+--resume_from_checkpoint \"$RESUME_FROM\"}",
        "torchrun train.py --snapshot_path /checkpoints/s.pt | --snapshot_path | --snapshot_path \"$CHECKPOINT_DIR/snapshot.pt\"",
        "tune run --nnodes 1 --nproc_per_node $PET_NPROC_PER_NODE lora_finetune_distributed --config c.yaml output_dir=$CHECKPOINT_DIR | tune | resume_from_checkpoint=True",
        "python main.py fit --config c.yaml | fit | --ckpt_path last"
      })
  @DisplayName(
      "W437 at the trainer's word: HF Trainer, the DDP tutorial, torchtune and LightningCLI each get the one flag that makes them resume")
  void notResumed(String run, String word, String flag) {
    CompileResult r = compile(run, "");
    List<Diagnostic> d = codes(r, DiagnosticCode.CHECKPOINT_NOT_RESUMED);
    assertEquals(1, d.size(), r.diagnostics().toString());
    assertEquals("/run", d.get(0).pointer());
    assertEquals(1, d.get(0).location().line());
    assertEquals(7 + run.indexOf(word), d.get(0).location().column(), "at the word");
    assertEquals("add `" + flag + "` to `run` (docs/checkpoints.md)", d.get(0).hint());
    assertFalse(r.hasErrors(), r.diagnostics().toString());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "torchrun train.py --output_dir $CHECKPOINT_DIR --resume_from_checkpoint $RESUME_FROM",
        "torchrun train.py --output_dir $CHECKPOINT_DIR ${RESUME_FROM:+--resume_from_checkpoint $RESUME_FROM}",
        "torchrun train.py --snapshot_path $CHECKPOINT_DIR/snapshot.pt",
        "tune run --nnodes 1 --nproc_per_node $PET_NPROC_PER_NODE r --config c.yaml resume_from_checkpoint=True output_dir=$CHECKPOINT_DIR",
        "python main.py fit --ckpt_path last",
        "torchrun train.py"
      })
  @DisplayName("no warning when the command resumes, or names no trainer Trainyard knows")
  void resumes(String run) {
    CompileResult r = compile(run, "");
    assertTrue(
        codes(r, DiagnosticCode.CHECKPOINT_NOT_RESUMED).isEmpty(), r.diagnostics().toString());
    assertTrue(codes(r, DiagnosticCode.CHECKPOINT_LOST).isEmpty(), r.diagnostics().toString());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "torchrun train.py --output_dir out --resume_from_checkpoint $RESUME_FROM | out | inside the pod's copy of the code | --output_dir \"$CHECKPOINT_DIR\"",
        "torchrun train.py --snapshot_path=/tmp/s.pt | /tmp/s.pt | which is on no volume | --snapshot_path \"$CHECKPOINT_DIR/snapshot.pt\"",
        "tune run --nnodes 1 --nproc_per_node $PET_NPROC_PER_NODE r resume_from_checkpoint=True output_dir=/tmp/tt | /tmp/tt | which is on no volume | output_dir=\"$CHECKPOINT_DIR\"",
        "torchrun t.py --save_dir /ro/x $RESUME_FROM | /ro/x | which is on no volume | --save_dir \"$CHECKPOINT_DIR\""
      })
  @DisplayName(
      "W438 at the value when a checkpoint flag names a relative path or one on no writable volume")
  void lost(String run, String value, String why, String fix) {
    CompileResult r =
        compile(
            run, "volumes: [{claim: ro, path: /ro, readOnly: true}, {claim: d, path: /data}]\n");
    List<Diagnostic> d = codes(r, DiagnosticCode.CHECKPOINT_LOST);
    assertEquals(1, d.size(), r.diagnostics().toString());
    assertEquals(7 + run.lastIndexOf(value), d.get(0).location().column(), "at the value");
    assertTrue(d.get(0).message().contains("\"" + value + "\", " + why), d.get(0).message());
    assertEquals("write them below $CHECKPOINT_DIR, e.g. `" + fix + "`", d.get(0).hint());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "torchrun t.py --output_dir /checkpoints/out $RESUME_FROM",
    "torchrun t.py --output_dir /checkpoints $RESUME_FROM",
    "torchrun t.py --output_dir /data $RESUME_FROM",
    "torchrun t.py --output_dir /data/../data/x $RESUME_FROM"
  })
  @DisplayName(
      "a checkpoint flag on the checkpoint volume or a writable volume (at or below its path) survives: no W438")
  void onAVolume(String run) {
    CompileResult r = compile(run, "volumes: [{claim: d, path: /data}]\n");
    assertTrue(codes(r, DiagnosticCode.CHECKPOINT_LOST).isEmpty(), r.diagnostics().toString());
  }

  @Test
  @DisplayName("a path that only starts like a volume's (/database beside /data) is on no volume")
  void prefixIsNotInside() {
    CompileResult r =
        compile(
            "torchrun t.py --output_dir /database $RESUME_FROM",
            "volumes: [{claim: d, path: /data}]\n");
    assertEquals(1, codes(r, DiagnosticCode.CHECKPOINT_LOST).size(), r.diagnostics().toString());
  }

  @Test
  @DisplayName("a checkpoint flag on another writable volume survives: no W438")
  void otherVolume() {
    CompileResult r =
        compile(
            "torchrun train.py --output_dir /data/out --resume_from_checkpoint $RESUME_FROM",
            "volumes: [{claim: d, path: /data}]\n");
    assertTrue(codes(r, DiagnosticCode.CHECKPOINT_LOST).isEmpty(), r.diagnostics().toString());
  }

  @Test
  @DisplayName("without checkpoint the lint says nothing about checkpoints")
  void withoutCheckpoint() {
    CompileResult r =
        TrainProject.create(dir, "run: torchrun train.py --output_dir out --snapshot_path /tmp/x\n")
            .compile();
    assertTrue(codes(r, DiagnosticCode.CHECKPOINT_LOST).isEmpty());
    assertTrue(codes(r, DiagnosticCode.CHECKPOINT_NOT_RESUMED).isEmpty());
  }
}
