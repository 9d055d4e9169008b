package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.CompileRequest;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The exact command each {@code run} lint hint suggests: what it keeps (the script's arguments, the
 * launcher's spelling, {@code --local_rank}), what it replaces (the user's own rendezvous and
 * topology flags), and the values it takes from the pod's env; each of these commands compiles
 * clean too.
 */
class RunLintHintTest {
  @RegisterExtension static final Wording WORDING = new Wording();

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
    WORDING.approve(d.hint());
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
    WORDING.approve(d.hint());
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
    WORDING.approve(plain.hint());
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
    WORDING.approve(d.message());
    WORDING.approve(d.hint());
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
    WORDING.approve(d.hint());
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
        "accelerate launch train.py --lr 1 | ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR --main_process_port $MASTER_PORT train.py --lr 1",
        "python -m accelerate.commands.launch train.py | ACCELERATE_USE_CPU=true python -m accelerate.commands.launch --multi_gpu --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR --main_process_port $MASTER_PORT train.py",
        "python3 -m accelerate.commands.launch --num_processes 8 --machine_rank 0 train.py | ACCELERATE_USE_CPU=true python3 -m accelerate.commands.launch --multi_gpu --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR --main_process_port $MASTER_PORT train.py",
      })
  @DisplayName(
      "accelerate's hint keeps the launcher's spelling (never nests torchrun), takes every machine flag from the pod's env, adds --multi_gpu and, on CPU nodes, ACCELERATE_USE_CPU")
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
        "ACCELERATE_USE_CPU=1 accelerate launch --multi_gpu --num_machines $NNODES --num_processes $NPROC --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py | use the value every pod has, e.g. `run: ACCELERATE_USE_CPU=1 accelerate launch --multi_gpu --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py` | count the group",
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
    WORDING.approve(d.message());
    WORDING.approve(d.hint());
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
    WORDING.approve(d.hint());
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
    WORDING.approve(d.message());
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
    WORDING.approve(d.hint());
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
    WORDING.approve(found.get(0).hint());
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
        "plain | ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_machines $NNODES --num_processes $NPROC --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py | E430 | ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_machines $NNODES --num_processes 2 --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py",
        "torch | ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $HEAD_IP --main_process_port $HEAD_PORT train.py | W425 | ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR --main_process_port $MASTER_PORT train.py",
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
        "ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_machines $NNODES --num_processes 2 --machine_rank $NODE_RANK"
            + " --main_process_ip $MASTER_ADDR --main_process_port $MASTER_PORT train.py",
        RunLintCases.requireHintedRun(d));
  }

  @Test
  @DisplayName(
      "torchrun under an Intel MPI runtime: the hint reads the ranks from PMI_RANK and PMI_SIZE and sets no OMPI_* names")
  void torchrunUnderIntelMpi() throws IOException {
    Path folder = Files.createDirectories(dir.resolve("runtimes/intel-mpi/1.0.0-1"));
    Files.writeString(
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
    WORDING.approve(nested.get(0).hint());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "torchrun --rdzv_backend=c10d train.py",
        "torchrun --rdzv-backend c10d --nnodes 2 train.py --lr 1",
        "python -m torch.distributed.run --rdzv_backend c10d train.py",
        "torchrun --nnodes $NNODES --rdzv_backend c10d --rdzv_id job train.py",
      })
  @DisplayName(
      "issue #19: a c10d line without --rdzv_endpoint compiles clean on torch and meets at node 0: the pods set PET_RDZV_ENDPOINT to $MASTER_ADDR:$MASTER_PORT")
  void c10dWithoutEndpointMeetsAtNodeZero(String run) {
    CompileResult r = TrainProject.create(dir, RunLintCases.yaml("torch", 2, run)).compile();
    assertEquals(List.of(), r.diagnostics(), run);
    assertRendezvousAtNodeZero(r);
  }

  @Test
  @DisplayName(
      "issue #19: the hint that drops a literal --rdzv_endpoint keeps --rdzv_backend c10d, and the compiled pods then meet at node 0")
  void droppedEndpointKeepsC10dAndMeets() {
    Diagnostic d =
        only(
            "torch",
            2,
            "torchrun --rdzv_backend c10d --rdzv_endpoint localhost:29400 train.py",
            DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY);
    WORDING.approve(d.hint());
    assertRendezvousAtNodeZero(
        TrainProject.create(
                dir.resolve("hinted"),
                RunLintCases.yaml("torch", 2, RunLintCases.requireHintedRun(d)))
            .compile());
  }

  private static void assertRendezvousAtNodeZero(CompileResult r) {
    JsonNode js = TrainProject.object(r, "JobSet");
    String master = TrainProject.env(js, "node", "MASTER_ADDR").path("value").asText();
    assertTrue(master.contains("-node-0-0."), master);
    assertEquals(
        master + ":" + TrainProject.env(js, "node", "MASTER_PORT").path("value").asText(),
        TrainProject.env(js, "node", "PET_RDZV_ENDPOINT").path("value").asText());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "torchrun train.py | torchrun --nnodes $NNODES --nproc_per_node 1 --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT train.py",
        "torchrun --rdzv_backend=c10d train.py | torchrun --nnodes $NNODES --nproc_per_node 1 --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT train.py",
        "python -m torch.distributed.run --nnodes 2 --nproc_per_node 1 a.py | python -m torch.distributed.run --nnodes $NNODES --nproc_per_node 1 --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT a.py",
        "torchrun --nnodes 3 --rdzv_backend c10d --rdzv_endpoint localhost:29400 train.py | torchrun --nnodes $NNODES --nproc_per_node 1 --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT train.py",
        "torchrun --nproc_per_node $GPUS train.py | torchrun --nnodes $NNODES --nproc_per_node 1 --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT train.py",
      })
  @DisplayName(
      "issue #19: on a runtime without PET_* (plain) every torchrun hint carries the whole group from the neutral env, never a flag dropped for PET_* to fill")
  void torchrunOffTheTorchRuntime(String run, String hinted) {
    List<Diagnostic> found = RunLintCases.lint(dir, RunLintCases.yaml("plain", 2, run));
    assertTrue(!found.isEmpty(), run + " compiled clean on plain with 2 nodes");
    for (Diagnostic d : found) {
      assertEquals(hinted, RunLintCases.requireHintedRun(d), d.toString());
      RunLintCases.assertHintAccepted(dir, "plain", 2, "", d);
    }
  }

  @Test
  @DisplayName(
      "a plain-runtime torchrun that carries the group itself (--nnodes and a rendezvous, or master and rank) compiles clean")
  void torchrunWithItsGroupOnPlain() {
    for (String run :
        List.of(
            "torchrun --nnodes $NNODES --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT train.py",
            "torchrun --nnodes $NNODES --node_rank $NODE_RANK --master_addr $MASTER_ADDR --master_port $MASTER_PORT train.py")) {
      assertEquals(
          List.of(),
          RunLintCases.lint(
              dir.resolve(Integer.toHexString(run.hashCode())), RunLintCases.yaml("plain", 2, run)),
          run);
    }
  }

  /**
   * Lines of the torch family as READMEs write them, wrong for a 2-node run in every way the lint
   * knows; each hint they get must compile clean (pasted back) and, read as the launcher reads it,
   * form one group of 2 nodes.
   */
  static final List<String> TORCH_FAMILY =
      List.of(
          "torchrun --standalone --nproc_per_node 4 train.py",
          "torchrun --nnodes 1 --nproc_per_node 4 train.py",
          "torchrun --nnodes 2 --node_rank 0 --master_addr 10.0.0.1 --master_port 29500 train.py",
          "torchrun --rdzv_backend c10d --rdzv_endpoint localhost:29400 train.py",
          "torchrun --rdzv-backend=c10d --rdzv-endpoint=head:29400 --nnodes=2 train.py",
          "python -m torch.distributed.launch --nproc_per_node 8 --node_rank 1 train.py",
          "python3 -m torch.distributed.run --master_addr $HEAD train.py",
          "torchrun --nnodes $N train.py",
          "tune run full_finetune_distributed --config c.yaml",
          "tune run --nnodes 2 --nproc_per_node 4 lora_finetune_distributed --config c.yaml",
          "tune run --standalone --rdzv_endpoint localhost:29500 recipe",
          "accelerate launch train.py",
          "accelerate launch --num_processes 8 --machine_rank 0 --main_process_ip 10.0.0.1 train.py",
          "python -m accelerate.commands.launch --num_machines 2 train.py",
          "python train.py");

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"torch", "plain"})
  @DisplayName(
      "issue #19: every hint of the torch family compiles clean when pasted back and gives the launcher a group of every node")
  void everyTorchFamilyHintFormsTheGroup(String runtime) {
    int hints = 0;
    for (String run : TORCH_FAMILY) {
      Path where = dir.resolve(runtime + "-" + Integer.toHexString(run.hashCode()));
      for (Diagnostic d : RunLintCases.lint(where, RunLintCases.yaml(runtime, 2, run))) {
        if (RunLintCases.hintedRun(d).isEmpty()) {
          continue;
        }
        String hinted = RunLintCases.requireHintedRun(d);
        RunLintCases.assertHintAccepted(where, runtime, 2, "", d);
        assertTrue(
            GroupForming.formsGroup(runtime, 0, hinted),
            runtime + ": `" + run + "` hints `" + hinted + "`, which forms no group of 2: " + d);
        hints++;
      }
    }
    assertTrue(hints >= TORCH_FAMILY.size() - 2, "hints checked: " + hints);
  }

  @Test
  @DisplayName(
      "issue #19: on GPU nodes the accelerate hint adds --multi_gpu and no CPU switch; with 2+ GPUs accelerate turns --multi_gpu on itself, so the machine flags alone are quiet")
  void accelerateOnGpuNodes() {
    String flags =
        " --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR"
            + " --main_process_port $MASTER_PORT train.py";
    List<Diagnostic> one =
        RunLintCases.lint(
            dir.resolve("one"),
            RunLintCases.yaml("torch", 2, "resources: {gpus: 1}\n", "accelerate launch" + flags));
    assertEquals(1, one.size(), one.toString());
    assertEquals(
        "accelerate launch --multi_gpu" + flags, RunLintCases.requireHintedRun(one.get(0)));
    RunLintCases.assertHintAccepted(dir, "torch", 2, "resources: {gpus: 1}\n", one.get(0));
    assertEquals(
        List.of(),
        RunLintCases.lint(
            dir.resolve("four"),
            RunLintCases.yaml("torch", 2, "resources: {gpus: 4}\n", "accelerate launch" + flags)));
  }

  /**
   * An `accelerate config` file as committed next to train.yaml, and the run-lint diagnostics of a
   * 2-node, 1-GPU job using it.
   */
  private List<Diagnostic> withConfig(String name, String config, String run) {
    TrainProject p =
        TrainProject.create(
            dir.resolve(name),
            "jobs/demo",
            RunLintCases.yaml("torch", 2, "resources: {gpus: 1}\n", run),
            Map.of("accel.yaml", config));
    return p.compile().diagnostics().stream()
        .filter(d -> RunLintCases.RUN_CODES.contains(d.code()))
        .toList();
  }

  static final String WRITTEN_BY_ACCELERATE_CONFIG =
      "compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_GPU\nmachine_rank: 0\n"
          + "main_process_ip: 10.0.0.1\nmain_process_port: 29500\nmixed_precision: bf16\nnum_machines: 2\nnum_processes: 2\n"
          + "rdzv_backend: static\nsame_network: true\nuse_cpu: false\n";

  @Test
  @DisplayName(
      "issue #19: --config_file no longer switches the accelerate check off: the committed config's machine_rank and main_process_ip are checked like flags, and the hint's flags override them")
  void configFileIsChecked() {
    List<Diagnostic> found =
        withConfig(
            "cfg",
            WRITTEN_BY_ACCELERATE_CONFIG,
            "accelerate launch --config_file accel.yaml train.py");
    assertEquals(
        List.of(
            "`run` passes --config_file accel.yaml, which sets machine_rank: 0: every node would claim that rank",
            "`run` passes --config_file accel.yaml, which sets main_process_ip: 10.0.0.1, which is not node 0 of this run"),
        found.stream().map(Diagnostic::message).toList());
    String hinted = RunLintCases.requireHintedRun(found.get(0));
    assertEquals(
        "accelerate launch --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK"
            + " --main_process_ip $MASTER_ADDR --main_process_port $MASTER_PORT --config_file accel.yaml train.py",
        hinted,
        "MULTI_GPU comes from the file");
    assertEquals(List.of(), withConfig("cfg-fixed", WRITTEN_BY_ACCELERATE_CONFIG, hinted), hinted);
  }

  @Test
  @DisplayName(
      "a config file with num_machines 1 or distributed_type NO on 2 nodes is the same error as the flags; the hint adds --multi_gpu only when the file names no multi-machine mode")
  void configFileTopologyAndMode() {
    List<Diagnostic> machines =
        withConfig(
            "one",
            "distributed_type: MULTI_GPU\nnum_machines: 1\n",
            "accelerate launch --config_file accel.yaml train.py");
    WORDING.approve(machines.get(0).message());
    String flags =
        " --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR --num_machines $NNODES --num_processes 2 --config_file accel.yaml train.py";
    List<Diagnostic> no =
        withConfig("no", "distributed_type: 'NO'\nnum_machines: 2\n", "accelerate launch" + flags);
    assertEquals(1, no.size(), no.toString());
    WORDING.approve(no.get(0).message());
    assertTrue(
        RunLintCases.requireHintedRun(no.get(0))
            .startsWith("accelerate launch --multi_gpu --num_machines $NNODES"),
        no.get(0).hint());
    assertEquals(
        List.of(),
        withConfig(
            "ds", "distributed_type: DEEPSPEED\nnum_machines: 2\n", "accelerate launch" + flags),
        "DEEPSPEED spans machines");
  }

  @Test
  @DisplayName(
      "a config file that is not in the repository (written at run time, an absolute path) is trusted, as before")
  void unreadableConfigIsTrusted() {
    assertEquals(
        List.of(),
        withConfig("abs", "", "accelerate launch --config_file /etc/accel.yaml train.py"));
    assertEquals(
        List.of(), withConfig("gone", "", "accelerate launch --config_file other.yaml train.py"));
  }
}
