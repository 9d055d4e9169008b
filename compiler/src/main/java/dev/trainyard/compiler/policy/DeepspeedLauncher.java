package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.runtime.Framework;
import java.util.List;
import java.util.Optional;

/**
 * The DeepSpeed launcher ({@code deepspeed train.py}) as the command of a run of several nodes on a
 * runtime that does not start ranks with mpirun (torch, jax, plain): every pod runs its own
 * launcher, which without a hostfile starts ranks on its own node only (DeepSpeed {@code
 * launcher/runner.py}: "Unable to find hostfile, will proceed with training with local resources
 * only") and with one reaches the other hosts over SSH (pdsh), which these pods do not run. Each
 * node then trains alone and the run still succeeds. The launcher is found as {@code deepspeed},
 * its other names {@code deepspeed.pt} and {@code ds} (DeepSpeed {@code setup.py} installs the
 * three scripts), a path to one of them, or {@code python -m deepspeed.launcher.runner}, as a
 * command's first word or after {@code exec}, {@code env}, {@code nohup}, {@code command}, {@code
 * time} and {@code NAME=value} words. {@code --no_ssh} (DeepSpeed starts each node's ranks without
 * SSH, from {@code --node_rank} and a hostfile listing every node) is reported too: the torch
 * runtime's pods have no such hostfile, and torchrun's group is the one the tests run.
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

  private static final List<String> NAMES = List.of("deepspeed", "deepspeed.pt", "ds");

  private static final String MODULE = "deepspeed.launcher.runner";

  /** Words that start the next word as the command: {@code exec deepspeed …}. */
  private static final List<String> PREFIXES = List.of("exec", "env", "nohup", "command", "time");

  private DeepspeedLauncher() {}

  /**
   * Reports the launcher (E409) and answers true when {@code run} starts it on a multi-node run;
   * called for runtimes without mpirun only (MPI runtimes have {@link MpiRunRule}). The torch
   * launch rules then have nothing to fix on that line.
   */
  static boolean check(RunCheck c) {
    if (c.nodes() < 2) {
      return false;
    }
    List<RunTokens.Word> words = c.run().words();
    for (int i = 0; i < words.size(); i++) {
      if (isLauncher(words.get(i)) && startsCommand(words, i)) {
        report(c, words, words.get(i), i + 1);
        return true;
      }
    }
    Optional<Launchers.Launcher> module = Launchers.module(c.run(), List.of(MODULE));
    if (module.isPresent()) {
      report(c, words, module.get().first(), words.indexOf(module.get().last()) + 1);
      return true;
    }
    return false;
  }

  private static boolean isLauncher(RunTokens.Word w) {
    return NAMES.stream().anyMatch(n -> w.text().equals(n) || w.text().endsWith("/" + n));
  }

  /**
   * Whether word {@code i} runs as its command: only prefixes, their options and assignments before
   * it.
   */
  private static boolean startsCommand(List<RunTokens.Word> words, int i) {
    for (int j = i - 1; j >= 0 && words.get(j).command() == words.get(i).command(); j--) {
      String t = words.get(j).text();
      if (!(RunTokens.isAssignment(words.get(j)) || PREFIXES.contains(t) || t.startsWith("-"))) {
        return false;
      }
    }
    return true;
  }

  /**
   * @param launcher where the launcher starts ({@code deepspeed}, or {@code python} of the module)
   * @param after the index of the first word after the launcher's name
   */
  private static void report(
      RunCheck c, List<RunTokens.Word> words, RunTokens.Word launcher, int after) {
    int script = after;
    String torchrun = "torchrun ";
    while (script < words.size()
        && words.get(script).command() == launcher.command()
        && words.get(script).text().startsWith("-")) {
      String option = words.get(script).text();
      torchrun =
          option.equals("--module")
              ? torchrun + "-m "
              : option.equals("--no_python") ? torchrun + "--no-python " : torchrun;
      script += VALUE_OPTIONS.contains(option) ? 2 : 1;
    }
    boolean hasScript = script < words.size() && words.get(script).command() == launcher.command();
    String fixed = torchrun + "train.py";
    if (hasScript) {
      RunCheck.Rewrite r =
          c.rewrite()
              .remove(launcher.start(), words.get(script).start())
              .insert(launcher.start(), torchrun);
      // torchrun sets LOCAL_RANK in the environment; a literal --local_rank would give every
      // process the same one.
      c.run().flags("--local_rank", "--local-rank").stream()
          .filter(f -> f.word().command() == launcher.command())
          .forEach(r::remove);
      fixed = r.apply();
    }
    boolean torch = c.framework() == Framework.TORCH;
    c.error(
        DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY,
        launcher,
        "`run` starts the DeepSpeed launcher on each of the "
            + c.nodes()
            + " nodes: without a hostfile it starts ranks on its own node only, and with one it"
            + " reaches the others over SSH, which these pods do not run, so each node would train"
            + " alone",
        "start the script with torchrun"
            + (torch ? "" : " on `runtime: torch` (this runtime sets no torchrun variables)")
            + ", which forms the group of all nodes (deepspeed.initialize reads its RANK, WORLD_SIZE"
            + " and MASTER_ADDR; LOCAL_RANK comes in the environment, not as --local_rank), or use"
            + " `runtime: deepspeed`, which starts every rank with mpirun, e.g. "
            + (torch ? "" : "`runtime: torch` and ")
            + c.hint(fixed));
  }
}
