package dev.trainyard.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticPrinter;
import dev.trainyard.gitops.ChangedJobs;
import dev.trainyard.gitops.GitOpsException;
import dev.trainyard.gitops.GitOpsLocation;
import dev.trainyard.gitops.PublishProgress;
import dev.trainyard.gitops.SubmitRequest;
import dev.trainyard.gitops.SubmitResult;
import dev.trainyard.gitops.SubmittedRun;
import dev.trainyard.gitops.Submitter;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code trainyard submit}: compile at the source commit and commit the new runs to the GitOps
 * repository.
 */
@Command(
    name = "submit",
    header = "Compile the changed train.yaml files and commit their runs to GitOps.",
    description = {
      "Compile each train.yaml at the source commit and commit the new runs to the",
      "GitOps repository in one commit, pushed with retry when another submit wins the",
      "race. Run it inside the source repo (CI on the default branch).",
      "platform.yaml and runtimes/ come from the GitOps repository's root unless",
      "--platform/--runtimes are given. Re-submitting a commit changes nothing; --rerun",
      "starts a new run of it. Nothing is written when a compile fails.",
      "Credentials: $TRAINYARD_GITOPS_TOKEN (user $TRAINYARD_GITOPS_USERNAME, default",
      "x-access-token), else git's credential helpers and GIT_ASKPASS; never a flag.",
      "A reset, a 5xx or no answer within $TRAINYARD_GITOPS_TIMEOUT s (default 60) is",
      "retried 3 times; a push whose answer was lost is not sent again when the",
      "branch already holds it."
    },
    mixinStandardHelpOptions = true,
    footer = {
      "",
      "Exit codes: 0 ok (also when nothing changed), 1 problems in the input, 2 usage,",
      "3 environment (GitOps repo unreachable, refused push), 4 internal error;",
      "130/143 interrupted (SIGINT/SIGTERM): one line says whether the commit landed."
    })
final class SubmitCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin GitOpsOptions gitops;

  @Parameters(
      paramLabel = "TRAIN_YAML",
      arity = "0..*",
      description =
          "train.yaml files (default: train.yaml, or with --changed-since the changed jobs)")
  List<Path> trainYamls;

  @Option(
      names = "--changed-since",
      paramLabel = "REF",
      description =
          "submit every job whose folder (a train.yaml's folder, code included) changed since"
              + " REF, as `preview` selects them; in CI: the branch tip before the push (all"
              + " zeros: every job). A full SHA the checkout lacks (after a force push, or in a"
              + " shallow clone) submits the jobs HEAD's own commit changed, with warning W810; a"
              + " branch or short SHA it lacks is a usage error.")
  String changedSince;

  @Option(
      names = "--platform",
      paramLabel = "FILE",
      description = "platform.yaml instead of the GitOps repository's")
  Path platform;

  @Option(
      names = "--runtimes",
      paramLabel = "DIR",
      description = "runtimes folder instead of the GitOps repository's runtimes/")
  Path runtimes;

  @Option(
      names = "--source-repo",
      paramLabel = "URL",
      description = "clone URL of the source repo (default: its git remote)")
  String sourceRepo;

  @Option(
      names = "--source-commit",
      paramLabel = "SHA",
      description = "full commit SHA pods clone (default: HEAD)")
  String sourceCommit;

  @Mixin TargetOptions target;

  @Mixin CheckpointOptions checkpoints;

  @Option(
      names = "--rerun",
      description = "start a new run (a new run id) of a commit that already ran")
  boolean rerun;

  /** W810 from --changed-since, shown before the compile's own diagnostics. */
  private List<Diagnostic> warnings = List.of();

  @Override
  public Integer call() {
    Invocation invocation = Invocation.of(spec);
    Map<String, String> env = invocation.environment();
    Optional<String> sourceBranch = checkpoints.branch(spec);
    GitOpsLocation location = gitops.location(spec, env);
    boolean named = trainYamls != null && !trainYamls.isEmpty();
    if (named && changedSince != null) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "give TRAIN_YAML files or --changed-since, not both");
    }
    ChangedJobs.Selection selection;
    try {
      selection =
          changedSince != null
              ? ChangedJobs.since(invocation.workingDirectory(), changedSince)
              : new ChangedJobs.Selection(
                  named ? trainYamls : List.of(Path.of("train.yaml")), List.of());
    } catch (GitOpsException e) {
      return gitops.failure(e);
    }
    warnings = selection.warnings();
    List<Path> files = selection.trainYamls();
    if (files.isEmpty()) {
      return nothingChanged(location);
    }
    SubmitRequest request =
        new SubmitRequest(
            files,
            location,
            gitops.branch,
            Optional.ofNullable(platform),
            Optional.ofNullable(runtimes),
            Optional.ofNullable(sourceRepo),
            Optional.ofNullable(sourceCommit),
            target.cluster(),
            target.namespace(),
            rerun,
            gitops.dryRun,
            new SubmitRequest.Checkpoints(sourceBranch, checkpoints.fresh),
            invocation.workingDirectory());
    PublishProgress progress = gitops.progress();
    CallStop.Watch watch = invocation.stop().watch(progress, spec.commandLine().getErr());
    try {
      SubmitResult result =
          new Submitter(GitOpsOptions.cacheRoot(invocation), env, Clock.systemUTC(), progress)
              .submit(request);
      return gitops.output.json() ? json(result, location) : text(result, location);
    } catch (GitOpsException e) {
      return gitops.failure(e);
    } finally {
      watch.close();
    }
  }

  private int nothingChanged(GitOpsLocation location) {
    String message = "nothing to submit: no job folder changed since " + changedSince;
    if (gitops.output.json()) {
      ObjectNode root = DiagnosticPrinter.toJson(warnings);
      root.putArray("runs");
      gitops.putPush(root, location, gitops.dryRun, false, Optional.empty());
      root.put("attempts", 0).put("note", message);
      return gitops.printJson(root, false);
    }
    DiagnosticPrinter.printText(warnings, spec.commandLine().getErr());
    spec.commandLine().getOut().println(message);
    spec.commandLine().getOut().flush();
    return 0;
  }

  private int text(SubmitResult result, GitOpsLocation location) {
    PrintWriter out = spec.commandLine().getOut();
    DiagnosticPrinter.printText(withWarnings(result), spec.commandLine().getErr());
    if (result.hasErrors()) {
      spec.commandLine().getErr().println("nothing was written to " + location.shown());
      return 1;
    }
    for (SubmittedRun run : result.runs()) {
      out.println(Reporting.summary(run.job()) + " — " + outcome(run.outcome()));
    }
    int fresh = result.newRuns().size();
    String where = gitops.where(location);
    if (fresh == 0) {
      boolean pruned =
          result.runs().stream().anyMatch(r -> r.outcome() == SubmittedRun.Outcome.PRUNED);
      out.println(
          "nothing to submit: every run is already in "
              + where
              + (pruned ? " or already ran there and was pruned" : ""));
      freshHint(result).ifPresent(out::println);
    } else if (result.dryRun()) {
      out.println(
          "dry run: would commit " + fresh + " new run(s) to " + where + "; nothing was pushed");
    } else {
      out.println(
          "committed "
              + result.commit().orElseThrow().substring(0, 12)
              + " to "
              + where
              + ": "
              + fresh
              + " new run(s)"
              + (result.attempts() > 1
                  ? " (after " + (result.attempts() - 1) + " lost push race(s))"
                  : ""));
    }
    out.flush();
    return 0;
  }

  /**
   * Why {@code --fresh} did nothing: the commit already ran (its run is in the repo or was pruned),
   * and a run never changes once submitted; {@code --rerun --fresh} starts a new one from step 0.
   * Empty without {@code --fresh}, with {@code --rerun}, or when no run was skipped.
   */
  Optional<String> freshHint(SubmitResult result) {
    if (!checkpoints.fresh
        || rerun
        || result.runs().stream().allMatch(r -> r.outcome() == SubmittedRun.Outcome.NEW)) {
      return Optional.empty();
    }
    return Optional.of(
        "hint: --fresh starts over only in a new run, and this commit already ran:"
            + " trainyard submit --rerun --fresh starts a new run of it from step 0");
  }

  private List<Diagnostic> withWarnings(SubmitResult result) {
    List<Diagnostic> all = new ArrayList<>(warnings);
    all.addAll(result.diagnostics());
    return all;
  }

  private static String outcome(SubmittedRun.Outcome outcome) {
    return switch (outcome) {
      case NEW -> "new";
      case EXISTS -> "already in the GitOps repo, unchanged";
      case PRUNED -> "already ran and was pruned; --rerun starts it again";
    };
  }

  private int json(SubmitResult result, GitOpsLocation location) {
    ObjectNode root = DiagnosticPrinter.toJson(withWarnings(result));
    ArrayNode runs = root.putArray("runs");
    for (SubmittedRun run : result.runs()) {
      ObjectNode o = runs.addObject();
      Reporting.runJson(o, run.job());
      o.put("outcome", run.outcome().name().toLowerCase(Locale.ROOT))
          .put("trainYaml", run.trainYaml())
          .put("path", run.folder().path());
    }
    gitops.putPush(root, location, result.dryRun(), result.pushed(), result.commit());
    root.put("attempts", result.attempts());
    freshHint(result).ifPresent(h -> root.put("hint", h.substring("hint: ".length())));
    return gitops.printJson(root, result.hasErrors());
  }
}
