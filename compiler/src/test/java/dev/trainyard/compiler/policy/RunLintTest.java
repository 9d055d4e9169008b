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
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The {@code run} lint through the real compiler: each rule fires on the bad form with its code, at the
 * offending word of {@code run} (line and column), with a hint whose command the lint itself accepts; and
 * stays quiet on the good form (reference/running-real-scripts.md).
 */
class RunLintTest {
  /** The codes of the {@code run} lint; W410 (plain SSH Secret of MPI runs under the embedded platform) is not one. */
  static final List<DiagnosticCode> RUN_CODES = List.of(DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY, DiagnosticCode.RUN_HANGS_AT_RENDEZVOUS,
      DiagnosticCode.POD_VARIABLE_IN_FLAG, DiagnosticCode.UNDEFINED_VARIABLE_IN_FLAG, DiagnosticCode.NODES_TRAIN_ALONE,
      DiagnosticCode.NESTED_LAUNCHER, DiagnosticCode.INVALID_MPI_SETTINGS);
  private static final Pattern HINT_RUN = Pattern.compile("`run: (.*)`");
  private static final Pattern HINT_MPI = Pattern.compile("`(mpi: \\{.*?\\}\\})`|`(mpi: \\{[^}]*\\})`");

  @TempDir Path dir;

  private static String yaml(String runtime, int nodes, String run) {
    return "runtime: " + runtime + "\nnodes: " + nodes + "\nrun: '" + run.replace("'", "''") + "'\n";
  }

  private List<Diagnostic> lint(Path where, String yaml) {
    CompileResult result = TrainProject.create(where, yaml).compile();
    return result.diagnostics().stream().filter(d -> RUN_CODES.contains(d.code())).toList();
  }

  @ParameterizedTest(name = "{0} on {1} node(s): {2}")
  @CsvSource(delimiter = '|', value = {
      "torch | 2 | torchrun --nnodes 4 train.py                          | E409 | --nnodes",
      "torch | 2 | torchrun --nnodes=1 train.py                          | E409 | --nnodes=1",
      "torch | 2 | torchrun --node_rank=0 train.py                       | E409 | --node_rank=0",
      "torch | 2 | torchrun --node-rank 1 train.py                       | E409 | --node-rank",
      "torch | 2 | torchrun --master_addr=10.0.0.1 train.py              | E409 | --master_addr",
      "torch | 2 | torchrun --standalone train.py                        | E409 | --standalone",
      "torch | 2 | accelerate launch train.py                            | E409 | accelerate",
      "torch | 2 | accelerate launch --num_machines 2 train.py           | E409 | accelerate",
      "torch | 2 | accelerate launch --num_machines 3 --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py | E409 | --num_machines",
      "torch | 2 | accelerate launch --num_machines $NNODES --num_processes 4 --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py | E409 | --num_processes",
      "torch | 2 | accelerate launch --num_machines $NNODES --num_processes $((NNODES * GPUS_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py | E409 | --num_processes",
      "torch | 2 | accelerate launch --num_machines $NNODES --num_processes $(( NNODES * 3 )) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py | E409 | --num_processes",
      "torch | 2 | accelerate launch --num_machines $NNODES --num_processes $PET_NPROC_PER_NODE --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py | E409 | --num_processes",
      "torch | 2 | accelerate launch --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank 0 --main_process_ip $MASTER_ADDR train.py | E409 | --machine_rank",
      "torch | 2 | accelerate launch --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip 10.1.2.3 train.py | E409 | --main_process_ip",
      "torch | 1 | tune run lora_finetune_single_device --config c.yaml  | E409 | tune",
      "torch | 2 | tune run --nnodes 2 --nproc_per_node 4 full_finetune_distributed --config c.yaml | E423 | tune",
      "torch | 3 | tune run full_finetune_distributed --config c.yaml     | E423 | tune",
      "torch | 2 | torchrun --rdzv_id $RANDOM --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT train.py | E424 | $RANDOM",
      "torch | 2 | torchrun --rdzv_backend c10d --rdzv_endpoint $(hostname):29500 train.py | E424 | $(hostname):29500",
      "torch | 2 | torchrun --node_rank $RANDOM train.py                 | E424 | $RANDOM",
      "torch | 2 | accelerate launch --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $HOSTNAME train.py | E424 | $HOSTNAME",
      "torch | 2 | torchrun --nnodes $NUM_NODES train.py                 | W425 | $NUM_NODES",
      "torch | 2 | torchrun --master_addr $MASTER_IP train.py             | W425 | $MASTER_IP",
      "torch | 2 | srun python train.py                                  | E409 | srun",
      "torch | 2 | python train.py --rank $SLURM_PROCID                  | E409 | $SLURM_",
      "torch | 2 | python -u train.py --epochs 3                         | W426 | python",
      "torch | 2 | cd src && python -m trainer.main                       | W426 | python",
      "mpi   | 2 | mpirun -np 4 python train.py                          | E409 | mpirun",
      "mpi   | 2 | mpirun -bind-to none -map-by slot --mca btl_tcp_if_include eth0 python train.py | E409 | mpirun",
      "mpi   | 2 | /usr/bin/mpiexec python train.py                      | E409 | /usr/bin/mpiexec",
      "deepspeed | 2 | deepspeed train.py                                | E427 | deepspeed",
      "deepspeed | 2 | deepspeed --num_gpus 4 train.py --deepspeed_config ds.json | E427 | deepspeed",
      "deepspeed | 2 | torchrun --nproc_per_node 4 train.py                | E427 | torchrun",
      "mpi   | 2 | horovodrun -np 4 -H a:2,b:2 python train.py           | E427 | horovodrun",
      "mlx   | 2 | mlx.launch --hosts a,b main.py                        | E427 | mlx.launch",
  })
  @DisplayName("a run line that would hang, train alone or contradict the topology gets its code at the offending word, with a hint")
  void badRunFires(String runtime, int nodes, String run, String code, String word) {
    List<Diagnostic> found = lint(dir, yaml(runtime, nodes, run));
    assertEquals(1, found.size(), "expected one lint diagnostic for `" + run + "`, got " + found);
    Diagnostic d = found.get(0);
    assertEquals(code, d.code().id(), d.toString());
    assertEquals(code.startsWith("E"), d.isError());
    assertEquals("/run", d.pointer());
    assertEquals(3, d.location().line());
    assertEquals(7 + run.indexOf(word), d.location().column(), "column of `" + word + "` in " + d);
    assertFalse(d.hint().isBlank());
  }

  @ParameterizedTest(name = "{0} on {1} node(s): {2}")
  @CsvSource(delimiter = '|', value = {
      "torch | 2 | torchrun --nnodes=1 --node_rank=0 --master_addr=10.0.0.1 --nproc_per_node 3 train.py",
      "torch | 2 | torchrun --master-port 1234 --rdzv-endpoint 10.0.0.1:29400 train.py",
      "torch | 2 | torchrun --standalone train.py",
      "torch | 2 | accelerate launch train.py",
      "torch | 2 | accelerate launch --num_machines 3 --main_process_ip 10.0.0.1 --machine_rank 0 train.py",
      "torch | 2 | accelerate launch --num_machines $NNODES --num_processes $(( NNODES * 3 )) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py",
      "torch | 2 | accelerate launch --num_machines $NNODES --num_processes $((NNODES * GPUS_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py",
      "torch | 1 | tune run lora_finetune_single_device --config c.yaml",
      "torch | 2 | tune run --nnodes 2 --nproc_per_node 4 --standalone full_finetune_distributed --config c.yaml",
      "torch | 2 | torchrun --rdzv_id $RANDOM --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT train.py",
      "torch | 2 | torchrun --rdzv_backend c10d --rdzv_endpoint $(hostname):29500 train.py",
      "torch | 2 | torchrun --node_rank $RANDOM train.py",
      "torch | 2 | torchrun --nnodes $NUM_NODES train.py",
      "torch | 2 | torchrun --nproc_per_node $GPUS train.py",
      "torch | 2 | python -u train.py --epochs 3",
      "torch | 2 | cd src && python -m trainer.main",
      "mpi   | 2 | mpirun -np 4 python train.py",
      "mpi   | 2 | mpirun -bind-to none -map-by slot --mca btl_tcp_if_include eth0 --mca btl ^openib python train.py",
      "deepspeed | 2 | deepspeed train.py",
      "deepspeed | 2 | deepspeed --num_gpus 4 train.py --deepspeed_config ds.json",
      "deepspeed | 2 | deepspeed --no_local_rank train.py",
      "deepspeed | 2 | torchrun --nproc_per_node 4 train.py",
      "mpi   | 2 | horovodrun -np 4 -H a:2,b:2 python train.py --lr 0.1",
      "mlx   | 2 | mlx.launch --hosts a,b main.py",
  })
  @DisplayName("the command a hint suggests (with its `mpi` field) compiles with no run diagnostic at all")
  void hintedCommandIsAccepted(String runtime, int nodes, String run) throws Exception {
    List<Diagnostic> found = lint(dir.resolve("bad"), yaml(runtime, nodes, run));
    assertFalse(found.isEmpty(), run);
    for (Diagnostic d : found) {
      Matcher m = HINT_RUN.matcher(d.hint());
      assertTrue(m.find(), "hint has no `run: ...` command: " + d.hint());
      String fixed = m.group(1);
      ProcessBuilder syntax = new ProcessBuilder("bash", "-n", "-c", fixed).redirectErrorStream(true);
      Process bash = syntax.start();
      String complaint = new String(bash.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      assertTrue(bash.waitFor(10, java.util.concurrent.TimeUnit.SECONDS), "bash -n did not finish");
      assertEquals(0, bash.exitValue(), "hinted `" + fixed + "` is not valid bash: " + complaint);
      Matcher mpi = HINT_MPI.matcher(d.hint());
      String extra = mpi.find() ? (mpi.group(1) != null ? mpi.group(1) : mpi.group(2)) + "\n" : "";
      Path again = dir.resolve("fixed-" + Integer.toHexString(fixed.hashCode()));
      CompileResult result = TrainProject.create(again, yaml(runtime, nodes, fixed) + extra).compile();
      List<Diagnostic> left = result.diagnostics().stream().filter(x -> x.code() != DiagnosticCode.PLAIN_SECRET_IN_GIT).toList();
      assertEquals(List.of(), left, "hinted `" + fixed + "` " + extra + "for `" + run + "`");
      assertTrue(result.tree().isPresent());
    }
  }

  @Test
  @DisplayName("tune run's hint forms one group: c10d rendezvous at $MASTER_ADDR:$MASTER_PORT, the env names the torch plugin sets")
  void tuneRunHint() {
    Diagnostic d = lint(dir, yaml("torch", 2, "tune run full_finetune_distributed --config c.yaml")).get(0);
    assertTrue(d.hint().contains("`run: tune run --nnodes $PET_NNODES --nproc_per_node $PET_NPROC_PER_NODE --rdzv_backend c10d"
        + " --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT full_finetune_distributed --config c.yaml`"), d.hint());
    assertTrue(d.message().contains("--standalone"), d.message());
  }

  @Test
  @DisplayName("the deepspeed hint under mpirun keeps the script's arguments and the --local_rank the launcher passed")
  void deepspeedHintKeepsLocalRank() {
    Diagnostic d = lint(dir, yaml("deepspeed", 2, "deepspeed --num_gpus 4 train.py --deepspeed_config ds.json && echo done")).get(0);
    assertTrue(d.hint().contains("`run: python train.py --deepspeed_config ds.json --local_rank=$OMPI_COMM_WORLD_LOCAL_RANK && echo done`"),
        d.hint());
  }

  @Test
  @DisplayName("mpirun tuning in run moves to the `mpi` field in the hint, values quoted for YAML where needed")
  void mpirunTuningHint() {
    Diagnostic d = lint(dir, yaml("mpi", 2, "mpirun -bind-to none -map-by slot --mca btl ^openib --mca btl_tcp_if_include 10.0.0.0/8,eth0 ./pi")).get(0);
    assertTrue(d.hint().contains("`mpi: {bindTo: none, mapBy: slot, mca: {btl: '^openib', btl_tcp_if_include: '10.0.0.0/8,eth0'}}`"), d.hint());
    assertTrue(d.hint().endsWith("`run: ./pi`"), d.hint());
  }

  @Test
  @DisplayName("a run diagnostic in a block scalar points at the line and column of the offending flag")
  void locationInBlockScalar() {
    String yaml = "nodes: 2\nrun: |\n  echo start\n  torchrun \\\n    --node_rank=0 train.py\n";
    Diagnostic d = lint(dir, yaml).get(0);
    assertEquals(5, d.location().line(), d.toString());
    assertEquals(5, d.location().column(), d.toString());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "nodes: 2\\nrun: >-\\n  torchrun train.py --epochs 1\\n  --node_rank=0\\n | 4 | 3",
      "nodes: 2\\nrun: \"torchrun --nnodes 1 train.py\"\\n | 2 | 16",
      "nodes: 2\\nrun: torchrun --nnodes 2 train.py --epochs 3 && torchrun --nnodes 1 eval.py\\n | 2 | 58",
  })
  @DisplayName("folded, double-quoted and repeated flags: the diagnostic points at the occurrence that is wrong")
  void locationInOtherScalars(String yaml, int line, int column) {
    Diagnostic d = lint(dir, yaml.replace("\\n", "\n")).get(0);
    assertEquals(line, d.location().line(), d.toString());
    assertEquals(column, d.location().column(), d.toString());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "FOO=1 python -W ignore train.py --x 1 | 1 | `run` starts train.py with python and no launcher | `run: FOO=1 torchrun train.py --x 1`",
      "python -m trainer.main                | 1 | `run` starts trainer.main with python            | `run: torchrun -m trainer.main`",
      "echo python train.py                  | 0 | |",
      "python -c print(1)                    | 0 | |",
      "python3.11                            | 0 | |",
  })
  @DisplayName("the launcherless warning needs python as the command, skips python's own options, and names the script or module")
  void launcherlessShapes(String run, int count, String message, String hint) {
    List<Diagnostic> found = lint(dir, yaml("torch", 2, run));
    assertEquals(count, found.size(), found.toString());
    if (count > 0) {
      assertTrue(found.get(0).message().startsWith(message), found.get(0).message());
      assertTrue(found.get(0).hint().endsWith(hint), found.get(0).hint());
    }
  }

  @Test
  @DisplayName("a variable from secrets, the runtime template, a for loop or read is defined; the launcherless message names a script without env")
  void definedVariables() {
    String yaml = "nodes: 2\nsecrets:\n  - {name: s, key: k, env: NN}\nrun: 'torchrun --nnodes $NN --nproc_per_node $PYTHONUNBUFFERED"
        + " a.py; for P in 1; do torchrun --master_port $P a.py; done; read -r Q; torchrun --rdzv_id $Q a.py'\n";
    assertEquals(List.of(), lint(dir, yaml));
    TrainProject p = TrainProject.create(dir.resolve("s"), TrainProject.FOLDER, yaml("torch", 2, "python train.py"), Map.of("train.py", "print(1)\n"));
    Diagnostic d = p.compile().diagnostics().stream().filter(x -> x.code() == DiagnosticCode.NODES_TRAIN_ALONE).findFirst().orElseThrow();
    assertTrue(d.message().startsWith("train.py reads no MASTER_ADDR, NODE_RANK or PET_* variable"), d.message());
  }

  @Test
  @DisplayName("tune run's hint drops the user's own --standalone and rendezvous flags before adding the group's")
  void tuneRunHintReplacesFlags() {
    Diagnostic d = lint(dir, yaml("torch", 2, "tune run --standalone --nnodes=2 --rdzv_backend static full_finetune_distributed")).stream()
        .filter(x -> x.code() == DiagnosticCode.RUN_HANGS_AT_RENDEZVOUS).findFirst().orElseThrow();
    assertTrue(d.hint().endsWith("`run: tune run --nnodes $PET_NNODES --nproc_per_node $PET_NPROC_PER_NODE --rdzv_backend c10d"
        + " --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT full_finetune_distributed`"), d.hint());
    Diagnostic plain = lint(dir.resolve("p"), yaml("plain", 2, "tune run full_finetune_distributed")).get(0);
    assertTrue(plain.hint().contains("--nnodes $NNODES --nproc_per_node 1 --rdzv_backend c10d"), plain.hint());
  }

  static List<Arguments> scripts() {
    return List.of(
        Arguments.of("import os\nimport torch.distributed as dist\ndist.init_process_group('gloo', init_method="
            + "f\"tcp://{os.environ['MASTER_ADDR']}:1\", rank=int(os.environ['NODE_RANK']), world_size=int(os.environ['NNODES']))\n", 0),
        Arguments.of("import lightning as L\ntrainer = L.Trainer(num_nodes=2)\n", 0),
        Arguments.of("import torch.multiprocessing as mp\nmp.spawn(main, nprocs=4)\n", 1),
        Arguments.of("print('hello')\n", 1));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scripts")
  @DisplayName("python train.py on several torch nodes: quiet when the script reads the node's place in the group; a warning naming mp.spawn or the missing env otherwise")
  void scriptIsRead(String script, int warnings) {
    TrainProject p = TrainProject.create(dir, TrainProject.FOLDER, yaml("torch", 2, "python train.py"), Map.of("train.py", script));
    List<Diagnostic> found = p.compile().diagnostics().stream().filter(d -> d.code() == DiagnosticCode.NODES_TRAIN_ALONE).toList();
    assertEquals(warnings, found.size(), found.toString());
    if (script.contains("mp.spawn")) {
      assertTrue(found.get(0).message().contains("mp.spawn"), found.get(0).message());
      assertTrue(found.get(0).hint().contains("`run: torchrun train.py`"), found.get(0).hint());
    }
  }

  @ParameterizedTest(name = "{0} on {1} node(s): {2}")
  @CsvSource(delimiter = '|', value = {
      "torch | 2 | torchrun --nnodes=2 train.py",
      "torch | 2 | torchrun --nnodes 2 --nproc_per_node=4 train.py",
      "torch | 2 | torchrun --master_addr=$MASTER_ADDR --node_rank=$NODE_RANK train.py",
      "torch | 2 | torchrun --rdzv_id ${RUN_ID:-job} --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT train.py",
      "torch | 2 | export N=2; torchrun --nnodes $N train.py",
      "torch | 2 | torchrun train.py",
      "torch | 1 | torchrun --standalone train.py",
      "torch | 1 | accelerate launch train.py",
      "torch | 1 | python train.py",
      "torch | 2 | accelerate launch --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py",
      "torch | 2 | accelerate launch --num_machines 2 --num_processes 8 --main_process_ip $MASTER_ADDR --main_process_port $MASTER_PORT --rdzv_backend c10d train.py",
      "torch | 2 | accelerate launch --config_file acc.yaml train.py",
      "torch | 1 | tune run --nnodes 1 --nproc_per_node 4 lora_finetune --config c.yaml",
      "torch | 2 | tune run --nnodes 2 --nproc_per_node 4 --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT full_finetune_distributed --config c.yaml",
      "torch | 2 | torchrun train.py --sruns 3",
      "plain | 3 | python sweep.py --trial $NODE_RANK",
      "jax   | 2 | python train.py",
      "mpi   | 2 | python train.py",
      "mpi   | 2 | ./pi --iterations 10",
      "deepspeed | 2 | python train.py --deepspeed_config ds.json",
      "deepspeed | 2 | python train.py --local_rank $OMPI_COMM_WORLD_LOCAL_RANK",
  })
  @DisplayName("the good form of each launcher stays quiet and compiles")
  void goodRunIsQuiet(String runtime, int nodes, String run) {
    CompileResult result = TrainProject.create(dir, yaml(runtime, nodes, run)).compile();
    assertEquals(List.of(), result.diagnostics().stream().filter(d -> RUN_CODES.contains(d.code())).toList());
    assertTrue(result.tree().isPresent(), result.diagnostics().toString());
  }
}
