package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The {@code run} lint through the real compiler: each rule fires on the bad form, at the {@code run} line
 * with a hint, and stays quiet on the good form (reference/running-real-scripts.md).
 */
class RunLintTest {
  @TempDir Path dir;

  private List<Diagnostic> lint(String runtime, int nodes, String run) {
    String yaml = "runtime: " + runtime + "\nnodes: " + nodes + "\nrun: '" + run + "'\n";
    CompileResult result = TrainProject.create(dir, yaml).compile();
    return TrainProject.withCode(result, DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY);
  }

  @ParameterizedTest(name = "{0} on {1} node(s): {2}")
  @CsvSource(delimiter = '|', value = {
      "torch | 2 | torchrun --nnodes 4 train.py",
      "torch | 2 | torchrun --nnodes=1 train.py",
      "torch | 2 | torchrun --node_rank=0 train.py",
      "torch | 2 | torchrun --node-rank 1 train.py",
      "torch | 2 | torchrun --master_addr=10.0.0.1 train.py",
      "torch | 2 | torchrun --standalone train.py",
      "torch | 2 | accelerate launch train.py",
      "torch | 2 | accelerate launch --num_machines 2 train.py",
      "torch | 1 | tune run lora_finetune_single_device --config c.yaml",
      "torch | 2 | srun python train.py",
      "torch | 2 | python train.py --rank $SLURM_PROCID",
      "mpi   | 2 | mpirun -np 4 python train.py",
      "mpi   | 2 | /usr/bin/mpiexec python train.py",
      "deepspeed | 2 | deepspeed train.py",
  })
  @DisplayName("a run line that contradicts the compiled topology is an error at the `run` line with a hint")
  void badRunFires(String runtime, int nodes, String run) {
    List<Diagnostic> found = lint(runtime, nodes, run);
    assertEquals(1, found.size(), "expected one lint error for `" + run + "`, got " + found);
    Diagnostic d = found.get(0);
    assertTrue(d.isError());
    assertEquals("/run", d.pointer());
    assertEquals(3, d.location().line());
    assertFalse(d.hint().isBlank());
  }

  @ParameterizedTest(name = "{0} on {1} node(s): {2}")
  @CsvSource(delimiter = '|', value = {
      "torch | 2 | torchrun --nnodes=2 train.py",
      "torch | 2 | torchrun --nnodes 2 --nproc_per_node=4 train.py",
      "torch | 2 | torchrun --master_addr=$MASTER_ADDR --node_rank=$NODE_RANK train.py",
      "torch | 2 | torchrun train.py",
      "torch | 1 | torchrun --standalone train.py",
      "torch | 1 | accelerate launch train.py",
      "torch | 2 | accelerate launch --num_machines $NNODES --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py",
      "torch | 1 | tune run --nnodes 1 --nproc_per_node 4 lora_finetune --config c.yaml",
      "torch | 2 | python train.py --sruns 3",
      "mpi   | 2 | python train.py",
      "deepspeed | 2 | python train.py --deepspeed_config ds.json",
  })
  @DisplayName("the good form of each launcher stays quiet and compiles")
  void goodRunIsQuiet(String runtime, int nodes, String run) {
    String yaml = "runtime: " + runtime + "\nnodes: " + nodes + "\nrun: '" + run + "'\n";
    CompileResult result = TrainProject.create(dir, yaml).compile();
    assertEquals(List.of(), TrainProject.withCode(result, DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY));
    assertTrue(result.tree().isPresent(), result.diagnostics().toString());
  }
}
