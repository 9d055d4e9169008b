package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.runtime.Framework;
import java.util.List;

/**
 * The DeepSpeed launcher ({@code deepspeed train.py}) as the command of a run of several nodes on a
 * runtime that does not start ranks with mpirun (torch, jax, plain): every pod runs its own
 * launcher, which without a hostfile starts ranks on its own node only (DeepSpeed {@code
 * launcher/runner.py}: "Unable to find hostfile, will proceed with training with local resources
 * only") and with one reaches the other hosts over SSH (pdsh), which these pods do not run. Each
 * node then trains alone and the run still succeeds. {@code --no_ssh} (each node starts its own
 * ranks from {@code --node_rank}) is the user's own multi-node setup and is left alone.
 *
 * <p>The hint starts the script with torchrun, which the torch runtime configures from the {@code
 * PET_*} variables every pod has; {@code deepspeed.initialize} reads torchrun's {@code RANK},
 * {@code WORLD_SIZE} and {@code MASTER_ADDR} (DeepSpeed docs, "Launching DeepSpeed Training":
 * torchrun works as a launcher). The launcher's own options go; {@code --module} becomes torchrun's
 * {@code -m} and {@code --no_python} its {@code --no-python}.
 */
final class DeepspeedLauncher {
  /** The DeepSpeed launcher's options that take a value (DeepSpeed {@code runner.py}). */
  private static final List<String> VALUE_OPTIONS =
      List.of(
          "-H",
          "--hostfile",
          "-i",
          "--include",
          "-e",
          "--exclude",
          "--num_nodes",
          "--num_gpus",
          "--num_accelerators",
          "--min_elastic_nodes",
          "--max_elastic_nodes",
          "--master_port",
          "--master_addr",
          "--node_rank",
          "--launcher",
          "--launcher_args",
          "--enable_each_rank_log",
          "--autotuning",
          "--bind_core_list",
          "--ssh_port",
          "--venv_script",
          "--comment");

  private DeepspeedLauncher() {}

  static void check(RunCheck c) {
    if (c.nodes() < 2 || c.framework().usesMpi()) {
      return;
    }
    List<RunTokens.Word> words = c.run().words();
    for (int i = 0; i < words.size(); i++) {
      RunTokens.Word w = words.get(i);
      if (isLauncher(w) && c.run().startsCommand(i)) {
        report(c, words, i);
        return;
      }
    }
  }

  private static boolean isLauncher(RunTokens.Word w) {
    return w.text().equals("deepspeed") || w.text().endsWith("/deepspeed");
  }

  private static void report(RunCheck c, List<RunTokens.Word> words, int at) {
    RunTokens.Word launcher = words.get(at);
    int script = at + 1;
    String torchrun = "torchrun ";
    while (script < words.size()
        && words.get(script).command() == launcher.command()
        && words.get(script).text().startsWith("-")) {
      String option = words.get(script).text();
      if (option.equals("--no_ssh")) {
        return;
      }
      torchrun =
          option.equals("--module")
              ? torchrun + "-m "
              : option.equals("--no_python") ? torchrun + "--no-python " : torchrun;
      script += VALUE_OPTIONS.contains(option) ? 2 : 1;
    }
    boolean hasScript = script < words.size() && words.get(script).command() == launcher.command();
    String fixed =
        hasScript
            ? c.rewrite()
                .remove(launcher.start(), words.get(script).start())
                .insert(launcher.start(), torchrun)
                .apply()
            : torchrun + "train.py";
    String runtime =
        c.framework() == Framework.TORCH
            ? ""
            : " with `runtime: torch` (this runtime sets no torchrun variables)";
    c.error(
        DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY,
        launcher,
        "`run` starts the DeepSpeed launcher on each of the "
            + c.nodes()
            + " nodes: without a hostfile it starts ranks on its own node only, and with one it"
            + " reaches the others over SSH, which these pods do not run, so each node would train"
            + " alone",
        "start the script with torchrun"
            + runtime
            + ", which forms the group of all nodes (deepspeed.initialize reads its RANK, WORLD_SIZE"
            + " and MASTER_ADDR; LOCAL_RANK comes in the environment, not as --local_rank), or use"
            + " `runtime: deepspeed`, which starts every rank with mpirun, e.g. "
            + c.hint(fixed));
  }
}
