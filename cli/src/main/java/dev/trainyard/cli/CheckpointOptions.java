package dev.trainyard.cli;

import java.util.Optional;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/** {@code --fresh} and {@code --source-branch}: how a checkpointed run finds its checkpoints. */
final class CheckpointOptions {
  @Option(
      names = "--fresh",
      description =
          "a run with `checkpoint:` starts over: it resumes only from checkpoints it writes"
              + " itself (after a restart), never from earlier runs of the job; later runs resume"
              + " from its checkpoints")
  boolean fresh;

  @Option(
      names = "--source-branch",
      paramLabel = "NAME",
      description =
          "the source branch, part of the checkpoint key (job name + branch): runs of a job on"
              + " different branches keep separate checkpoints (default: none; CI passes the"
              + " branch it builds)")
  String sourceBranch;

  /**
   * The branch, empty when not given or blank (an unset CI variable).
   *
   * @throws picocli.CommandLine.ParameterException not a branch name git accepts (exit 2)
   */
  Optional<String> branch(CommandSpec spec) {
    return Optional.ofNullable(sourceBranch)
        .filter(b -> !b.isBlank())
        .map(
            b -> {
              BranchFlag.check(spec, "--source-branch", b);
              return b;
            });
  }
}
