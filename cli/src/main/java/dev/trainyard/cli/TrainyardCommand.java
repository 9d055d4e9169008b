package dev.trainyard.cli;

import dev.trainyard.compiler.Compiler;
import picocli.CommandLine.Command;

/**
 * The {@code trainyard} command: a thin CLI over the compiler, GitOps (publish) and controller
 * libraries.
 */
@Command(
    name = "trainyard",
    version = "trainyard " + Compiler.VERSION,
    description = {
      "Compile train.yaml into JobSet + Kueue manifests, preview and submit them to a",
      "GitOps repository, and follow the runs.",
      ""
    },
    mixinStandardHelpOptions = true,
    subcommands = {
      CompileCommand.class,
      ValidateCommand.class,
      PreviewCommand.class,
      SubmitCommand.class,
      StatusCommand.class,
      LogsCommand.class,
      PruneCommand.class,
      CheckSecretsCommand.class,
      PlatformCommand.class,
      RuntimesCommand.class,
      SchemaCommand.class,
      RunCommand.class,
      InitCommand.class,
      WarmupCommand.class,
      ServerCommand.class
    },
    footer = {
      "",
      "Start with: trainyard init && trainyard validate train.yaml; then trainyard",
      "submit --gitops URL and trainyard status -w"
    })
final class TrainyardCommand {
  private final Invocation invocation;

  /** The root of the call made in {@code invocation}'s working directory and environment. */
  TrainyardCommand(Invocation invocation) {
    this.invocation = invocation;
  }

  /** The working directory and environment every command of this call reads. */
  Invocation invocation() {
    return invocation;
  }
}
