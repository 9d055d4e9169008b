package dev.trainyard.controller;

import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.controller.state.RunStateMapper;
import dev.trainyard.gitops.GitOpsException;
import dev.trainyard.gitops.GitOpsLocation;
import dev.trainyard.gitops.PruneResult;
import dev.trainyard.gitops.Pruner;
import dev.trainyard.gitops.RunFolder;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The controller's optional pruning: finished runs whose {@code retention} (platform.yaml) has
 * passed are removed from the GitOps repo in one commit with {@code trainyard prune}'s code ({@link
 * Pruner}), so Flux or Argo CD delete their objects and never re-create them. Runs that are not
 * SUCCEEDED or FAILED are never removed ({@link RetentionPlan}). Pushes with {@code
 * TRAINYARD_GITOPS_TOKEN} from the environment.
 */
public final class RunPruning {

  /**
   * Where to prune: the GitOps repo (URL or local path), its branch, how often to look, and the
   * folder for its bare mirror.
   */
  public record Settings(GitOpsLocation gitops, String branch, Duration every, Path cache) {}

  private static final System.Logger LOG = System.getLogger(RunPruning.class.getName());
  private final GitOpsLocation gitops;
  private final String branch;
  private final Platform platform;
  private final Supplier<List<ObservedRun>> runs;
  private final RunStateMapper mapper;
  private final Pruner pruner;
  private final Clock clock;

  public RunPruning(
      Settings settings,
      Platform platform,
      Supplier<List<ObservedRun>> runs,
      RunStateMapper mapper,
      Map<String, String> env,
      Clock clock) {
    this.gitops = settings.gitops();
    this.branch = settings.branch();
    this.platform = platform;
    this.runs = runs;
    this.mapper = mapper;
    this.pruner = new Pruner(settings.cache(), env, clock);
    this.clock = clock;
  }

  /**
   * One scheduled pass, by the leader only (two replicas pruning would race for the same commit)
   * and only once the caches have listed (an empty cache would see no runs, a partial one some). A
   * failure is counted and logged; the next pass retries.
   */
  void pass(boolean leading, boolean synced, ControllerMetrics metrics) {
    if (!leading || !synced) {
      return;
    }
    try {
      metrics.pruned(pruneOnce().map(r -> r.pruned().size()).orElse(0), false);
    } catch (GitOpsException | RuntimeException e) {
      metrics.pruned(0, true);
      LOG.log(
          System.Logger.Level.WARNING,
          "retention pass failed, next pass retries: {0}",
          e.getMessage());
    }
  }

  /** The runs due now, as GitOps folders. */
  List<RunFolder> due() {
    List<RetentionPlan.Finished> finished = new ArrayList<>();
    for (ObservedRun run : runs.get()) {
      RetentionPlan.finished(run, mapper.map(run.observation())).ifPresent(finished::add);
    }
    return RetentionPlan.due(finished, platform, clock.instant()).stream()
        .map(f -> new RunFolder(f.cluster(), f.namespace(), f.run()))
        .toList();
  }

  /**
   * One pass: prunes the due runs the branch still holds, in one commit.
   *
   * @return what was pruned; empty when nothing was due
   * @throws GitOpsException when the GitOps repo cannot be reached or written (the next pass tries
   *     again)
   */
  public Optional<PruneResult> pruneOnce() throws GitOpsException {
    List<RunFolder> due = due();
    if (due.isEmpty()) {
      return Optional.empty();
    }
    PruneResult result = pruner.pruneIfPresent(gitops, branch, due);
    LOG.log(
        System.Logger.Level.INFO,
        "pruned {0} finished run(s) from {1}: {2}",
        result.pruned().size(),
        gitops.shown(),
        result.pruned().stream().map(RunFolder::run).toList());
    return Optional.of(result);
  }
}
