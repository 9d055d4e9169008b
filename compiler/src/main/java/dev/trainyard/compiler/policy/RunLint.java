package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.resolve.ResolvedJob;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Lints {@code run} against the compiled topology before any GPU is spent. Each rule is a launcher fact
 * from reference/running-real-scripts.md: torchrun flags win over {@code PET_*}, so a literal
 * {@code --node_rank} or {@code --master_addr} makes every node rank 0 or point at a wrong host;
 * {@code --standalone} with several nodes makes N single-node copies; {@code accelerate launch} ignores
 * {@code NODE_RANK}/{@code MASTER_ADDR}; {@code tune run} is single-process without a torchrun flag;
 * Slurm variables do not exist in a pod; MPI runtimes already start {@code run} under {@code mpirun}.
 * A value that refers to a variable ({@code $PET_NNODES}) is trusted.
 */
final class RunLint {
  private static final Pattern SLURM = Pattern.compile("\\$\\{?SLURM_|(^|[\\s;&|(])(srun|scontrol|sbatch)(\\s|$)");

  private RunLint() {}

  static List<Diagnostic> check(ResolvedJob job) {
    List<Diagnostic> out = new ArrayList<>();
    RunTokens run = RunTokens.of(job.command().run());
    SourceLocation at = job.spec().document().map().at("/run");
    int nodes = job.topology().nodes();
    if (job.runtime().framework().usesMpi()) {
      checkMpi(out, at, run);
    } else {
      checkTorchrun(out, at, run, job);
    }
    if (run.has("--standalone") && nodes > 1) {
      out.add(error(at, "`run` passes --standalone, but the job has " + nodes + " nodes: each node would train alone",
          "drop --standalone; torchrun reads PET_NNODES, PET_NODE_RANK and PET_MASTER_ADDR from the environment"));
    }
    checkAccelerate(out, at, run, nodes);
    if (run.text().contains("tune run") && !run.hasAny("--nnodes", "--nproc_per_node", "--nproc-per-node")) {
      out.add(error(at, "`run` uses `tune run` without a torchrun flag, so torchtune starts one process without torchrun",
          "add `--nnodes $PET_NNODES --nproc_per_node $PET_NPROC_PER_NODE` after `tune run` (torchtune _cli/run.py)"));
    }
    if (SLURM.matcher(run.text()).find()) {
      out.add(error(at, "`run` uses Slurm (srun, scontrol or $SLURM_*), which does not exist in a Kubernetes pod",
          "use $NNODES, $NODE_RANK, $MASTER_ADDR and $MASTER_PORT, which every node has"));
    }
    return out;
  }

  private static void checkTorchrun(List<Diagnostic> out, SourceLocation at, RunTokens run, ResolvedJob job) {
    int nodes = job.topology().nodes();
    literal(run, "--nnodes", "--nnodes")
        .filter(v -> !v.equals(Integer.toString(nodes)) && !v.equals(nodes + ":" + nodes))
        .ifPresent(v -> out.add(error(at, "`run` passes --nnodes " + v + ", but `nodes` is " + nodes,
            "drop --nnodes; torchrun reads PET_NNODES=" + nodes)));
    literal(run, "--nproc_per_node", "--nproc-per-node")
        .filter(v -> !v.equals(Integer.toString(job.topology().procsPerNode())) && !v.equals("gpu") && !v.equals("auto"))
        .ifPresent(v -> out.add(error(at, "`run` passes --nproc_per_node " + v + ", but each node gets "
            + job.topology().procsPerNode() + " processes", "drop the flag, or set `procsPerNode: " + v + "`")));
    for (String[] flag : new String[][] {{"--node_rank", "--node-rank"}, {"--master_addr", "--master-addr"},
        {"--master_port", "--master-port"}, {"--rdzv_endpoint", "--rdzv-endpoint"}}) {
      literal(run, flag[0], flag[1]).ifPresent(v -> out.add(error(at,
          "`run` passes a literal " + flag[0] + " " + v + ", which overrides what each node is told",
          "drop " + flag[0] + "; torchrun reads PET_NODE_RANK, PET_MASTER_ADDR and PET_MASTER_PORT, set per node")));
    }
  }

  private static void checkMpi(List<Diagnostic> out, SourceLocation at, RunTokens run) {
    if (run.hasWord("mpirun") || run.hasWord("mpiexec")) {
      out.add(error(at, "`run` calls mpirun, but MPI runtimes already start `run` under mpirun on the launcher",
          "write only the program, e.g. `run: python train.py`; the hostfile and -np are set for you"));
    }
    if (run.hasWord("deepspeed") || run.hasWord("torchrun")) {
      out.add(error(at, "`run` starts a launcher (deepspeed or torchrun) inside mpirun: every rank would start its own launcher",
          "write `python train.py ...`; deepspeed.init_distributed() reads the ranks from mpirun's OMPI_COMM_WORLD_* env"));
    }
  }

  private static void checkAccelerate(List<Diagnostic> out, SourceLocation at, RunTokens run, int nodes) {
    // A config file (`accelerate config`) may hold the machine settings; trust it.
    if (!run.text().contains("accelerate launch") || nodes < 2 || run.hasAny("--config_file", "--config-file")) {
      return;
    }
    if (!run.hasAny("--num_machines", "--num-machines") || !run.hasAny("--machine_rank", "--machine-rank")
        || !run.hasAny("--main_process_ip", "--main-process-ip")) {
      out.add(error(at, "`run` uses `accelerate launch` on " + nodes + " nodes without machine flags: each node would run its own job",
          "add `--num_machines $NNODES --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR --main_process_port $MASTER_PORT`"
              + " and make --num_processes the total across nodes (accelerate commands/launch.py)"));
    }
  }

  /** The literal value of a flag, or empty when absent or when it refers to a variable. */
  private static Optional<String> literal(RunTokens run, String... names) {
    for (String name : names) {
      Optional<String> v = run.value(name);
      if (v.isPresent() && !v.get().contains("$")) {
        return v;
      }
    }
    return Optional.empty();
  }

  private static Diagnostic error(SourceLocation at, String message, String hint) {
    return Diagnostic.error(DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY, at, "/run", message).withHint(hint);
  }
}
