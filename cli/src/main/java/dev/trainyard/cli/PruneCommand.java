package dev.trainyard.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.diagnostic.DiagnosticPrinter;
import dev.trainyard.gitops.GitOpsException;
import dev.trainyard.gitops.GitOpsLocation;
import dev.trainyard.gitops.PruneRequest;
import dev.trainyard.gitops.PruneResult;
import dev.trainyard.gitops.Pruner;
import dev.trainyard.gitops.PublishProgress;
import dev.trainyard.gitops.RunFolder;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code trainyard prune}: remove finished runs from the GitOps repository in one commit. */
@Command(
    name = "prune",
    header = "Remove runs' folders from the GitOps repository in one commit.",
    description = {
      "Remove runs' folders from the GitOps repository in one commit (pushed with",
      "retry), so Flux (prune: true) or Argo CD (automated prune) delete their objects",
      "instead of re-creating them.",
      "A pruned run is remembered in clusters/<cluster>/pruned-runs.txt: re-submitting",
      "its commit does not start it again. --older-than reads each run's creation time",
      "from its provenance (trainyard.dev/created-at) and needs --include-running: it",
      "cannot tell a running run from a finished one.",
      "--checkpoints removes instead the checkpoint claims (train.yaml `checkpoint:`)",
      "past their namespace's checkpoints.retention in the branch's platform.yaml,",
      "counted from their last submit, once no run of their job is left",
      "(docs/checkpoints.md).",
      "A reset, a 5xx or no answer within $TRAINYARD_GITOPS_TIMEOUT s (default 60) is",
      "retried 3 times; a push whose answer was lost is not sent again when the",
      "branch already holds it."
    },
    mixinStandardHelpOptions = true,
    footer = {
      "",
      "Exit codes: 0 ok (also when nothing matched --older-than), 1 a named run does",
      "not exist, 2 usage, 3 environment, 4 internal error;",
      "130/143 interrupted (SIGINT/SIGTERM): one line says whether the commit landed."
    })
final class PruneCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin GitOpsOptions gitops;

  @Parameters(
      paramLabel = "RUN",
      arity = "0..*",
      description = "run names, e.g. pytorch-ddp-3fa2c1")
  List<String> runs;

  @Option(
      names = "--older-than",
      paramLabel = "DURATION",
      description = "every run created longer ago than this, e.g. 7d, 36h, 90m")
  String olderThan;

  @Option(
      names = "--include-running",
      description =
          "with --older-than: prune old runs even if they still run (prune cannot see run"
              + " states; without this flag --older-than is refused)")
  boolean includeRunning;

  @Option(
      names = "--checkpoints",
      description =
          "remove the checkpoint claims past their retention (platform.yaml"
              + " namespaces[].checkpoints.retention) whose jobs have no run left")
  boolean checkpoints;

  @Option(
      names = "--target-cluster",
      paramLabel = "NAME",
      description = "only runs of this cluster")
  String cluster;

  @Override
  public Integer call() {
    Map<String, String> env = Invocation.of(spec).environment();
    List<String> names = runs == null ? List.of() : runs;
    if (checkpoints) {
      if (!names.isEmpty() || olderThan != null) {
        throw new ParameterException(
            spec.commandLine(), "--checkpoints takes no run names and no --older-than");
      }
      return pruneCheckpoints(env);
    }
    if (names.isEmpty() == (olderThan == null)) {
      throw new ParameterException(
          spec.commandLine(), "give either run names or --older-than DURATION");
    }
    if (includeRunning && olderThan == null) {
      throw new ParameterException(
          spec.commandLine(),
          "--include-running goes with --older-than; named runs are pruned as named");
    }
    if (olderThan != null && !includeRunning) {
      throw new ParameterException(
          spec.commandLine(),
          "--older-than selects runs by age only, running ones too, and prune cannot see run"
              + " states: name the finished runs (trainyard status lists them), or add"
              + " --include-running to prune every old run anyway");
    }
    Optional<Duration> age = age();
    GitOpsLocation location = gitops.location(spec, env);
    PruneRequest request =
        new PruneRequest(
            location, gitops.branch, names, age, Optional.ofNullable(cluster), gitops.dryRun);
    PublishProgress progress = gitops.progress();
    CallStop.Watch watch = Invocation.of(spec).stop().watch(progress, spec.commandLine().getErr());
    try {
      PruneResult result =
          new Pruner(GitOpsOptions.cacheRoot(Invocation.of(spec)), env, Clock.systemUTC(), progress)
              .prune(request);
      return gitops.output.json() ? json(result, location) : text(result, location);
    } catch (GitOpsException e) {
      return gitops.failure(e);
    } finally {
      watch.close();
    }
  }

  private int pruneCheckpoints(Map<String, String> env) {
    GitOpsLocation location = gitops.location(spec, env);
    PublishProgress progress = gitops.progress();
    CallStop.Watch watch = Invocation.of(spec).stop().watch(progress, spec.commandLine().getErr());
    try {
      Pruner.CheckpointPruneResult result =
          new Pruner(GitOpsOptions.cacheRoot(Invocation.of(spec)), env, Clock.systemUTC(), progress)
              .pruneCheckpoints(location, gitops.branch, Optional.empty(), gitops.dryRun);
      PrintWriter out = spec.commandLine().getOut();
      DiagnosticPrinter.printText(result.diagnostics(), spec.commandLine().getErr());
      if (!result.diagnostics().isEmpty()) {
        return 1;
      }
      result.removed().forEach(f -> out.println("prune " + f.path()));
      String where = gitops.where(location);
      if (result.removed().isEmpty()) {
        out.println("no checkpoint claim past its retention in " + where);
      } else if (gitops.dryRun) {
        out.println(
            "dry run: would remove "
                + result.removed().size()
                + " checkpoint claim(s); nothing was pushed");
      } else {
        out.println(
            "committed "
                + result.commit().orElseThrow().substring(0, 12)
                + " to "
                + where
                + ": removed "
                + result.removed().size()
                + " checkpoint claim(s)");
      }
      out.flush();
      return 0;
    } catch (GitOpsException e) {
      return gitops.failure(e);
    } finally {
      watch.close();
    }
  }

  private Optional<Duration> age() {
    if (olderThan == null) {
      return Optional.empty();
    }
    return Optional.of(DurationFlag.parse(spec, "--older-than", olderThan));
  }

  private int text(PruneResult result, GitOpsLocation location) {
    PrintWriter out = spec.commandLine().getOut();
    DiagnosticPrinter.printText(result.diagnostics(), spec.commandLine().getErr());
    String where = gitops.where(location);
    if (result.hasErrors()) {
      spec.commandLine().getErr().println("nothing was removed from " + where);
      return 1;
    }
    result.pruned().forEach(r -> out.println("prune " + r.path()));
    if (result.pruned().isEmpty()) {
      out.println("nothing to prune in " + where);
    } else if (gitops.dryRun) {
      out.println(
          "dry run: would remove "
              + result.pruned().size()
              + " run(s) from "
              + where
              + "; nothing was pushed");
    } else {
      out.println(
          "committed "
              + result.commit().orElseThrow().substring(0, 12)
              + " to "
              + where
              + ": removed "
              + result.pruned().size()
              + " run(s)");
    }
    out.flush();
    return 0;
  }

  private int json(PruneResult result, GitOpsLocation location) {
    ObjectNode root = DiagnosticPrinter.toJson(result.diagnostics());
    ArrayNode list = root.putArray("pruned");
    for (RunFolder r : result.pruned()) {
      list.addObject()
          .put("name", r.run())
          .put("cluster", r.cluster())
          .put("namespace", r.namespace())
          .put("path", r.path());
    }
    gitops.putPush(root, location, gitops.dryRun, result.pushed(), result.commit());
    return gitops.printJson(root, result.hasErrors());
  }
}
