package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileRequest;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The exact command each {@code run} lint hint suggests: what it keeps (the script's arguments, the
 * launcher's spelling, {@code --local_rank}), what it replaces (the user's own rendezvous and
 * topology flags), and the values it takes from the pod's env; each of these commands compiles
 * clean too.
 */
class RunLintHintTest {
  @TempDir Path dir;

  private Diagnostic only(String runtime, int nodes, String run, DiagnosticCode code) {
    List<Diagnostic> found =
        RunLintCases.lint(dir, RunLintCases.yaml(runtime, nodes, run)).stream()
            .filter(d -> d.code() == code)
            .toList();
    assertEquals(1, found.size(), found.toString());
    RunLintCases.assertHintAccepted(dir, runtime, nodes, "", found.get(0));
    return found.get(0);
  }

  @Test
  @DisplayName(
      "tune run's hint forms one group: c10d rendezvous at $MASTER_ADDR:$MASTER_PORT, the env names the torch plugin sets")
  void tuneRunHint() {
    Diagnostic d =
        only(
            "torch",
            2,
            "tune run full_finetune_distributed --config c.yaml",
            DiagnosticCode.RUN_HANGS_AT_RENDEZVOUS);
    assertEquals(
        "pass the rendezvous on the command line, e.g. `run: tune run --nnodes $PET_NNODES --nproc_per_node $PET_NPROC_PER_NODE"
            + " --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT full_finetune_distributed --config c.yaml`",
        d.hint());
    assertTrue(d.message().contains("--standalone"), d.message());
  }

  @Test
  @DisplayName(
      "tune run's hint drops the user's own --standalone and rendezvous flags (every use) before adding the group's; a plain runtime gets its numbers")
  void tuneRunHintReplacesFlags() {
    Diagnostic d =
        only(
            "torch",
            2,
            "tune run --standalone --nnodes=2 --rdzv_backend static full_finetune_distributed",
            DiagnosticCode.RUN_HANGS_AT_RENDEZVOUS);
    assertTrue(
        d.hint()
            .endsWith(
                "`run: tune run --nnodes $PET_NNODES --nproc_per_node $PET_NPROC_PER_NODE --rdzv_backend c10d"
                    + " --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT full_finetune_distributed`"),
        d.hint());
    Diagnostic twice =
        only(
            "torch",
            2,
            "tune run --nnodes 2 --nnodes=3 full_finetune_distributed",
            DiagnosticCode.RUN_HANGS_AT_RENDEZVOUS);
    assertEquals(
        "tune run --nnodes $PET_NNODES --nproc_per_node $PET_NPROC_PER_NODE --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT"
            + " full_finetune_distributed",
        RunLintCases.requireHintedRun(twice));
    Diagnostic plain =
        RunLintCases.lint(
                dir.resolve("p"),
                RunLintCases.yaml("plain", 2, "tune run full_finetune_distributed"))
            .get(0);
    assertTrue(
        plain.hint().contains("--nnodes $NNODES --nproc_per_node 1 --rdzv_backend c10d"),
        plain.hint());
  }

  @Test
  @DisplayName(
      "tune run on one node without a torchrun flag: the E409 hint adds the topology flags but no rendezvous")
  void tuneRunOneNodeHint() {
    Diagnostic d =
        only(
            "torch",
            1,
            "tune run lora_finetune_single_device --config c.yaml",
            DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY);
    assertEquals(
        "`run` uses `tune run` without a torchrun flag, so torchtune starts one process without torchrun",
        d.message());
    assertEquals(
        "add torchrun flags after `tune run` (torchtune _cli/run.py), e.g. `run: tune run --nnodes $PET_NNODES"
            + " --nproc_per_node $PET_NPROC_PER_NODE lora_finetune_single_device --config c.yaml`",
        d.hint());
  }

  @Test
  @DisplayName(
      "a literal --rdzv_endpoint under `tune run` on 2 nodes: the E409 hint keeps a rendezvous (dropping it would be E423)")
  void tuneRunLiteralEndpointHint() {
    Diagnostic d =
        only(
            "torch",
            2,
            "tune run --rdzv_endpoint localhost:29500 lora_finetune_distributed --config c",
            DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY);
    assertEquals(
        "tune run --nnodes $PET_NNODES --nproc_per_node $PET_NPROC_PER_NODE --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT"
            + " lora_finetune_distributed --config c",
        RunLintCases.requireHintedRun(d));
    assertTrue(d.hint().startsWith("pass the values every node gets, e.g. "), d.hint());
  }

  @Test
  @DisplayName(
      "--standalone under tune run: the hint is tune run's whole rendezvous, not the bare drop of the flag")
  void standaloneUnderTuneRun() {
    Diagnostic d =
        only(
            "torch",
            2,
            "tune run --standalone --nnodes 2 --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT recipe",
            DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY);
    assertEquals(
        "tune run --nnodes $PET_NNODES --nproc_per_node $PET_NPROC_PER_NODE --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT recipe",
        RunLintCases.requireHintedRun(d));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "accelerate launch train.py --lr 1 | accelerate launch --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR --main_process_port $MASTER_PORT train.py --lr 1",
        "python -m accelerate.commands.launch train.py | python -m accelerate.commands.launch --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR --main_process_port $MASTER_PORT train.py",
        "python3 -m accelerate.commands.launch --num_processes 8 --machine_rank 0 train.py | python3 -m accelerate.commands.launch --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR --main_process_port $MASTER_PORT train.py",
      })
  @DisplayName(
      "accelerate's hint keeps the launcher's spelling (never nests torchrun) and takes every machine flag from the pod's env")
  void accelerateHint(String run, String hinted) {
    List<Diagnostic> found = RunLintCases.lint(dir, RunLintCases.yaml("torch", 2, run));
    assertTrue(
        !found.isEmpty()
            && found.stream().allMatch(d -> d.code() == DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY),
        found.toString());
    found.forEach(d -> assertEquals(hinted, RunLintCases.requireHintedRun(d), d.toString()));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "torchrun --nnodes $X train.py | use the value every pod has, e.g. `run: torchrun --nnodes $NNODES train.py` | count the group",
        "accelerate launch --num_machines $NNODES --num_processes $NPROC --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py | use the value every pod has, e.g. `run: accelerate launch --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py` | count the group",
        "torchrun --node_rank ${R} train.py | use the value every pod has, e.g. `run: torchrun --node_rank $NODE_RANK train.py` | place this node in the group",
      })
  @DisplayName(
      "an undefined variable in a topology flag is E430 whose hint puts in the value every pod has")
  void undefinedTopologyHint(String run, String hint, String why) {
    Diagnostic d = only("torch", 2, run, DiagnosticCode.UNDEFINED_VARIABLE_IN_TOPOLOGY);
    assertEquals(hint, d.hint());
    assertTrue(
        d.message()
            .endsWith(
                ": the flag would get an empty value, so the launcher cannot "
                    + why
                    + " and the run never forms one"),
        d.message());
    assertTrue(d.isError());
  }

  @Test
  @DisplayName(
      "an undefined rendezvous id is W425 whose hint drops the flag (every node already shares one rendezvous)")
  void undefinedRendezvousIdHint() {
    Diagnostic d =
        only(
            "torch",
            2,
            "torchrun --rdzv_id $JOB --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT a.py",
            DiagnosticCode.UNDEFINED_VARIABLE_IN_FLAG);
    assertEquals(
        "`run` passes --rdzv_id $JOB, but no pod of this job sets $JOB: the flag would get an empty value",
        d.message());
    assertEquals(
        "drop --rdzv_id (every node of this run already shares one rendezvous), e.g. `run: torchrun --rdzv_backend c10d"
            + " --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT a.py`",
        d.hint());
    assertTrue(!d.isError());
  }

  @Test
  @DisplayName(
      "the deepspeed hint under mpirun keeps the script's arguments and the --local_rank the launcher passed")
  void deepspeedHintKeepsLocalRank() {
    Diagnostic d =
        only(
            "deepspeed",
            2,
            "deepspeed --num_gpus 4 train.py --deepspeed_config ds.json && echo done",
            DiagnosticCode.NESTED_LAUNCHER);
    assertTrue(
        d.hint()
            .contains(
                "`run: python train.py --deepspeed_config ds.json --local_rank=$OMPI_COMM_WORLD_LOCAL_RANK && echo done`"),
        d.hint());
  }

  @Test
  @DisplayName(
      "torchrun's module under mpirun: the message names it as written, the hint sets torchrun's rank names from mpirun's")
  void torchModuleUnderMpirun() {
    Diagnostic d =
        only(
            "mpi",
            2,
            "python -u -m torch.distributed.run --nproc_per_node 2 train.py --lr 1",
            DiagnosticCode.NESTED_LAUNCHER);
    assertEquals(
        "`run` starts python -u -m torch.distributed.run inside the mpirun of runtime mpi: every rank would start its own launcher"
            + " and its own processes",
        d.message());
    assertEquals(
        "RANK=$OMPI_COMM_WORLD_RANK LOCAL_RANK=$OMPI_COMM_WORLD_LOCAL_RANK WORLD_SIZE=$OMPI_COMM_WORLD_SIZE"
            + " LOCAL_WORLD_SIZE=$OMPI_COMM_WORLD_LOCAL_SIZE python train.py --lr 1",
        RunLintCases.requireHintedRun(d));
  }

  @Test
  @DisplayName(
      "mpirun tuning in run moves to the `mpi` field in the hint, values quoted for YAML where needed")
  void mpirunTuningHint() {
    Diagnostic d =
        only(
            "mpi",
            2,
            "mpirun -bind-to none -map-by slot --mca btl ^openib --mca btl_tcp_if_include 10.0.0.0/8,eth0 ./pi",
            DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY);
    assertTrue(
        d.hint()
            .contains(
                "`mpi: {bindTo: none, mapBy: slot, mca: {btl: '^openib', btl_tcp_if_include: '10.0.0.0/8,eth0'}}`"),
        d.hint());
    assertTrue(d.hint().endsWith("`run: ./pi`"), d.hint());
  }

  @Test
  @DisplayName(
      "a flag at the start of a continued line is removed with the blanks after it, so the hinted block keeps its line breaks clean")
  void flagAtLineStart() {
    List<Diagnostic> found =
        RunLintCases.lint(
            dir, "nodes: 2\nrun: |\n  torchrun \\\n  --node_rank=0\t --nnodes 2 train.py\n");
    assertEquals(1, found.size(), found.toString());
    // Several lines are one YAML double-quoted scalar: the backslash doubled, the line break \n.
    assertTrue(
        found.get(0).hint().endsWith("`run: \"torchrun \\\\\\n--nnodes 2 train.py\"`"),
        found.get(0).hint());
    assertFalse(found.get(0).hint().contains("\n"), "the hint is one line");
  }

  @Test
  @DisplayName(
      "a multi-line run's hint pastes back into train.yaml as written, and that train.yaml compiles clean to the same lines")
  void multiLineHintPastesBack() {
    String block =
        "nodes: 2\nrun: |\n  cd src\n  echo \"tab\there\"\n  torchrun --node_rank=0 --nnodes 2 train.py\n";
    Diagnostic d = RunLintCases.lint(dir.resolve("bad"), block).get(0);
    Matcher hinted = Pattern.compile("`(run: .*)`$").matcher(d.hint());
    assertTrue(hinted.find(), d.hint());
    CompileResult fixed =
        TrainProject.create(dir.resolve("fixed"), "nodes: 2\n" + hinted.group(1) + "\n").compile();
    assertEquals(List.of(), fixed.diagnostics(), hinted.group(1));
    String jobSet =
        fixed.tree().orElseThrow().files().entrySet().stream()
            .filter(e -> e.getKey().contains("jobset-"))
            .map(e -> e.getValue())
            .findFirst()
            .orElseThrow();
    // The block's three lines, the tab and the quotes kept, the flag gone (as the YAML writer
    // quotes it).
    assertTrue(
        jobSet.contains(
            "value: \"cd src\\necho \\\"tab\\there\\\"\\ntorchrun --nnodes 2 train.py\"\n"),
        jobSet);
  }

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "mpi       | mpirun -np 4 python train.py | write only the program; the hostfile and -np are set for you, e.g. `run: python train.py`",
        "mpi       | mpirun --hostfile ./hosts -np 2 python train.py | write only the program; the hostfile and -np are set for you, e.g. `run: python train.py`",
        "mpi       | mpirun -np 2 train.py --lr 1 | write only the program; the hostfile and -np are set for you, e.g. `run: python train.py --lr 1`",
        "mpi       | mpirun -np 2 ./pi --mca btl | write only the program; the hostfile and -np are set for you, e.g. `run: ./pi --mca btl`",
        "mpi       | mpirun -np 4 hostname | write only the program; the hostfile and -np are set for you, e.g. `run: hostname`",
        "mpi       | mpirun --mca btl ^openib -x NCCL_DEBUG --map-by slot all_reduce_perf -b 8 | write only the program; the hostfile and -np are set for you, and the tuning goes to `mpi: {mapBy: slot, mca: {btl: '^openib'}}`, e.g. `run: all_reduce_perf -b 8`",
        "mpi       | mpirun --np=4 -x A=1 hostname -s | write only the program; the hostfile and -np are set for you, e.g. `run: hostname -s`",
        "mpi       | mpirun -np 2 --oversubscribe | write only the program; the hostfile and -np are set for you, e.g. `run: python train.py`",
        "mpi       | mpirun -np 2 ./pi --mca btl; ./post --bind-to core | write only the program; the hostfile and -np are set for you, e.g. `run: ./pi --mca btl; ./post --bind-to core`",
        "mpi       | horovodrun -np 4 python train.py | run the program directly; hvd.init() reads the ranks from mpirun; Horovod's documented `mpi: {bindTo: none, mapBy: slot}` goes to train.yaml, e.g. `run: python train.py`",
        "mlx       | mlx.launch --hosts a,b main.py | run the program directly; mx.distributed.init() picks up MPI by itself, e.g. `run: python main.py`",
        "deepspeed | deepspeed train.py | run the program directly; deepspeed.init_distributed() reads the ranks from mpirun; --local_rank, which the deepspeed launcher passed, comes from OMPI_COMM_WORLD_LOCAL_RANK, e.g. `run: python train.py --local_rank=$OMPI_COMM_WORLD_LOCAL_RANK`",
        "deepspeed | deepspeed --no_local_rank train.py | run the program directly; deepspeed.init_distributed() reads the ranks from mpirun, e.g. `run: python train.py`",
        "mpi       | cd src && torchrun train.py && echo ok | run the program directly; RANK, LOCAL_RANK and WORLD_SIZE, which torchrun set, come from mpirun's OMPI_COMM_WORLD_* names, e.g. `run: cd src && RANK=$OMPI_COMM_WORLD_RANK LOCAL_RANK=$OMPI_COMM_WORLD_LOCAL_RANK WORLD_SIZE=$OMPI_COMM_WORLD_SIZE LOCAL_WORLD_SIZE=$OMPI_COMM_WORLD_LOCAL_SIZE python train.py && echo ok`",
      })
  @DisplayName(
      "under an MPI runtime the hint names only the program (never a hostfile value or any mpirun option's value; the generic python train.py when every word is an option), tuning only from mpirun's own simple command, python before a script, and what replaces each launcher's env")
  void mpiRuntimeHint(String runtime, String run, String hint) {
    List<Diagnostic> found = RunLintCases.lint(dir, RunLintCases.yaml(runtime, 2, run));
    assertEquals(1, found.size(), found.toString());
    assertEquals(hint, found.get(0).hint());
    RunLintCases.assertHintAccepted(dir, runtime, 2, "", found.get(0));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "torch | torchrun --master_addr $MASTER_IP train.py | W425 | torchrun --master_addr $MASTER_ADDR train.py",
        "torch | torchrun --master_port $PORT train.py | W425 | torchrun --master_port $MASTER_PORT train.py",
        "torch | torchrun --rdzv_backend c10d --rdzv_endpoint $HEAD:29500 train.py | W425 | torchrun --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT train.py",
        "torch | torchrun --nproc_per_node $GPUS train.py | E430 | torchrun --nproc_per_node $PET_NPROC_PER_NODE train.py",
        "plain | torchrun --nproc_per_node $GPUS train.py | E430 | torchrun --nproc_per_node 1 train.py",
        "plain | accelerate launch --num_machines $NNODES --num_processes $NPROC --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py | E430 | accelerate launch --num_machines $NNODES --num_processes 2 --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py",
        "torch | accelerate launch --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $HEAD_IP --main_process_port $HEAD_PORT train.py | W425 | accelerate launch --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR --main_process_port $MASTER_PORT train.py",
      })
  @DisplayName(
      "an undefined variable in a launcher flag: the hint puts in the value each flag has in every pod (per node: $PET_NPROC_PER_NODE on torch, the number elsewhere), one command for all findings")
  void undefinedFlagHint(String runtime, String run, String code, String hinted) {
    List<Diagnostic> found = RunLintCases.lint(dir, RunLintCases.yaml(runtime, 2, run));
    assertTrue(
        !found.isEmpty() && found.stream().allMatch(d -> d.code().id().equals(code)),
        found.toString());
    for (Diagnostic d : found) {
      assertEquals("use the value every pod has, e.g. `run: " + hinted + "`", d.hint());
      RunLintCases.assertHintAccepted(dir, runtime, 2, "", d);
    }
  }

  @Test
  @DisplayName(
      "accelerate on a plain runtime: the hint's --num_processes is the job's number of processes, not torch's PET_* arithmetic")
  void acceleratePlainHint() {
    Diagnostic d =
        only("plain", 2, "accelerate launch train.py", DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY);
    assertEquals(
        "accelerate launch --num_machines $NNODES --num_processes 2 --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR"
            + " --main_process_port $MASTER_PORT train.py",
        RunLintCases.requireHintedRun(d));
  }

  @Test
  @DisplayName(
      "torchrun under an Intel MPI runtime: the hint reads the ranks from PMI_RANK and PMI_SIZE and sets no OMPI_* names")
  void torchrunUnderIntelMpi() throws java.io.IOException {
    Path folder = java.nio.file.Files.createDirectories(dir.resolve("runtimes/intel-mpi/1.0.0-1"));
    java.nio.file.Files.writeString(
        folder.resolve("runtime.yaml"),
        "apiVersion: trainyard.dev/v1\nkind: Runtime\nname: intel-mpi\n"
            + "version: 1.0.0-1\ndescription: test runtime intel-mpi\nframework: mpi\nimage: docker.io/library/test-intel-mpi:1\n"
            + "resources:\n  gpus: 0\n  cpu: \"4\"\n  memory: 16Gi\n  launcherCpu: \"1\"\n  launcherMemory: 1Gi\n"
            + "user:\n  uid: 1000\n  home: /home/mpiuser\nmpi:\n  implementation: Intel\n  sshPort: 2222\n  launcherAsNode: false\n");
    TrainProject p =
        TrainProject.create(
            dir.resolve("p"),
            "runtime: intel-mpi\nnodes: 2\nrun: 'torchrun --nproc_per_node 2 train.py'\n");
    CompileRequest request =
        CompileRequest.builder(p.trainYaml())
            .displayPath("train.yaml")
            .runtimesDir(dir.resolve("runtimes"))
            .build();
    CompileResult r =
        new Compiler(
                new SshSecretProvider(
                    TrainProject.seeded(), Clock.fixed(Instant.EPOCH, ZoneOffset.UTC)))
            .compile(request);
    List<Diagnostic> nested = TrainProject.withCode(r, DiagnosticCode.NESTED_LAUNCHER);
    assertEquals(1, nested.size(), r.diagnostics().toString());
    assertEquals(
        "run the program directly; read the ranks from mpirun's PMI_RANK and PMI_SIZE, e.g. `run: python train.py`",
        nested.get(0).hint());
  }
}
