package dev.trainyard.cli;

import java.util.Optional;
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

  /** The branch, empty when not given or blank (an unset CI variable). */
  Optional<String> branch() {
    return Optional.ofNullable(sourceBranch).filter(b -> !b.isBlank());
  }
}
