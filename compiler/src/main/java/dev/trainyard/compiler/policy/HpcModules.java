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
   * The {@code module}/{@code ml} commands of {@code run} (after any {@code NAME=value} words), as
   * {@link RunTokens#dropSpan} offsets for a rewrite to drop.
   */
  static List<int[]> spans(RunTokens run) {
    List<List<RunTokens.Word>> commands = run.commands();
    List<int[]> out = new ArrayList<>();
    for (int k = 0; k < commands.size(); k++) {
      boolean module =
          commands.get(k).stream()
              .filter(w -> !RunTokens.isAssignment(w))
              .findFirst()
              .filter(w -> COMMANDS.contains(w.text()))
              .isPresent();
      if (module) {
        out.add(run.dropSpan(commands, k));
      }
    }
    return out;
  }
}
