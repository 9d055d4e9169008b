package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code accelerate launch} reads neither {@code NODE_RANK} nor {@code MASTER_ADDR}: without {@code
 * --num_machines}, {@code --main_process_ip} and {@code --machine_rank} (or the c10d form, {@code
 * --rdzv_backend c10d}, where the rendezvous assigns ranks) each node runs its own job; and {@code
 * --num_processes} is the total across machines, each machine starting {@code num_processes /
 * num_machines} (huggingface/accelerate {@code commands/launch.py}, {@code
 * examples/slurm/submit_multinode.sh}); {@code python -m accelerate.commands.launch} is the same
 * launcher ({@link Launchers}). Without {@code --num_processes} accelerate takes this node's GPU
 * count as the total.
 *
 * <p>The machine flags alone are not enough (accelerate 1.15 {@code commands/launch.py}): {@code
 * launch_command} starts torchrun ({@code multi_gpu_launcher}, which passes {@code --nnodes},
 * {@code --node_rank} and the rendezvous) only for {@code --multi_gpu}, {@code --use_deepspeed},
 * {@code --use_fsdp} or {@code --use_megatron_lm}; otherwise {@code simple_launcher} starts one
 * plain process per node, whose {@code PartialState} finds no world and reports {@code
 * DistributedType.NO}. {@code _validate_launch_command} turns {@code --multi_gpu} on by itself only
 * when this node sees more than one GPU. And on a node without GPUs the processes torchrun starts
 * still pick no backend unless they are told to run on the CPU ({@code state.py} {@code
 * _prepare_backend}: {@code MULTI_CPU} with gloo only when {@code cpu}, which {@code
 * AcceleratorState} takes from {@code ACCELERATE_USE_CPU}; {@code --cpu} itself selects the simple
 * launcher). So on 0- or 1-GPU nodes a command without a distributed mode trains alone on every
 * node and "succeeds".
 *
 * <p>A config file ({@code --config_file F}, YAML written by {@code accelerate config}) supplies
 * every value the command line does not give ({@code _validate_launch_command}: a config value is
 * used when the flag is unset, and its {@code distributed_type} picks the mode when no mode flag is
 * given); it is read from the repository next to train.yaml ({@link AccelerateConfig}) and checked
 * like the flags. A config file that cannot be read is trusted.
 */
final class AccelerateRule {
  private static final String[][] MACHINE_FLAGS = {
    {"--num_machines", "--num-machines"},
    {"--num_processes", "--num-processes"},
    {"--machine_rank", "--machine-rank"},
    {"--main_process_ip", "--main-process-ip"},
    {"--main_process_port", "--main-process-port"}
  };

  /** The modes whose launchers form a multi-node group (launch_command). */
  static final List<String> MODES =
      List.of("--multi_gpu", "--use_deepspeed", "--use_fsdp", "--use_megatron_lm");

  /**
   * Set in the pod's or the launcher's env, it makes accelerate's processes use gloo on a node
   * without GPUs.
   */
  static final String USE_CPU = "ACCELERATE_USE_CPU";

  private AccelerateRule() {}

  static void check(RunCheck c) {
    Optional<Launchers.Launcher> launch = Launchers.accelerate(c.run());
    if (launch.isEmpty()) {
      return;
    }
    Optional<RunTokens.Flag> file = c.run().flag("--config_file", "--config-file");
    Optional<AccelerateConfig> config =
        file.flatMap(f -> AccelerateConfig.read(c.scripts(), f.value().text()));
    if (file.isPresent() && config.isEmpty()) {
      return;
    }
    Settings s = new Settings(c, config, file);
    boolean wrong = values(c, s);
    List<String> missing = missing(c, s);
    if (!wrong && !missing.isEmpty() && c.nodes() > 1) {
      c.error(
          DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY,
          launch.get().first(),
          "`run` uses `"
              + launch.get().text(c.run())
              + "` on "
              + c.nodes()
              + " nodes without "
              + String.join(", ", missing)
              + s.fromConfig()
              + ": each node would run its own job",
          "give the machine flags; --num_processes is the total across nodes (accelerate commands/launch.py), e.g. "
              + c.hint(fixed(c)));
    } else if (!wrong && c.nodes() > 1) {
      mode(c, s, launch.get());
    }
  }

  /**
   * The distributed mode and, on nodes without GPUs, the CPU switch; checked once the machine
   * values are right.
   */
  private static void mode(RunCheck c, Settings s, Launchers.Launcher launch) {
    int gpus = c.job().resources().gpus();
    if (!s.hasMode() && gpus <= 1) {
      c.error(
          DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY,
          launch.first(),
          "`run` uses `"
              + launch.text(c.run())
              + "` without --multi_gpu"
              + s.fromConfig()
              + " on nodes with "
              + gpus
              + " GPU(s): accelerate then starts one plain process per node (simple_launcher), which trains alone"
              + " (DistributedType.NO)",
          "add --multi_gpu, which starts torchrun across the machines (accelerate commands/launch.py launch_command), e.g. "
              + c.hint(fixed(c)));
    } else if (gpus == 0 && !s.usesCpu()) {
      c.error(
          DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY,
          launch.first(),
          "`run` uses `"
              + launch.text(c.run())
              + "` on nodes without GPUs, and nothing sets "
              + USE_CPU
              + ": the processes"
              + " accelerate starts pick no backend and each trains alone (accelerate state.py _prepare_backend)",
          "set "
              + USE_CPU
              + "=true for the launcher, so they join with gloo, e.g. "
              + c.hint(fixed(c)));
    }
  }

  /** Literal values that contradict the topology; true when one was reported. */
  private static boolean values(RunCheck c, Settings s) {
    int before = c.out().size();
    int nodes = c.nodes();
    int total = c.job().topology().worldSize();
    c.run()
        .flag(MACHINE_FLAGS[0])
        .filter(f -> Arithmetic.value(c, f.value().text()).filter(v -> v != nodes).isPresent())
        .ifPresent(
            f -> report(c, f, "--num_machines " + f.value().text() + ", but `nodes` is " + nodes));
    c.run()
        .flag(MACHINE_FLAGS[1])
        .filter(f -> Arithmetic.value(c, f.value().text()).filter(v -> v != total).isPresent())
        .ifPresent(
            f ->
                report(
                    c,
                    f,
                    "--num_processes "
                        + f.value().text()
                        + ", but the job runs "
                        + total
                        + " processes in total ("
                        + nodes
                        + " nodes × "
                        + c.procsPerNode()
                        + "); accelerate counts --num_processes across all machines"));
    if (nodes > 1) {
      TorchrunFlags.literal(c, MACHINE_FLAGS[2])
          .ifPresent(
              f ->
                  report(
                      c,
                      f,
                      "a literal --machine_rank "
                          + f.value().text()
                          + ": every node would claim that rank"));
      TorchrunFlags.literal(c, MACHINE_FLAGS[3])
          .ifPresent(
              f ->
                  report(
                      c,
                      f,
                      "a literal --main_process_ip "
                          + f.value().text()
                          + ", which is not node 0 of this run"));
    }
    s.config().ifPresent(config -> configValues(c, s, config, nodes, total));
    return c.out().size() > before;
  }

  /** The config file's values that the command line does not override, checked like the flags. */
  private static void configValues(
      RunCheck c, Settings s, AccelerateConfig config, int nodes, int total) {
    RunTokens.Flag at = s.file().orElseThrow();
    String where = "--config_file " + at.value().text() + ", which sets ";
    if (!c.run().hasAny(MACHINE_FLAGS[0])) {
      config
          .integer("num_machines")
          .filter(v -> v != nodes)
          .ifPresent(
              v -> report(c, at, where + "num_machines: " + v + ", but `nodes` is " + nodes));
    }
    if (!c.run().hasAny(MACHINE_FLAGS[1])) {
      config
          .integer("num_processes")
          .filter(v -> v > 0 && v != total)
          .ifPresent(
              v ->
                  report(
                      c,
                      at,
                      where
                          + "num_processes: "
                          + v
                          + ", but the job runs "
                          + total
                          + " processes in total; accelerate counts num_processes across all machines"));
    }
    if (nodes > 1 && !c.run().hasAny(MACHINE_FLAGS[2]) && !s.c10d()) {
      config
          .text("machine_rank")
          .ifPresent(
              v ->
                  report(
                      c, at, where + "machine_rank: " + v + ": every node would claim that rank"));
    }
    if (nodes > 1 && !c.run().hasAny(MACHINE_FLAGS[3])) {
      config
          .text("main_process_ip")
          .ifPresent(
              v ->
                  report(
                      c,
                      at,
                      where + "main_process_ip: " + v + ", which is not node 0 of this run"));
    }
  }

  private static void report(RunCheck c, RunTokens.Flag f, String what) {
    c.error(
        DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY,
        f.word(),
        "`run` passes " + what,
        "take the values from the environment every node has, e.g. " + c.hint(fixed(c)));
  }

  private static List<String> missing(RunCheck c, Settings s) {
    List<String> missing = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      String key = MACHINE_FLAGS[i][0].substring(2);
      boolean given =
          c.run().hasAny(MACHINE_FLAGS[i]) || s.config().filter(cf -> cf.has(key)).isPresent();
      if (!given && !(i == 2 && s.c10d())) {
        missing.add(MACHINE_FLAGS[i][0]);
      }
    }
    return missing;
  }

  /**
   * The accelerate launcher (either spelling) with every machine flag taken from the pod's
   * environment, {@code --multi_gpu} unless a mode is given (on the command line or in the config
   * file), and {@code ACCELERATE_USE_CPU=true} in front of it on nodes without GPUs unless
   * something sets it.
   */
  static String fixed(RunCheck c) {
    Launchers.Launcher launch = Launchers.accelerate(c.run()).orElseThrow();
    Optional<RunTokens.Flag> file = c.run().flag("--config_file", "--config-file");
    Settings s =
        new Settings(
            c, file.flatMap(f -> AccelerateConfig.read(c.scripts(), f.value().text())), file);
    RunCheck.Rewrite edit = c.rewrite();
    for (String[] names : MACHINE_FLAGS) {
      c.run().flags(names).forEach(edit::remove);
    }
    if (c.nodes() > 1 && c.job().resources().gpus() == 0 && !s.usesCpu()) {
      edit.insert(launch.first().start(), USE_CPU + "=true ");
    }
    return edit.insert(
            launch.last().end(),
            (c.nodes() > 1 && !s.hasMode() ? " --multi_gpu" : "")
                + " --num_machines $NNODES --num_processes "
                + c.totalValue()
                + " --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR --main_process_port $MASTER_PORT")
        .apply();
  }

  /** What the command line and its config file say, together. */
  private record Settings(
      RunCheck c, Optional<AccelerateConfig> config, Optional<RunTokens.Flag> file) {
    /** A mode flag, or a config {@code distributed_type} whose launcher spans machines. */
    boolean hasMode() {
      return MODES.stream().anyMatch(m -> c.run().hasAny(m, m.replace('_', '-')))
          || config.filter(AccelerateConfig::spansMachines).isPresent();
    }

    /**
     * {@code --rdzv_backend c10d} on the command line or in the config file: the rendezvous assigns
     * ranks.
     */
    boolean c10d() {
      return c.run()
          .flag("--rdzv_backend", "--rdzv-backend")
          .map(f -> f.value().text().equals("c10d"))
          .orElseGet(
              () ->
                  config.flatMap(cf -> cf.text("rdzv_backend")).filter("c10d"::equals).isPresent());
    }

    /**
     * Whether the launcher's processes see {@code ACCELERATE_USE_CPU}: set by a pod or by {@code
     * run}, before or in front of it.
     */
    boolean usesCpu() {
      return c.run().code().contains(USE_CPU + "=")
          || PodVariables.unset(c, USE_CPU, Launchers.accelerate(c.run()).orElseThrow().first())
              .isEmpty();
    }

    /** " (nor does its config file F)" when a config file was read, else "". */
    String fromConfig() {
      return file.filter(f -> config.isPresent())
          .map(f -> " (nor does --config_file " + f.value().text() + ")")
          .orElse("");
    }
  }
}
