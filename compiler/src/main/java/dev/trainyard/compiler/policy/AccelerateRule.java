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
 * count as the total. A config file ({@code accelerate config}) may hold all of these: it is
 * trusted.
 */
final class AccelerateRule {
  private static final String[][] MACHINE_FLAGS = {
    {"--num_machines", "--num-machines"},
    {"--num_processes", "--num-processes"},
    {"--machine_rank", "--machine-rank"},
    {"--main_process_ip", "--main-process-ip"},
    {"--main_process_port", "--main-process-port"}
  };

  private AccelerateRule() {}

  static void check(RunCheck c) {
    Optional<Launchers.Launcher> launch = Launchers.accelerate(c.run());
    if (launch.isEmpty() || c.run().hasAny("--config_file", "--config-file")) {
      return;
    }
    boolean wrong = values(c);
    List<String> missing = missing(c);
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
              + ": each node would run its own job",
          "give the machine flags; --num_processes is the total across nodes (accelerate commands/launch.py), e.g. "
              + RunCheck.runHint(fixed(c)));
    }
  }

  /** Literal values that contradict the topology; true when one was reported. */
  private static boolean values(RunCheck c) {
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
    return c.out().size() > before;
  }

  private static void report(RunCheck c, RunTokens.Flag f, String what) {
    c.error(
        DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY,
        f.word(),
        "`run` passes " + what,
        "take the values from the environment every node has, e.g. " + RunCheck.runHint(fixed(c)));
  }

  private static List<String> missing(RunCheck c) {
    List<String> missing = new ArrayList<>();
    boolean c10d =
        c.run()
            .flag("--rdzv_backend", "--rdzv-backend")
            .filter(f -> f.value().text().equals("c10d"))
            .isPresent();
    for (int i = 0; i < 4; i++) {
      if (!c.run().hasAny(MACHINE_FLAGS[i]) && !(i == 2 && c10d)) {
        missing.add(MACHINE_FLAGS[i][0]);
      }
    }
    return missing;
  }

  /**
   * The accelerate launcher (either spelling) with every machine flag taken from the pod's
   * environment.
   */
  static String fixed(RunCheck c) {
    RunCheck.Rewrite edit = c.rewrite();
    for (String[] names : MACHINE_FLAGS) {
      c.run().flag(names).ifPresent(edit::remove);
    }
    return edit.insert(
            Launchers.accelerate(c.run()).orElseThrow().last().end(),
            " --num_machines $NNODES --num_processes "
                + c.totalValue()
                + " --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR --main_process_port $MASTER_PORT")
        .apply();
  }
}
