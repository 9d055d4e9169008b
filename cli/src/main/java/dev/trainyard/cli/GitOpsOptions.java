package dev.trainyard.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.gitops.GitOpsException;
import dev.trainyard.gitops.GitOpsLocation;
import dev.trainyard.gitops.PublishProgress;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Options shared by {@code submit} and {@code prune}: which GitOps repository and branch, dry run,
 * output; and what both print about them (the repository and branch, the push, a failure).
 */
final class GitOpsOptions {
  /** Environment variable read when {@code --gitops} is not given. */
  static final String GITOPS_ENV = "TRAINYARD_GITOPS";

  @Spec(Spec.Target.MIXEE)
  CommandSpec mixee;

  @Option(
      names = "--gitops",
      paramLabel = "URL|PATH",
      description =
          "the GitOps repository: https://, http://, file:// URL or a local path (default: $"
              + GITOPS_ENV
              + ")")
  String gitops;

  @Option(
      names = "--branch",
      paramLabel = "NAME",
      defaultValue = "main",
      description = "branch of the GitOps repository (default: ${DEFAULT-VALUE})")
  String branch;

  @Option(names = "--dry-run", description = "plan and build the commit, push nothing")
  boolean dryRun;

  @Mixin OutputOptions output;

  /**
   * The repository, from the flag or the environment; a usage error (exit 2) when neither names a
   * usable one.
   */
  GitOpsLocation location(CommandSpec spec, Map<String, String> env) {
    String value = gitops != null ? gitops : env.get(GITOPS_ENV);
    if (value == null) {
      throw new ParameterException(
          spec.commandLine(), "Missing --gitops URL|PATH (or set " + GITOPS_ENV + ")");
    }
    BranchFlag.check(spec, "--branch", branch);
    GitOpsLocation location;
    try {
      location = GitOpsLocation.parse(value, Invocation.of(spec).workingDirectory());
    } catch (IllegalArgumentException e) {
      String message =
          gitops != null ? e.getMessage() : e.getMessage().replace("--gitops", GITOPS_ENV);
      throw new ParameterException(spec.commandLine(), message);
    }
    if (!location.url().equals(location.shown())) {
      spec.commandLine()
          .getErr()
          .println(
              "trainyard: warning: the GitOps URL carries credentials; they are used but never printed or stored."
                  + " Prefer "
                  + "TRAINYARD_GITOPS_TOKEN or a git credential helper (a URL ends up in shell history and CI logs)");
    }
    return location;
  }

  /**
   * A failed submit or prune: usage (exit 2) or environment (exit 3), as text or JSON per {@code
   * --output}.
   */
  int failure(GitOpsException e) {
    return Reporting.failure(
        mixee, output.format, e.getMessage(), e.hint(), e.isUsage() ? 2 : Main.EXIT_ENVIRONMENT);
  }

  /**
   * Progress for a publish that prints each of its notes (a retry after a reset, a timeout or a
   * 5xx; a lost answer to a push that landed) on stderr as it happens: {@code trainyard: note:
   * ...}.
   */
  PublishProgress progress() {
    PrintWriter err = mixee.commandLine().getErr();
    return new PublishProgress(
        line -> {
          err.println("trainyard: note: " + line);
          err.flush();
        });
  }

  /** "URL (branch)", as the text output names the repository. */
  String where(GitOpsLocation location) {
    return location.shown() + " (" + branch + ")";
  }

  /**
   * The JSON fields {@code gitops}, {@code branch}, {@code dryRun}, {@code pushed} and {@code
   * commit} (null when none), in this order.
   */
  void putPush(
      ObjectNode root,
      GitOpsLocation location,
      boolean dryRun,
      boolean pushed,
      Optional<String> commit) {
    root.put("gitops", location.shown())
        .put("branch", branch)
        .put("dryRun", dryRun)
        .put("pushed", pushed);
    commit.ifPresentOrElse(c -> root.put("commit", c), () -> root.putNull("commit"));
  }

  /** Prints {@code root} on stdout; exit 1 when the result has errors, else 0. */
  int printJson(ObjectNode root, boolean errors) {
    mixee.commandLine().getOut().println(root.toPrettyString());
    mixee.commandLine().getOut().flush();
    return errors ? 1 : 0;
  }

  /**
   * Where the GitOps mirror is cached: {@code $TRAINYARD_CACHE} (a relative path is read in the
   * call's working directory), else {@code ~/.cache/trainyard}; the system property {@code
   * trainyard.cache} overrides both (tests and embedders).
   */
  static Path cacheRoot(Invocation invocation) {
    String root =
        System.getProperty("trainyard.cache", invocation.environment().get("TRAINYARD_CACHE"));
    return root != null && !root.isBlank()
        ? invocation.resolve(Path.of(root))
        : Path.of(System.getProperty("user.home"), ".cache", "trainyard");
  }
}
