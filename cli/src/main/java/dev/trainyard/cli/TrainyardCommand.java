package dev.trainyard.cli;

import dev.trainyard.compiler.Compiler;
import java.util.List;
import picocli.CommandLine;
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
    footer = {
      "",
      "Start with: trainyard init && trainyard validate train.yaml; then trainyard",
      "submit --gitops URL and trainyard status -w"
    })
final class TrainyardCommand {
  /**
   * The subcommands, in the order {@code --help} lists them. They are not in the {@code @Command}
   * annotation: picocli builds the model of every subcommand named there (each option of each
   * command, by reflection) before it parses anything, ~90 ms of every call's 0.35–0.55 s on JDK 25
   * with the start-up archive (issue #24). {@link #commandLine} adds the one a call names.
   */
  static final List<Class<?>> SUBCOMMANDS =
      List.of(
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
          ServerCommand.class);

  private final Invocation invocation;

  /**
   * The command line for {@code args}: when the first argument names a subcommand, the root with
   * that subcommand alone (what a call of it parses and runs, and its {@code --help}); otherwise
   * (none, an option such as {@code --help}, a mistyped name that picocli answers with the names it
   * knows) the root with all of them.
   */
  static CommandLine commandLine(Invocation invocation, String... args) {
    CommandLine cli = new CommandLine(new TrainyardCommand(invocation));
    for (Class<?> sub : subcommandsFor(args)) {
      cli.addSubcommand(sub);
    }
    giveVersion(cli, cli.getCommandSpec().version());
    return cli;
  }

  /**
   * Gives every subcommand below {@code parent} the root's version: their {@code -V, --version}
   * (from {@code mixinStandardHelpOptions}) printed nothing, as picocli does not pass a version
   * down.
   */
  private static void giveVersion(CommandLine parent, String[] version) {
    for (CommandLine sub : parent.getSubcommands().values()) {
      sub.getCommandSpec().version(version);
      giveVersion(sub, version);
    }
  }

  /** The subcommands {@link #commandLine} adds for {@code args}. */
  static List<Class<?>> subcommandsFor(String... args) {
    if (args.length > 0 && !args[0].startsWith("-")) {
      for (Class<?> sub : SUBCOMMANDS) {
        // A name only: an alias (none today) would find no match and get all, which parses it too.
        if (sub.getAnnotation(Command.class).name().equals(args[0])) {
          return List.of(sub);
        }
      }
    }
    return SUBCOMMANDS;
  }

  /** The root of the call made in {@code invocation}'s working directory and environment. */
  TrainyardCommand(Invocation invocation) {
    this.invocation = invocation;
  }

  /** The working directory and environment every command of this call reads. */
  Invocation invocation() {
    return invocation;
  }
}
