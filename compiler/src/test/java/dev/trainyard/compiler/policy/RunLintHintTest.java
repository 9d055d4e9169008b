package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The exact command each {@code run} lint hint suggests: what it keeps (the script's arguments, the
 * launcher's spelling, {@code --local_rank}), what it replaces (the user's own rendezvous and topology flags),
 * and the values it takes from the pod's env; each of these commands compiles clean too.
 */
class RunLintHintTest {
  @TempDir Path dir;

  private Diagnostic only(String runtime, int nodes, String run, DiagnosticCode code) {
    List<Diagnostic> found = RunLintCases.lint(dir, RunLintCases.yaml(runtime, nodes, run)).stream().filter(d -> d.code() == code).toList();
    assertEquals(1, found.size(), found.toString());
    RunLintCases.assertHintAccepted(dir, runtime, nodes, "", found.get(0));
    return found.get(0);
  }

  @Test
  @DisplayName("tune run's hint forms one group: c10d rendezvous at $MASTER_ADDR:$MASTER_PORT, the env names the torch plugin sets")
  void tuneRunHint() {
    Diagnostic d = only("torch", 2, "tune run full_finetune_distributed --config c.yaml", DiagnosticCode.RUN_HANGS_AT_RENDEZVOUS);
    assertEquals("pass the rendezvous on the command line, e.g. `run: tune run --nnodes $PET_NNODES --nproc_per_node $PET_NPROC_PER_NODE"
        + " --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT full_finetune_distributed --config c.yaml`", d.hint());
    assertTrue(d.message().contains("--standalone"), d.message());
  }

  @Test
  @DisplayName("tune run's hint drops the user's own --standalone and rendezvous flags before adding the group's; a plain runtime gets its numbers")
  void tuneRunHintReplacesFlags() {
    Diagnostic d = only("torch", 2, "tune run --standalone --nnodes=2 --rdzv_backend static full_finetune_distributed", DiagnosticCode.RUN_HANGS_AT_RENDEZVOUS);
    assertTrue(d.hint().endsWith("`run: tune run --nnodes $PET_NNODES --nproc_per_node $PET_NPROC_PER_NODE --rdzv_backend c10d"
        + " --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT full_finetune_distributed`"), d.hint());
    Diagnostic plain = RunLintCases.lint(dir.resolve("p"), RunLintCases.yaml("plain", 2, "tune run full_finetune_distributed")).get(0);
    assertTrue(plain.hint().contains("--nnodes $NNODES --nproc_per_node 1 --rdzv_backend c10d"), plain.hint());
  }

  @Test
  @DisplayName("tune run on one node without a torchrun flag: the E409 hint adds the topology flags but no rendezvous")
  void tuneRunOneNodeHint() {
    Diagnostic d = only("torch", 1, "tune run lora_finetune_single_device --config c.yaml", DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY);
    assertEquals("`run` uses `tune run` without a torchrun flag, so torchtune starts one process without torchrun", d.message());
    assertEquals("add torchrun flags after `tune run` (torchtune _cli/run.py), e.g. `run: tune run --nnodes $PET_NNODES"
        + " --nproc_per_node $PET_NPROC_PER_NODE lora_finetune_single_device --config c.yaml`", d.hint());
  }

  @Test
  @DisplayName("a literal --rdzv_endpoint under `tune run` on 2 nodes: the E409 hint keeps a rendezvous (dropping it would be E423)")
  void tuneRunLiteralEndpointHint() {
    Diagnostic d = only("torch", 2, "tune run --rdzv_endpoint localhost:29500 lora_finetune_distributed --config c", DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY);
    assertEquals("tune run --nnodes $PET_NNODES --nproc_per_node $PET_NPROC_PER_NODE --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT"
        + " lora_finetune_distributed --config c", RunLintCases.requireHintedRun(d));
    assertTrue(d.hint().startsWith("pass the values every node gets, e.g. "), d.hint());
  }

  @Test
  @DisplayName("--standalone under tune run: the hint is tune run's whole rendezvous, not the bare drop of the flag")
  void standaloneUnderTuneRun() {
    Diagnostic d = only("torch", 2, "tune run --standalone --nnodes 2 --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT recipe", DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY);
    assertEquals("tune run --nnodes $PET_NNODES --nproc_per_node $PET_NPROC_PER_NODE --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT recipe",
        RunLintCases.requireHintedRun(d));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "accelerate launch train.py --lr 1 | accelerate launch --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR --main_process_port $MASTER_PORT train.py --lr 1",
      "python -m accelerate.commands.launch train.py | python -m accelerate.commands.launch --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR --main_process_port $MASTER_PORT train.py",
      "python3 -m accelerate.commands.launch --num_processes 8 --machine_rank 0 train.py | python3 -m accelerate.commands.launch --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR --main_process_port $MASTER_PORT train.py",
  })
  @DisplayName("accelerate's hint keeps the launcher's spelling (never nests torchrun) and takes every machine flag from the pod's env")
  void accelerateHint(String run, String hinted) {
    List<Diagnostic> found = RunLintCases.lint(dir, RunLintCases.yaml("torch", 2, run));
    assertTrue(!found.isEmpty() && found.stream().allMatch(d -> d.code() == DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY), found.toString());
    found.forEach(d -> assertEquals(hinted, RunLintCases.requireHintedRun(d), d.toString()));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "torchrun --nnodes $X train.py | use the value every pod has, e.g. `run: torchrun --nnodes $NNODES train.py` | count the group",
      "accelerate launch --num_machines $NNODES --num_processes $NPROC --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py | use the value every pod has, e.g. `run: accelerate launch --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py` | count the group",
      "torchrun --node_rank ${R} train.py | use the value every pod has, e.g. `run: torchrun --node_rank $NODE_RANK train.py` | place this node in the group",
  })
  @DisplayName("an undefined variable in a topology flag is E430 whose hint puts in the value every pod has")
  void undefinedTopologyHint(String run, String hint, String why) {
    Diagnostic d = only("torch", 2, run, DiagnosticCode.UNDEFINED_VARIABLE_IN_TOPOLOGY);
    assertEquals(hint, d.hint());
    assertTrue(d.message().endsWith(": the flag would get an empty value, so the launcher cannot " + why + " and the run never forms one"), d.message());
    assertTrue(d.isError());
  }

  @Test
  @DisplayName("an undefined rendezvous id is W425 whose hint drops the flag (every node already shares one rendezvous)")
  void undefinedRendezvousIdHint() {
    Diagnostic d = only("torch", 2, "torchrun --rdzv_id $JOB --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT a.py", DiagnosticCode.UNDEFINED_VARIABLE_IN_FLAG);
    assertEquals("`run` passes --rdzv_id $JOB, but no pod of this job sets $JOB: the flag would get an empty value", d.message());
    assertEquals("drop --rdzv_id (every node of this run already shares one rendezvous), e.g. `run: torchrun --rdzv_backend c10d"
        + " --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT a.py`", d.hint());
    assertTrue(!d.isError());
  }

  @Test
  @DisplayName("the deepspeed hint under mpirun keeps the script's arguments and the --local_rank the launcher passed")
  void deepspeedHintKeepsLocalRank() {
    Diagnostic d = only("deepspeed", 2, "deepspeed --num_gpus 4 train.py --deepspeed_config ds.json && echo done", DiagnosticCode.NESTED_LAUNCHER);
    assertTrue(d.hint().contains("`run: python train.py --deepspeed_config ds.json --local_rank=$OMPI_COMM_WORLD_LOCAL_RANK && echo done`"), d.hint());
  }

  @Test
  @DisplayName("torchrun's module under mpirun: the message names it as written, the hint sets torchrun's rank names from mpirun's")
  void torchModuleUnderMpirun() {
    Diagnostic d = only("mpi", 2, "python -u -m torch.distributed.run --nproc_per_node 2 train.py --lr 1", DiagnosticCode.NESTED_LAUNCHER);
    assertEquals("`run` starts python -u -m torch.distributed.run inside the mpirun of runtime mpi: every rank would start its own launcher"
        + " and its own processes", d.message());
    assertEquals("RANK=$OMPI_COMM_WORLD_RANK LOCAL_RANK=$OMPI_COMM_WORLD_LOCAL_RANK WORLD_SIZE=$OMPI_COMM_WORLD_SIZE"
        + " LOCAL_WORLD_SIZE=$OMPI_COMM_WORLD_LOCAL_SIZE python train.py --lr 1", RunLintCases.requireHintedRun(d));
  }

  @Test
  @DisplayName("mpirun tuning in run moves to the `mpi` field in the hint, values quoted for YAML where needed")
  void mpirunTuningHint() {
    Diagnostic d = only("mpi", 2, "mpirun -bind-to none -map-by slot --mca btl ^openib --mca btl_tcp_if_include 10.0.0.0/8,eth0 ./pi",
        DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY);
    assertTrue(d.hint().contains("`mpi: {bindTo: none, mapBy: slot, mca: {btl: '^openib', btl_tcp_if_include: '10.0.0.0/8,eth0'}}`"), d.hint());
    assertTrue(d.hint().endsWith("`run: ./pi`"), d.hint());
  }

  @Test
  @DisplayName("a flag at the start of a continued line is removed with the blanks after it, so the hinted block keeps its line breaks clean")
  void flagAtLineStart() {
    List<Diagnostic> found = RunLintCases.lint(dir, "nodes: 2\nrun: |\n  torchrun \\\n  --node_rank=0\t --nnodes 2 train.py\n");
    assertEquals(1, found.size(), found.toString());
    assertTrue(found.get(0).hint().endsWith("`run: torchrun \\\n--nnodes 2 train.py`"), found.get(0).hint());
  }
}
