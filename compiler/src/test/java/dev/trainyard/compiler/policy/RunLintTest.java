package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The {@code run} lint's contract through the real compiler, one row per launch line users copy
 * (reference/running-real-scripts.md): a bad line gets exactly one diagnostic, with its code, at
 * the offending word (line and column), with its message, and a hint whose command is valid bash
 * and compiles with no diagnostic at all; a line with several findings gets hints that each compile
 * clean; the good form of each launcher stays quiet. Exact hint texts: {@link RunLintHintTest};
 * locations in other YAML scalars: {@link RunLintLocationTest}; scripts read from the work tree and
 * variables: {@link RunLintScriptTest}.
 */
class RunLintTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path dir;

  @ParameterizedTest(name = "{0} x{1}: {3}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        // torchrun flags against the topology (TorchrunFlags) and --standalone
        "torch | 2 | | torchrun --nnodes 4 train.py | E409 | --nnodes | `run` passes --nnodes 4, but `nodes` is 2",
        "torch | 2 | | torchrun train.py --nnodes 3 | E409 | --nnodes | `run` passes --nnodes 3, but `nodes` is 2",
        "torch | 2 | | torchrun --nnodes=1 train.py | E409 | --nnodes=1 |",
        "torch | 2 | procsPerNode: 2\\n | torchrun --nproc_per_node=3 train.py | E409 | --nproc_per_node=3 | `run` passes --nproc_per_node 3, but each node gets 2 processes",
        "torch | 2 | procsPerNode: 2\\n | torchrun --nproc-per-node 1 train.py | E409 | --nproc-per-node | `run` passes --nproc_per_node 1, but each node gets 2 processes",
        "torch | 2 | | torchrun --node_rank=0 train.py | E409 | --node_rank=0 |",
        "torch | 2 | | torchrun --node-rank 1 train.py | E409 | --node-rank |",
        "torch | 2 | | torchrun --master_addr=10.0.0.1 train.py | E409 | --master_addr |",
        "torch | 2 | | torchrun --standalone train.py | E409 | --standalone | `run` passes --standalone, but the job has 2 nodes: each node would train alone",
        // issue #19 item 7: elastic ranges need a dynamic rendezvous that holds `nodes`; a loopback
        // etcd is each node's own
        "torch | 2 | | torchrun --nnodes 1:4 train.py | E409 | --nnodes | `run` passes --nnodes 1:4 (a range: the static rendezvous waits for 4 nodes), but `nodes` is 2",
        "torch | 2 | | torchrun --nnodes 3:4 --rdzv_backend c10d train.py | E409 | --nnodes | `run` passes --nnodes 3:4 (an elastic range that does not hold it), but `nodes` is 2",
        "torch | 2 | | torchrun --nnodes 1:1 --rdzv_backend c10d train.py | E409 | --nnodes |",
        "torch | 2 | | torchrun --rdzv_backend etcd --rdzv_endpoint localhost:2379 train.py | E409 | --rdzv_endpoint | `run` passes a literal --rdzv_endpoint localhost:2379, which overrides what each node is told",
        "torch | 2 | | torchrun --rdzv_backend c10d --rdzv_endpoint 10.1.2.3:29400 train.py | E409 | --rdzv_endpoint |",
        // a variable run sets once to a literal is that literal (PodVariables.constant)
        "torch | 2 | | export N=3; torchrun --nnodes $N train.py | E409 | --nnodes | `run` passes --nnodes 3, but `nodes` is 2",
        "torch | 2 | | torchrun --nnodes ${N:-3} train.py | E409 | --nnodes | `run` passes --nnodes 3, but `nodes` is 2",
        "torch | 2 | | torchrun --nnodes ${NNODES:-3} --master_addr ${ADDR-10.0.0.1} train.py | E409 | --master_addr |",
        "torch | 2 | | NPROC=3; torchrun --nproc_per_node ${NPROC} train.py | E409 | --nproc_per_node | `run` passes --nproc_per_node 3, but each node gets 4 processes",
        "torch | 2 | | export ADDR=10.0.0.1 PORT=29500; torchrun --master_addr $ADDR train.py | E409 | --master_addr | `run` passes a literal --master_addr 10.0.0.1, which overrides what each node is told",
        "torch | 2 | | R=0; accelerate launch --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $R --main_process_ip $MASTER_ADDR train.py | E409 | --machine_rank |",
        // torchrun's module spellings are torchrun
        "torch | 2 | | python -m torch.distributed.run --nnodes 3 train.py | E409 | --nnodes | `run` passes --nnodes 3, but `nodes` is 2",
        "torch | 2 | | python3 -m torch.distributed.launch --standalone train.py | E409 | --standalone |",
        "torch | 2 | | /usr/bin/python3 -u -m torch.distributed.run --node_rank=1 train.py | E409 | --node_rank=1 |",
        // accelerate launch (AccelerateRule), both spellings
        "torch | 2 | | accelerate launch train.py | E409 | accelerate | `run` uses `accelerate launch` on 2 nodes without --num_machines, --num_processes, --machine_rank, --main_process_ip: each node would run its own job",
        "torch | 2 | | accelerate launch --num_machines 2 train.py | E409 | accelerate |",
        "torch | 2 | | python -m accelerate.commands.launch train.py | E409 | python | `run` uses `python -m accelerate.commands.launch` on 2 nodes without --num_machines, --num_processes, --machine_rank, --main_process_ip: each node would run its own job",
        "torch | 3 | | python3 -u -m accelerate.commands.launch --num_machines 3 --machine_rank $NODE_RANK train.py | E409 | python3 |",
        "torch | 2 | | python -m accelerate.commands.launch --num_machines 3 --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py | E409 | --num_machines | `run` passes --num_machines 3, but `nodes` is 2",
        "torch | 2 | | accelerate launch --num_machines 3 --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py | E409 | --num_machines |",
        "torch | 2 | | accelerate launch --num_machines $NNODES --num_processes 4 --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py | E409 | --num_processes |",
        "torch | 2 | | accelerate launch --num_machines $NNODES --num_processes $((NNODES * GPUS_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py | E409 | --num_processes |",
        "torch | 2 | | accelerate launch --num_machines $NNODES --num_processes $(( NNODES * 3 )) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py | E409 | --num_processes |",
        "torch | 2 | | accelerate launch --num_machines $NNODES --num_processes $PET_NPROC_PER_NODE --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py | E409 | --num_processes |",
        "torch | 2 | | accelerate launch --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank 0 --main_process_ip $MASTER_ADDR train.py | E409 | --machine_rank |",
        "torch | 2 | | accelerate launch --num_machines 2 --machine_rank 0 train.py | E409 | --machine_rank | `run` passes a literal --machine_rank 0: every node would claim that rank",
        "torch | 2 | | accelerate launch --num_machines 2 --num_processes 8 --main_process_ip $MASTER_ADDR --main_process_port $MASTER_PORT --rdzv_backend static train.py | E409 | accelerate | `run` uses `accelerate launch` on 2 nodes without --machine_rank: each node would run its own job",
        "torch | 2 | | accelerate launch --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip 10.1.2.3 train.py | E409 | --main_process_ip |",
        "torch | 2 | | accelerate launch --num_machines $((PET_NNODES * 2)) --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py | E409 | --num_machines | `run` passes --num_machines $((PET_NNODES * 2)), but `nodes` is 2",
        "jax | 2 | | accelerate launch --num_machines $((JAX_NUM_PROCESSES * 2)) --num_processes 2 --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py | E409 | --num_machines | `run` passes --num_machines $((JAX_NUM_PROCESSES * 2)), but `nodes` is 2",
        // issue #19: the machine flags without a distributed mode, or on CPU nodes without
        // ACCELERATE_USE_CPU, train alone
        "torch | 2 | resources: {gpus: 1}\\n | accelerate launch --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py | E409 | accelerate | `run` uses `accelerate launch` without --multi_gpu on nodes with 1 GPU(s): accelerate then starts one plain process per node (simple_launcher), which trains alone (DistributedType.NO)",
        "torch | 2 | | accelerate launch --multi_gpu --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py | E409 | accelerate | `run` uses `accelerate launch` on nodes without GPUs, and nothing sets ACCELERATE_USE_CPU: the processes accelerate starts pick no backend and each trains alone (accelerate state.py _prepare_backend)",
        // tune run (TuneRunRule)
        "torch | 1 | | tune run lora_finetune_single_device --config c.yaml | E409 | tune |",
        "torch | 2 | | tune run --nnodes 2 --nproc_per_node 4 full_finetune_distributed --config c.yaml | E423 | tune |",
        "torch | 3 | | tune run full_finetune_distributed --config c.yaml | E423 | tune |",
        "torch | 1 | | tune run --rdzv_endpoint localhost:29500 lora_finetune | E409 | --rdzv_endpoint | `run` passes a literal --rdzv_endpoint localhost:29500, which overrides what each node is told",
        // variables in launcher flags (LaunchVariables)
        "torch | 2 | | torchrun --rdzv_id $RANDOM --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT train.py | E424 | $RANDOM |",
        "torch | 2 | | torchrun --rdzv_backend c10d --rdzv_endpoint $(hostname):29500 train.py | E424 | $(hostname):29500 |",
        "torch | 2 | | torchrun --node_rank $RANDOM train.py | E424 | $RANDOM | `run` passes --node_rank $RANDOM, which differs from pod to pod: node ranks would collide or be missing",
        "torch | 2 | | torchrun --master_addr `hostname` train.py | E424 | `hostname` | `run` passes --master_addr `hostname`, which differs from pod to pod: the nodes would never agree and wait until the rendezvous timeout",
        "torch | 2 | | ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $HOSTNAME train.py | E424 | $HOSTNAME |",
        "torch | 2 | | ID=$RANDOM; torchrun --rdzv_id $ID --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT train.py | E424 | $ID | `run` passes --rdzv_id $ID (ID=$RANDOM), which differs from pod to pod: the nodes would never agree and wait until the rendezvous timeout",
        "torch | 2 | | export R=$(hostname); torchrun --node_rank ${R} train.py | E424 | ${R} |",
        "torch | 2 | | torchrun --nnodes $NUM_NODES train.py | E430 | $NUM_NODES |",
        "torch | 2 | | torchrun --nproc_per_node $1 train.py | E430 | $1 | `run` passes --nproc_per_node $1, but `run` is started with no arguments, so $1 is empty: the flag would get an empty value, so the launcher cannot count the group and the run never forms one",
        "torch | 2 | | torchrun --nnodes ${2} train.py | E430 | ${2} |",
        "torch | 2 | | torchrun --nproc_per_node ${2:-2} train.py | E409 | --nproc_per_node | `run` passes --nproc_per_node 2, but each node gets 4 processes",
        "torch | 2 | | python -m torch.distributed.run --nproc_per_node ${NPROC} train.py | E430 | ${NPROC} |",
        "torch | 2 | | torchrun --nproc_per_node $GPUS train.py | E430 | $GPUS |",
        "torch | 2 | | ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_machines $NNODES --num_processes $NPROC --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py | E430 | $NPROC |",
        "torch | 2 | | torchrun --node_rank $MY_RANK train.py | E430 | $MY_RANK |",
        "torch | 2 | | torchrun --node_rank $RANK train.py | E430 | $RANK | `run` passes --node_rank $RANK, but no pod of this job sets $RANK: the flag would get an empty value, so the launcher cannot place this node in the group and the run never forms one",
        "torch | 2 | | torchrun --master_addr $MASTER_IP train.py | W425 | $MASTER_IP |",
        "torch | 2 | | torchrun --rdzv_backend c10d --rdzv_id $JOB_ID --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT train.py | W425 | $JOB_ID |",
        // Slurm, a launcherless multi-node run (LauncherlessRun)
        "torch | 2 | | srun -N 2 --ntasks-per-node=1 torchrun --nnodes 2 train.py | E409 | srun |",
        "torch | 2 | | head=$(scontrol show hostnames); echo $head | E409 | scontrol |",
        "torch | 2 | | python train.py --rank $SLURM_PROCID | E409 | $SLURM_ |",
        "torch | 2 | | torchrun --nnodes $SLURM_NNODES train.py | E409 | $SLURM_ | `run` uses Slurm (srun, scontrol or $SLURM_*), which does not exist in a Kubernetes pod",
        "torch | 2 | | python -u train.py --epochs 3 | W426 | python |",
        "torch | 2 | | cd src && python -m trainer.main | W426 | python |",
        // MPI runtimes (MpiRunRule)
        "mpi | 2 | | mpirun -np 4 python train.py | E409 | mpirun |",
        "mpi | 2 | | mpirun -bind-to none -map-by slot --mca btl_tcp_if_include eth0 python train.py | E409 | mpirun |",
        "mpi | 2 | | /usr/bin/mpiexec python train.py | E409 | /usr/bin/mpiexec |",
        "mpi | 2 | | mpiexec.hydra -np 2 ./pi | E409 | mpiexec.hydra | `run` calls mpirun, but MPI runtimes already start `run` under mpirun on the launcher",
        "mpi | 2 | | prterun -np 2 ./pi | E409 | prterun |",
        "deepspeed | 2 | | deepspeed train.py | E427 | deepspeed |",
        "deepspeed | 2 | | deepspeed --num_gpus 4 train.py --deepspeed_config ds.json | E427 | deepspeed |",
        "deepspeed | 2 | | torchrun --nproc_per_node 4 train.py | E427 | torchrun |",
        "deepspeed | 2 | | python3 -m torch.distributed.launch train.py | E427 | python3 |",
        "mpi | 2 | | python -m torch.distributed.run --nproc_per_node 2 train.py | E427 | python |",
        "mpi | 2 | | horovodrun -np 4 -H a:2,b:2 python train.py | E427 | horovodrun |",
        "mlx | 2 | | mlx.launch --hosts a,b main.py | E427 | mlx.launch |",
        // Python on an image that records none (ImagePython): mpi's own image, any version of it
        "mpi@0.6.0-2 | 2 | | python3 train.py | W431 | python3 | `run` starts python3, but runtime mpi@0.6.0-2 records no Python in its image docker.io/mpioperator/openmpi:v0.6.0: the command would not be found (exit 127) on any node",
        "mpi@0.6.0-1 | 1 | | cd src && OMP_NUM_THREADS=1 pip install -r r.txt && python train.py | W431 | pip |",
        "mpi@0.6.0-2 | 2 | | ./prepare; python3.12 -u train.py | W431 | python3.12 |",
        "mpi@0.6.0-2 | 2 | | exec python3 train.py | W431 | python3 |",
        "mpi@0.6.0-2 | 2 | | if true; then time nohup python3 train.py; fi | W431 | python3 |",
        "mpi@0.6.0-2 | 2 | | (python3 train.py) | W431 | python3 | `run` starts python3, but runtime mpi@0.6.0-2 records no Python in its image docker.io/mpioperator/openmpi:v0.6.0: the command would not be found (exit 127) on any node",
        "mpi@0.6.0-2 | 2 | | ! command python3 train.py | W431 | python3 |",
        "mpi@0.6.0-2 | 2 | | env -i A=1 /usr/bin/python3 train.py | W431 | /usr/bin/python3 |",
        // Values torchrun's argument parser or rendezvous refuses (issue #19 fresh-user checks)
        "torch | 2 | | torchrun --master_port abc train.py | E409 | --master_port | `run` passes --master_port abc, which is no port number (1-65535): torchrun stops with an argument error on every node",
        "torch | 2 | | torchrun --master-port=70000 train.py | E409 | --master-port |",
        "torch | 2 | | torchrun --nnodes 4:1 train.py | E409 | --nnodes | `run` passes --nnodes 4:1 (no range: its minimum is above its maximum, which torchrun refuses), but `nodes` is 2",
      })
  @DisplayName(
      "a run line that would hang, train alone or contradict the topology gets one diagnostic at the offending word, and its hinted command compiles clean")
  void badRunFires(
      String runtime,
      int nodes,
      String extraCell,
      String run,
      String code,
      String word,
      String message) {
    String extra = RunLintCases.extra(extraCell);
    List<Diagnostic> found = RunLintCases.lint(dir, RunLintCases.yaml(runtime, nodes, extra, run));
    assertEquals(1, found.size(), "expected one lint diagnostic for `" + run + "`, got " + found);
    Diagnostic d = found.get(0);
    assertEquals(code, d.code().id(), d.toString());
    assertEquals(code.startsWith("E"), d.isError());
    assertEquals("/run", d.pointer());
    assertEquals(3 + extra.split("\n", -1).length - 1, d.location().line());
    assertEquals(7 + run.indexOf(word), d.location().column(), "column of `" + word + "` in " + d);
    if (message != null) {
      assertEquals(message, d.message());
    }
    if (code.equals("W431")) {
      // No command on that image can start Python; the hint says where one comes from.
      WORDING.approve(d.hint());
      return;
    }
    if (code.equals("E409")
        && List.of("srun", "scontrol", "$SLURM_").contains(word)
        && RunLintCases.hintedRun(d).isEmpty()) {
      // No command can replace Slurm's here; the hint names the variables every pod has instead.
      WORDING.approve(d.hint());
      return;
    }
    RunLintCases.assertHintAccepted(dir, runtime, nodes, extra, d);
  }

  @ParameterizedTest(name = "{0} x{1}: {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "torch | 2 | torchrun --nnodes=1 --node_rank=0 --master_addr=10.0.0.1 --nproc_per_node 3 train.py | 4",
        "torch | 2 | torchrun --master-port 1234 --rdzv-endpoint 10.0.0.1:29400 train.py | 1",
        "torch | 2 | accelerate launch --num_machines 3 --main_process_ip 10.0.0.1 --machine_rank 0 train.py | 3",
        "torch | 2 | python -m accelerate.commands.launch --num_processes 3 --machine_rank 1 train.py | 2",
        "torch | 2 | torchrun --nproc_per_node $GPUS --nnodes $NN train.py | 2",
        "torch | 2 | tune run --standalone --nnodes 3 full_finetune_distributed | 3",
        "torch | 2 | tune run --nnodes 2 --nproc_per_node 4 --standalone full_finetune_distributed --config c.yaml | 2",
        "mpi   | 2 | mpirun -bind-to none -map-by slot --mca btl_tcp_if_include eth0 --mca btl ^openib python train.py | 1",
        "deepspeed | 2 | deepspeed --no_local_rank train.py | 1",
        "mpi   | 2 | horovodrun -np 4 -H a:2,b:2 python train.py --lr 0.1 | 1",
      })
  @DisplayName(
      "a run line with several findings: each finding's hinted command (with its `mpi` field) compiles with no diagnostic at all")
  void everyHintIsAccepted(String runtime, int nodes, String run, int findings) {
    List<Diagnostic> found =
        RunLintCases.lint(dir.resolve("bad"), RunLintCases.yaml(runtime, nodes, run));
    assertEquals(findings, found.size(), found.toString());
    for (Diagnostic d : found) {
      assertFalse(d.hint().isBlank(), d.toString());
      RunLintCases.assertHintAccepted(dir, runtime, nodes, "", d);
    }
  }

  @ParameterizedTest(name = "{0} x{1}: {3}")
  @CsvSource(
      delimiter = '|',
      value = {
        "torch | 2 | | torchrun --nnodes=2 train.py",
        "torch | 2 | | torchrun --nnodes 2 --nproc_per_node=4 train.py",
        "torch | 2 | | torchrun --nnodes 2:2 train.py",
        "torch | 2 | | torchrun --master_port 29501 train.py",
        "torch | 2 | | torchrun --nnodes 1:4 --rdzv_backend c10d train.py",
        "torch | 2 | | torchrun --nnodes=2:8 --rdzv-backend=etcd-v2 --rdzv_endpoint etcd.infra.svc:2379 --rdzv_id r1 train.py",
        "torch | 2 | | torchrun --rdzv_backend etcd --rdzv_endpoint 10.1.2.3:2379 --rdzv_id r1 train.py",
        "plain | 2 | | torchrun --nnodes 1:2 --nproc_per_node 1 --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT train.py",
        "plain | 2 | | torchrun --nnodes $NNODES --nproc_per_node 1 --rdzv_backend etcd --rdzv_endpoint etcd.infra:2379 train.py",
        "torch | 2 | procsPerNode: 2\\n | torchrun --nproc_per_node 2 train.py",
        "torch | 2 | | torchrun --nproc_per_node gpu train.py",
        "torch | 2 | | torchrun --nproc_per_node=auto train.py",
        "torch | 2 | | torchrun --master_addr=$MASTER_ADDR --node_rank=$NODE_RANK train.py",
        "torch | 2 | | torchrun --rdzv_id ${RUN_ID:-job} --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT train.py",
        "torch | 2 | | torchrun --nnodes ${NN:-2} train.py",
        "torch | 2 | | torchrun --nnodes ${1:-2} --nproc_per_node ${2:-4} train.py",
        "torch | 2 | | set -- 2; torchrun --nnodes $1 train.py",
        "torch | 2 | | export N=2; torchrun --nnodes ${N:-3} train.py",
        "torch | 2 | | export N=2; torchrun --nnodes $N train.py",
        "torch | 2 | | torchrun train.py # was: --nnodes 4",
        "torch | 2 | | echo x; # torchrun --nnodes 4 --standalone train.py $SLURM_NNODES",
        "mpi@0.6.0-2 | 2 | | ./pi # python3 pi.py",
        "torch | 2 | | export N=3; N=2; torchrun --nnodes $N train.py",
        "torch | 2 | | export N=3; for N in 2; do torchrun --nnodes $N train.py; done",
        "torch | 2 | | export N=$(nproc); torchrun --nproc_per_node $N train.py",
        "torch | 2 | | export N=3; torchrun --nnodes ${N}x train.py",
        "torch | 2 | | ID=$RANDOM; ID=run1; torchrun --rdzv_id $ID --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT train.py",
        "torch | 2 | | torchrun --rdzv_id $USER --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT train.py",
        "torch | 2 | | torchrun train.py",
        "torch | 2 | | python -m torch.distributed.run train.py",
        "torch | 2 | | python3 -m torch.distributed.launch --nnodes 2 --nproc_per_node $PET_NPROC_PER_NODE train.py",
        "torch | 1 | | torchrun --standalone train.py",
        "torch | 1 | | accelerate launch train.py",
        "torch | 1 | | python -m accelerate.commands.launch train.py",
        "torch | 1 | | python train.py",
        "torch | 1 | | accelerate launch --num_machines 1 train.py",
        "torch | 1 | | accelerate launch --machine_rank 0 --main_process_ip 10.0.0.1 train.py",
        "torch | 2 | | ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py",
        "torch | 2 | | ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num-machines 2 --num-processes $((NNODES * PET_NPROC_PER_NODE)) --machine-rank $NODE_RANK --main-process-ip $MASTER_ADDR train.py",
        "torch | 2 | | ACCELERATE_USE_CPU=true python -m accelerate.commands.launch --multi_gpu --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR --main_process_port $MASTER_PORT train.py",
        "torch | 2 | | ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_machines 2 --num_processes 8 --main_process_ip $MASTER_ADDR --main_process_port $MASTER_PORT --rdzv_backend c10d train.py",
        "torch | 2 | | accelerate launch --config_file acc.yaml train.py",
        "torch | 2 | | ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_machines $NNODES --num_processes $((999999999 * 999999999)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py",
        "torch | 2 | | accelerate launch --config-file=acc.yaml train.py",
        "torch | 2 | | export G=4; ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_machines $NNODES --num_processes $((NNODES * G)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py",
        "torch | 2 | | ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_machines $NNODES --num_processes $((NNODES * 1073741824 * 2)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py",
        "torch | 2 | | python -m accelerate.commands.launch --config_file acc.yaml train.py",
        "torch | 1 | | tune run --nnodes 1 --nproc_per_node 4 lora_finetune --config c.yaml",
        "torch | 2 | | tune run --nnodes 2 --nproc_per_node 4 --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT full_finetune_distributed --config c.yaml",
        "torch | 2 | | torchrun train.py --sruns 3",
        "torch | 2 | | poetry run torchrun train.py",
        "torch | 2 | | uv run accelerate launch --config_file acc.yaml train.py",
        "plain | 3 | | python sweep.py --trial $NODE_RANK",
        "jax   | 2 | | python train.py",
        "mpi   | 2 | | python train.py",
        "mpi   | 2 | | ./pi --iterations 10",
        "mpi@0.6.0-2 | 2 | | ./pi --iterations 10; echo python3 done",
        "mpi@0.6.0-2 | 2 | | /workspace/src/jobs/venv/bin/python train.py",
        "mpi@0.6.0-2 | 2 | | ./venv/bin/python train.py",
        "mpi@0.6.0-2 | 2 | | time ./pi; echo python3 > log; cat python3",
        "mpi@0.6.0-2 | 2 | | bash check.sh --python python3",
        "deepspeed@2.3.0-1 | 2 | | python train.py --deepspeed_config ds.json",
        "deepspeed | 2 | | python train.py --deepspeed_config ds.json",
        "deepspeed | 2 | | python train.py --local_rank $OMPI_COMM_WORLD_LOCAL_RANK",
      })
  @DisplayName(
      "the good form of each launcher (agreeing flags, gpu/auto, a config file, dashed spellings, module spellings) stays quiet and compiles")
  void goodRunIsQuiet(String runtime, int nodes, String extraCell, String run) {
    CompileResult result =
        TrainProject.create(
                dir, RunLintCases.yaml(runtime, nodes, RunLintCases.extra(extraCell), run))
            .compile();
    assertEquals(
        List.of(),
        result.diagnostics().stream()
            .filter(d -> RunLintCases.RUN_CODES.contains(d.code()))
            .toList());
    assertTrue(result.tree().isPresent(), result.diagnostics().toString());
  }

  @ParameterizedTest(name = "{0} x{1}: {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "torch | 2 | torchrun --standalone --nproc_per_node 3 train.py | 2 | torchrun train.py",
        "torch | 2 | torchrun --standalone --nnodes 1 --node_rank 0 train.py | 3 | torchrun train.py",
        "plain | 2 | torchrun --standalone --nproc_per_node 3 train.py | 3 | torchrun --nnodes $NNODES --nproc_per_node 1 --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT train.py",
      })
  @DisplayName(
      "issue #19 item 7: --standalone with other findings on one line: every hint gives the same command, with all of them fixed")
  void standaloneHintsAgree(String runtime, int nodes, String run, int findings, String fixed) {
    List<Diagnostic> found =
        RunLintCases.lint(dir.resolve("same"), RunLintCases.yaml(runtime, nodes, run));
    assertEquals(findings, found.size(), found.toString());
    for (Diagnostic d : found) {
      assertTrue(d.hint().endsWith("e.g. `run: " + fixed + "`"), d.toString());
    }
  }

  @ParameterizedTest(name = "{0} x{1}: {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "torch | 2 | srun torchrun --nnodes 2 --nproc_per_node 4 --rdzv_id $RANDOM --rdzv_backend c10d --rdzv_endpoint $head_node_ip:29500 train.py | 3 | torchrun --nnodes 2 --nproc_per_node 4 --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT train.py",
        "torch | 2 | srun --ntasks-per-node=1 -N 2 torchrun --nnodes $SLURM_NNODES --node_rank $SLURM_NODEID --nproc_per_node 4 --master_addr $head_node_ip --master_port 29500 train.py | 2 | torchrun --nnodes $NNODES --node_rank $NODE_RANK --nproc_per_node 4 --master_addr $MASTER_ADDR --master_port 29500 train.py",
        "torch | 2 | nodes=( $( scontrol show hostnames $SLURM_JOB_NODELIST ) ); nodes_array=($nodes); head_node=${nodes_array[0]}; head_node_ip=$(srun --nodes=1 --ntasks=1 -w \"$head_node\" hostname --ip-address); srun torchrun --nnodes 2 --nproc_per_node 4 --rdzv_id $RANDOM --rdzv_backend c10d --rdzv_endpoint $head_node_ip:29500 train.py | 2 | torchrun --nnodes 2 --nproc_per_node 4 --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT train.py",
        "plain | 2 | srun --nodes 2 torchrun --nnodes $SLURM_NNODES --nproc_per_node 1 --rdzv_id $RANDOM --rdzv_backend c10d --rdzv_endpoint $head_node_ip:29500 train.py | 3 | torchrun --nnodes $NNODES --nproc_per_node 1 --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT train.py",
        "torch | 2 | srun -N 2 --gres=gpu:1 python -u alone.py --epochs 3 | 2 | torchrun alone.py --epochs 3",
        "torch | 2 | srun python train.py | 2 | torchrun train.py",
        "torch | 2 | srun --nodes=2 --ntasks 2 torchrun --nnodes 1 --nproc_per_node 4 --rdzv_id $RANDOM train.py | 3 | torchrun --nproc_per_node 4 train.py",
      })
  @DisplayName(
      "issue #19 item 7: a Slurm launch line: every hint (the Slurm one too) gives the same command, without srun, its Slurm-only assignments and $SLURM_*/head-node values, and that command compiles clean")
  void slurmHintsAgree(String runtime, int nodes, String run, int findings, String fixed) {
    List<Diagnostic> found =
        RunLintCases.lint(dir.resolve("slurm"), RunLintCases.yaml(runtime, nodes, run));
    assertEquals(findings, found.size(), found.toString());
    for (Diagnostic d : found) {
      assertTrue(d.hint().endsWith("e.g. `run: " + fixed + "`"), d.toString());
      RunLintCases.assertHintAccepted(dir, runtime, nodes, "", d);
    }
  }
}
