package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.resolve.ResolvedJob;
import dev.trainyard.compiler.runtime.Framework;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Lints {@code run} against the compiled topology before any GPU is spent; each diagnostic points
 * at the offending word of {@code run} and its hint gives a command the lint accepts. Each rule is
 * a launcher fact from reference/running-real-scripts.md: torchrun flags win over {@code PET_*}
 * ({@link TorchrunFlags}); {@code tune run} forces {@code --standalone} without {@code
 * --rdzv_endpoint} ({@link TuneRunRule}); {@code accelerate launch} reads no rank env and counts
 * processes in total ({@link AccelerateRule}); launcher flags must hold the same value on every
 * node and name variables the pods have ({@link LaunchVariables}); {@code python script.py} on
 * several nodes trains alone ({@link LauncherlessRun}); MPI runtimes already start {@code run}
 * under {@code mpirun} ({@link MpiRunRule}); Slurm does not exist in a pod ({@link SlurmRule}); an
 * image that has no Python cannot start {@code python} ({@link ImagePython}); a requirement setup
 * installs replaces the image's package ({@link ReplacedPackages}); the repository declares a
 * Python the image lacks ({@link PythonVersionRule}); a checkpointed run that would not resume or
 * writes checkpoints where they do not survive ({@link CheckpointLint}); bash would stop at a
 * syntax error ({@link ShellSyntax}); {@code module load} exists only on HPC clusters ({@link
 * HpcModules}); a script {@code run} starts is linted at its own lines, or is missing ({@link
 * WrapperScript}).
 */
final class RunLint {
  private RunLint() {}

  static List<Diagnostic> check(ResolvedJob job, RunScripts scripts) {
    List<Diagnostic> out = new ArrayList<>();
    String text = job.command().run();
    RunCheck c =
        new RunCheck(
            job,
            RunTokens.of(text),
            new RunSource(job.spec().document(), RunCheck.POINTER, text),
            scripts,
            out);
    launchRules(c);
    WrapperScript.find(c.run())
        .ifPresent(
            w ->
                scripts
                    .read(w.path())
                    .ifPresentOrElse(script -> wrapper(c, w, script), () -> w.missing(c)));
    ShellSyntax.checkSetup(c);
    ArgumentSize.check(c);
    ImagePython.check(c);
    ReplacedPackages.check(c);
    PythonVersionRule.check(c);
    CheckpointLint.check(c);
    return out;
  }

  /** The rules about how {@code run} (or a script it starts) launches the program. */
  private static void launchRules(RunCheck c) {
    ShellSyntax.check(c);
    if (c.framework().usesMpi()) {
      MpiRunRule.check(c);
    } else if (!DeepspeedLauncher.check(c)) {
      // With the DeepSpeed launcher reported, its hint replaces the launch line: the torch rules
      // would fix flags (its --node_rank, say) of a line that goes.
      TorchrunFlags.check(c);
      LaunchVariables.check(c);
      LauncherlessRun.check(c);
      standalone(c);
      AccelerateRule.check(c);
      TuneRunRule.check(c);
      MaxTextRule.check(c);
    }
    SlurmRule.check(c);
    HpcModules.check(c);
  }

  /**
   * Lints the script {@code run} starts ({@link WrapperScript}) with the launch rules: each finding
   * at its line and column in the script (next to train.yaml), worded with the script's name.
   */
  private static void wrapper(RunCheck c, WrapperScript w, String text) {
    List<Diagnostic> found = new ArrayList<>();
    String file = Path.of(c.source().start().file()).resolveSibling(w.path()).toString();
    launchRules(
        new RunCheck(
            c.job(), RunTokens.of(text), RunSource.script(file, text), c.scripts(), found, w));
    for (Diagnostic d : found) {
      String message =
          d.message().startsWith("`run` ")
              ? "`" + w.path() + "` (which `run` starts) " + d.message().substring(6)
              : w.path() + ": " + d.message();
      c.out().add(new Diagnostic(d.severity(), d.code(), message, d.location(), "", d.hint()));
    }
  }

  private static void standalone(RunCheck c) {
    c.run()
        .word("--standalone")
        .filter(w -> c.nodes() > 1)
        .ifPresent(
            w ->
                c.error(
                    DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY,
                    w,
                    "`run` passes --standalone, but the job has "
                        + c.nodes()
                        + " nodes: each node would train alone",
                    (c.framework() == Framework.TORCH
                            ? "drop --standalone; torchrun reads PET_NNODES, PET_NODE_RANK and PET_MASTER_ADDR from the environment"
                            : "drop --standalone and pass the group on the command line, from the variables every node has")
                        + ", e.g. "
                        + c.hint(TorchrunFlags.fixed(c))));
  }
}
