package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
 * Run-line checks at their edges, through a compile: which forms of a flag are read (exact word, last word,
 * {@code flag=value}), and which launcher flags agree with the topology.
 */
class RunLintCompileTest {
  @TempDir Path temp;
  private int projects;

  private List<String> lint(String runtime, int nodes, String extra, String run) {
    String yaml = "runtime: " + runtime + "\nnodes: " + nodes + "\n" + extra + "run: '" + run + "'\n";
    CompileResult r = TrainProject.create(temp.resolve("p" + projects++), yaml).compile();
    return TrainProject.withCode(r, DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY).stream().map(Diagnostic::message).toList();
  }

  @ParameterizedTest(name = "{0} x{1}: {3}")
  @CsvSource(delimiter = '|', value = {
      "torch | 2 | | torchrun --standalone train.py | `run` passes --standalone, but the job has 2 nodes: each node would train alone",
      "torch | 2 | | torchrun train.py --nnodes 3 | `run` passes --nnodes 3, but `nodes` is 2",
      "torch | 2 | procsPerNode: 2\\n | torchrun --nproc_per_node=3 train.py | `run` passes --nproc_per_node 3, but each node gets 2 processes",
      "torch | 2 | procsPerNode: 2\\n | torchrun --nproc-per-node 1 train.py | `run` passes --nproc_per_node 1, but each node gets 2 processes",
      "torch | 2 | | accelerate launch --num_machines 2 --machine_rank 0 train.py | `run` passes a literal --machine_rank 0: every node would claim that rank",
  })
  @DisplayName("each contradiction is one E409 naming what the run line and the topology say")
  void fires(String runtime, int nodes, String extra, String run, String message) {
    assertEquals(List.of(message), lint(runtime, nodes, extra == null ? "" : extra.replace("\\n", "\n"), run));
  }

  @ParameterizedTest(name = "{0} x{1}: {3}")
  @CsvSource(delimiter = '|', value = {
      "torch | 2 | procsPerNode: 2\\n | torchrun --nproc_per_node 2 train.py",
      "torch | 2 | | torchrun --nproc_per_node gpu train.py",
      "torch | 2 | | torchrun --nproc_per_node=auto train.py",
      "torch | 2 | | torchrun --nnodes 2:2 train.py",
      "torch | 2 | | accelerate launch --config_file acc.yaml train.py",
      "torch | 2 | | accelerate launch --config-file=acc.yaml train.py",
      "torch | 2 | | accelerate launch --num-machines 2 --num-processes $((NNODES * PET_NPROC_PER_NODE)) --machine-rank $NODE_RANK --main-process-ip $MASTER_ADDR train.py",
      "torch | 1 | | accelerate launch --num_machines 1 train.py",
  })
  @DisplayName("flags that agree with the topology, gpu/auto, a config file and the dashed spellings stay quiet")
  void quiet(String runtime, int nodes, String extra, String run) {
    assertEquals(List.of(), lint(runtime, nodes, extra == null ? "" : extra.replace("\\n", "\n"), run));
  }

  @org.junit.jupiter.api.Test
  @DisplayName("a literal --rdzv_endpoint under `tune run` on 2 nodes: the E409 hint keeps a rendezvous (dropping it would be E423), and the hinted command compiles clean")
  void tuneRunLiteralEndpointHint() {
    String yaml = "runtime: torch\nnodes: 2\nrun: 'tune run --rdzv_endpoint localhost:29500 lora_finetune_distributed --config c'\n";
    CompileResult r = TrainProject.create(temp.resolve("tune"), yaml).compile();
    List<Diagnostic> d = TrainProject.withCode(r, DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY);
    assertEquals(1, d.size(), r.diagnostics().toString());
    String hint = d.get(0).hint();
    String hinted = hint.substring(hint.indexOf("`run: ") + 6, hint.lastIndexOf('`'));
    assertEquals("tune run --nnodes $PET_NNODES --nproc_per_node $PET_NPROC_PER_NODE --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT"
        + " lora_finetune_distributed --config c", hinted);
    CompileResult again = TrainProject.create(temp.resolve("tune2"), "runtime: torch\nnodes: 2\nrun: '" + hinted + "'\n").compile();
    assertEquals(List.of(), again.diagnostics().stream().filter(x -> x.pointer().equals("/run")).toList());
  }
}
