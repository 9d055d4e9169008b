package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.resolve.ResolvedJob;
import dev.trainyard.compiler.runtime.Framework;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Lints {@code run} against the compiled topology before any GPU is spent; each diagnostic points
 * at the offending word of {@code run} and its hint gives a command the lint accepts. Each rule is
 * a launcher fact from reference/running-real-scripts.md: torchrun flags win over {@code PET_*}
 * ({@link TorchrunFlags}); {@code tune run} forces {@code --standalone} without {@code
 * --rdzv_endpoint} ({@link TuneRunRule}); {@code accelerate launch} reads no rank env and counts
 * processes in total ({@link AccelerateRule}); launcher flags must hold the same value on every
 * node and name variables the pods have ({@link LaunchVariables}); {@code python script.py} on
 * several nodes trains alone ({@link LauncherlessRun}); MPI runtimes already start {@code run}
 * under {@code mpirun} ({@link MpiRunRule}); Slurm does not exist in a pod; an image that has no
 * Python cannot start {@code python} ({@link ImagePython}); a requirement setup installs replaces
 * the image's package ({@link ReplacedPackages}); the repository declares a Python the image lacks
 * ({@link PythonVersionRule}); a checkpointed run that would not resume or writes checkpoints where
 * they do not survive ({@link CheckpointLint}).
 */
final class RunLint {
  private static final Pattern SLURM =
      Pattern.compile("\\$\\{?SLURM_|(?<=^|[\\s;&|(])(srun|scontrol|sbatch)(?=\\s|$)");

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
    if (job.runtime().framework().usesMpi()) {
      MpiRunRule.check(c);
    } else {
      TorchrunFlags.check(c);
      LaunchVariables.check(c);
      LauncherlessRun.check(c);
      standalone(c);
      AccelerateRule.check(c);
      TuneRunRule.check(c);
      MaxTextRule.check(c);
    }
    slurm(c);
    ImagePython.check(c);
    ReplacedPackages.check(c);
    PythonVersionRule.check(c);
    CheckpointLint.check(c);
    return out;
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
                        + RunCheck.runHint(TorchrunFlags.fixed(c))));
  }

  private static void slurm(RunCheck c) {
    Matcher m = SLURM.matcher(c.run().code());
    if (m.find()) {
      // The match is the command word itself (the lookarounds take no characters) or the $SLURM_
      // prefix.
      c.out()
          .add(
              Diagnostic.error(
                      DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY,
                      c.source().at(m.start(), m.end() - m.start()),
                      RunCheck.POINTER,
                      "`run` uses Slurm (srun, scontrol or $SLURM_*), which does not exist in a Kubernetes pod")
                  .withHint(
                      "use $NNODES, $NODE_RANK, $MASTER_ADDR and $MASTER_PORT, which every node has"));
    }
  }
}
