package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * W452: {@code module load cuda/12.1}, {@code module purge}, {@code ml python}: HPC clusters put
 * CUDA, compilers and Python on {@code PATH} with Environment Modules or Lmod, whose {@code module}
 * (and Lmod's {@code ml}) is a shell function their login profile defines. A pod's image has
 * neither: bash prints "module: command not found" and the command fails with exit 127, so what
 * follows an {@code &&} never runs. Every hint of the line drops these commands ({@link
 * RunCheck#rewrite}); the runtime's image brings its own CUDA and Python.
 *
 * <pre>
 * run: module load cuda/12.1 && torchrun train.py   # W452 at module; hint `run: torchrun train.py`
 * </pre>
 */
final class HpcModules {
  /** The commands of Environment Modules (module) and Lmod (module, ml). */
  private static final Set<String> COMMANDS = Set.of("module", "ml");

  private HpcModules() {}

  /** W452 at the first {@code module}/{@code ml} command of {@code run}. */
  static void check(RunCheck c) {
    List<RunTokens.Word> words = c.run().words();
    for (int i = 0; i < words.size(); i++) {
      if (c.run().startsCommand(i) && COMMANDS.contains(words.get(i).text())) {
        String fixed = c.rewrite().apply().strip();
        String example =
            c.otherHint()
                .map(h -> ", " + h)
                .orElse(fixed.isEmpty() ? "" : ", e.g. " + c.hint(fixed));
        c.warning(
            DiagnosticCode.HPC_MODULES,
            words.get(i),
            "`run` calls `"
                + words.get(i).text()
                + "`, which HPC clusters define (Environment Modules or Lmod) and no image has:"
                + " bash reports \"module: command not found\" (exit 127) on every node, and a"
                + " command after `&&` never runs",
            "drop it: the image of runtime "
                + c.job().runtime().ref()
                + " brings its own CUDA and Python (`trainyard runtimes show "
                + c.job().runtime().name()
                + "`)"
                + example);
        return;
      }
    }
  }

  /**
   * The {@code module}/{@code ml} commands of {@code run}, as offsets {@code [start, end)} from
   * their first word to the next command's first word (its {@code &&} or line break included; for
   * the last command, from the end of the command before it), for a rewrite to drop.
   */
  static List<int[]> spans(RunTokens run) {
    List<RunTokens.Word> words = run.words();
    List<int[]> out = new ArrayList<>();
    for (int i = 0; i < words.size(); i++) {
      if (!run.startsCommand(i) || !COMMANDS.contains(words.get(i).text())) {
        continue;
      }
      int command = words.get(i).command();
      int j = i;
      while (j < words.size() && words.get(j).command() == command) {
        j++;
      }
      // The last command goes with the separator before it (`train && module unload x`).
      out.add(
          j < words.size()
              ? new int[] {words.get(i).start(), words.get(j).start()}
              : new int[] {i > 0 ? words.get(i - 1).end() : 0, words.get(j - 1).end()});
    }
    return out;
  }
}
