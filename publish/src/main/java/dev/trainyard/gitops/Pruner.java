package dev.trainyard.gitops;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.platform.PlatformLoader;
import dev.trainyard.compiler.source.SourceFile;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * {@code trainyard prune}: removes runs' folders from the GitOps repository in one commit (pushed
 * with retry), and records them in the cluster's {@link PrunedRuns} so a re-submit of the same
 * commit does not start them again. Age comes from the run's provenance ({@code
 * trainyard.dev/created-at}), never from a file's mtime.
 */
public final class Pruner {
  /** How diagnostics name the command line. */
  static final String ARGUMENTS = "trainyard prune";

  private final Path cacheRoot;
  private final Map<String, String> env;
  private final Clock clock;
  private final PublishProgress progress;

  public Pruner(Path cacheRoot, Map<String, String> env, Clock clock) {
    this(cacheRoot, env, clock, new PublishProgress());
  }

  /**
   * A pruner that keeps {@code progress} up to date, so an interrupted caller can say whether its
   * commit landed.
   */
  public Pruner(Path cacheRoot, Map<String, String> env, Clock clock, PublishProgress progress) {
    this.cacheRoot = cacheRoot;
    this.env = Map.copyOf(env);
    this.clock = clock;
    this.progress = progress;
  }

  /**
   * Prunes; a run name that does not exist is a diagnostic (E801), and then nothing is removed.
   *
   * @throws GitOpsException when the GitOps repository cannot be reached, read or written (exit 3)
   */
  public PruneResult prune(PruneRequest request) throws GitOpsException {
    return publish(
        request.gitops(), request.branch(), base -> plan(request, base), request.dryRun());
  }

  /**
   * Removes those of {@code runs} the branch still holds, in one commit (pushed with retry),
   * recording them in {@link PrunedRuns} as {@link #prune} does; runs the branch no longer holds
   * are skipped without a diagnostic (a person, {@code trainyard prune} or another controller
   * removed them first). The status controller's retention calls this with the finished runs it saw
   * in the cluster; a retry after a lost push race plans again from the new tip, so a run is never
   * removed twice.
   *
   * @throws GitOpsException when the GitOps repository cannot be reached, read or written
   */
  public PruneResult pruneIfPresent(
      GitOpsLocation gitops, String branch, Collection<RunFolder> runs) throws GitOpsException {
    return publish(gitops, branch, base -> present(runs, base), false);
  }

  /**
   * Removes the checkpoint claims' folders past their retention ({@link CheckpointRetention}), in
   * one commit (pushed with retry; a lost race plans again from the new tip); Flux or Argo CD then
   * delete the claims. Nothing to remove: no commit.
   *
   * @param platform the platform whose namespaces' {@code checkpoints.retention} apply; empty: the
   *     branch's own {@code platform.yaml} (the embedded default when it has none; an invalid one
   *     is reported and nothing is removed)
   * @param dryRun plan, push nothing
   * @throws GitOpsException when the GitOps repository cannot be reached, read or written
   */
  public CheckpointPruneResult pruneCheckpoints(
      GitOpsLocation gitops, String branch, Optional<Platform> platform, boolean dryRun)
      throws GitOpsException {
    progress.publishing(gitops.shown(), branch); // before the mirror's lock is waited for
    try (GitOpsRepository repo = GitOpsRepository.mirror(gitops, cacheRoot, env)) {
      Publisher.Published<List<CheckpointRetention.CheckpointFolder>> done =
          new Publisher(repo, branch, progress)
              .publish(base -> checkpoints(base.orElseGet(EmptySnapshot::new), platform), dryRun);
      return new CheckpointPruneResult(
          done.change().summary(), done.change().diagnostics(), done.commit(), done.pushed());
    }
  }

  /**
   * What {@link #pruneCheckpoints} did.
   *
   * @param removed the folders removed (or, dry, that would be)
   * @param diagnostics why nothing was removed (the branch's platform.yaml is invalid)
   * @param commit the commit made, if any
   * @param pushed whether it was pushed
   */
  public record CheckpointPruneResult(
      List<CheckpointRetention.CheckpointFolder> removed,
      List<Diagnostic> diagnostics,
      Optional<String> commit,
      boolean pushed) {
    public CheckpointPruneResult {
      removed = List.copyOf(removed);
      diagnostics = List.copyOf(diagnostics);
    }
  }

  Change<List<CheckpointRetention.CheckpointFolder>> checkpoints(
      Snapshot base, Optional<Platform> given) {
    Instant now = clock.instant();
    var platform =
        given.isPresent() ? StageResult.of(given.get(), List.of()) : branchPlatform(base);
    if (platform.failed()) {
      return new Change<>(List.of(), Optional.empty(), platform.diagnostics(), List.of());
    }
    List<CheckpointRetention.CheckpointFolder> chosen =
        CheckpointRetention.expired(base, platform.value().orElseThrow(), now);
    if (chosen.isEmpty()) {
      return new Change<>(List.of(), Optional.empty(), List.of(), chosen);
    }
    List<TreeEdit> edits = new ArrayList<>();
    chosen.forEach(f -> edits.add(new TreeEdit.DeleteFolder(f.path())));
    CommitText.Person committer = CommitText.Person.committer(env, now);
    CommitText text =
        new CommitText(
            chosen.size() == 1
                ? "trainyard prune: checkpoints " + chosen.get(0).key()
                : "trainyard prune: " + chosen.size() + " checkpoint claims",
            "Removes checkpoint claims past their retention, whose jobs have no run left,"
                + " so Flux and Argo CD delete them.",
            chosen.stream()
                .map(
                    f ->
                        "Trainyard-Pruned-Checkpoint: "
                            + f.cluster()
                            + "/"
                            + f.namespace()
                            + "/"
                            + f.key())
                .toList(),
            committer,
            committer);
    return new Change<>(edits, Optional.of(text), List.of(), chosen);
  }

  /** The branch's {@code platform.yaml}, or the embedded default when it has none. */
  private static StageResult<Platform> branchPlatform(Snapshot base) {
    var loader = PlatformLoader.standard();
    return base.read("platform.yaml")
        .map(text -> loader.load(new SourceFile(GitOpsPlatform.DISPLAY, text), false))
        .orElseGet(() -> loader.load(PlatformLoader.embedded(), true));
  }

  /**
   * One prune commit on {@code branch} of {@code gitops}'s mirror, planned from its tip (empty: no
   * branch yet).
   */
  private PruneResult publish(
      GitOpsLocation gitops,
      String branch,
      Function<Snapshot, Change<List<RunFolder>>> plan,
      boolean dryRun)
      throws GitOpsException {
    progress.publishing(gitops.shown(), branch); // before the mirror's lock is waited for
    try (GitOpsRepository repo = GitOpsRepository.mirror(gitops, cacheRoot, env)) {
      Publisher.Published<List<RunFolder>> done =
          new Publisher(repo, branch, progress)
              .publish(base -> plan.apply(base.orElseGet(EmptySnapshot::new)), dryRun);
      return new PruneResult(
          done.change().summary(),
          done.change().diagnostics(),
          done.commit(),
          done.pushed(),
          done.attempts());
    }
  }

  Change<List<RunFolder>> present(Collection<RunFolder> runs, Snapshot base) {
    RunIndex index = new RunIndex(base);
    List<RunFolder> chosen =
        runs.stream()
            .distinct()
            .filter(index::has)
            .sorted(Comparator.comparing(RunFolder::path))
            .toList();
    if (chosen.isEmpty()) {
      return new Change<>(List.of(), Optional.empty(), List.of(), chosen);
    }
    return new Change<>(
        edits(base, chosen), Optional.of(message(chosen, clock.instant())), List.of(), chosen);
  }

  Change<List<RunFolder>> plan(PruneRequest request, Snapshot base) {
    Instant now = clock.instant();
    RunIndex index = new RunIndex(base);
    List<RunFolder> all = request.cluster().map(index::runs).orElseGet(index::runs);
    List<Diagnostic> diagnostics = new ArrayList<>();
    if (request.cluster().isPresent() && !base.hasFolder("clusters/" + request.cluster().get())) {
      diagnostics.add(
          Diagnostic.error(
                  DiagnosticCode.UNKNOWN_CLUSTER,
                  SourceLocation.ofFile(ARGUMENTS),
                  "",
                  "--target-cluster \""
                      + request.cluster().get()
                      + "\" has no folder in the GitOps repo")
              .withHint(
                  "clusters: "
                      + String.join(
                          ", ",
                          base.children("clusters").stream()
                              .filter(c -> c.endsWith("/"))
                              .map(c -> c.substring(0, c.length() - 1))
                              .toList())));
      return new Change<>(List.of(), Optional.empty(), diagnostics, List.of());
    }
    List<RunFolder> chosen =
        request.olderThan().isPresent()
            ? older(index, all, now.minus(request.olderThan().get()), diagnostics)
            : named(
                request.runs(),
                all,
                name ->
                    pruned(base, request.cluster()).stream().anyMatch(k -> k.endsWith("/" + name)),
                diagnostics);
    if (diagnostics.stream().anyMatch(Diagnostic::isError) || chosen.isEmpty()) {
      return new Change<>(List.of(), Optional.empty(), diagnostics, chosen);
    }
    return new Change<>(
        edits(base, chosen), Optional.of(message(chosen, now)), diagnostics, chosen);
  }

  private static List<RunFolder> named(
      List<String> names,
      List<RunFolder> all,
      Predicate<String> alreadyPruned,
      List<Diagnostic> diagnostics) {
    List<RunFolder> chosen = new ArrayList<>();
    for (String name : new TreeSet<>(names)) {
      List<RunFolder> matches = all.stream().filter(r -> r.run().equals(name)).toList();
      if (matches.isEmpty() && alreadyPruned.test(name)) {
        diagnostics.add(
            Diagnostic.warning(
                DiagnosticCode.ALREADY_PRUNED,
                SourceLocation.ofFile(ARGUMENTS),
                "",
                "run \"" + name + "\" was already pruned; nothing to do for it"));
      } else if (matches.isEmpty()) {
        diagnostics.add(
            Diagnostic.error(
                    DiagnosticCode.UNKNOWN_RUN,
                    SourceLocation.ofFile(ARGUMENTS),
                    "",
                    "no run \"" + name + "\" in the GitOps repo")
                .withHint(hint(name, all)));
      }
      chosen.addAll(matches);
    }
    return chosen;
  }

  /** The pruned keys ({@code <namespace>/<run>}) of every cluster, or of one. */
  private static SortedSet<String> pruned(Snapshot base, Optional<String> cluster) {
    SortedSet<String> keys = new TreeSet<>();
    for (String c : base.children("clusters")) {
      String name = c.replaceFirst("/$", "");
      if (c.endsWith("/") && cluster.map(name::equals).orElse(true)) {
        keys.addAll(PrunedRuns.of(base, name));
      }
    }
    return keys;
  }

  private static String hint(String name, List<RunFolder> all) {
    List<String> near =
        all.stream()
            .map(RunFolder::run)
            .filter(r -> r.startsWith(name.replaceFirst("-[0-9a-f]{6}$", "")))
            .limit(5)
            .toList();
    return near.isEmpty()
        ? "the GitOps repo's clusters/<cluster>/<namespace>/ folders are the runs"
        : "runs with that job name: " + String.join(", ", near);
  }

  private static List<RunFolder> older(
      RunIndex index, List<RunFolder> all, Instant cutoff, List<Diagnostic> diagnostics) {
    List<RunFolder> chosen = new ArrayList<>();
    for (RunFolder run : all) {
      Optional<Instant> created = index.createdAt(run);
      if (created.isEmpty()) {
        diagnostics.add(
            Diagnostic.warning(
                    DiagnosticCode.RUN_WITHOUT_CREATION_TIME,
                    SourceLocation.ofFile(run.jobSetFile()),
                    "",
                    "run \""
                        + run.run()
                        + "\" records no trainyard.dev/created-at; --older-than leaves it")
                .withHint("prune it by name: trainyard prune " + run.run()));
      } else if (created.get().isBefore(cutoff)) {
        chosen.add(run);
      }
    }
    return chosen;
  }

  private static List<TreeEdit> edits(Snapshot base, List<RunFolder> chosen) {
    List<TreeEdit> edits = new ArrayList<>();
    Map<String, SortedSet<String>> pruned = new TreeMap<>();
    for (RunFolder run : chosen) {
      edits.add(new TreeEdit.DeleteFolder(run.path()));
      pruned
          .computeIfAbsent(run.cluster(), c -> new TreeSet<>(PrunedRuns.of(base, c)))
          .add(run.key());
    }
    pruned.forEach(
        (cluster, keys) ->
            edits.add(new TreeEdit.WriteFile(PrunedRuns.path(cluster), PrunedRuns.text(keys))));
    return edits;
  }

  private CommitText message(List<RunFolder> chosen, Instant now) {
    String subject =
        chosen.size() == 1
            ? "trainyard prune: " + chosen.get(0).run()
            : "trainyard prune: " + chosen.size() + " runs";
    List<String> trailers =
        chosen.stream().map(r -> "Trainyard-Pruned: " + r.cluster() + "/" + r.key()).toList();
    CommitText.Person committer = CommitText.Person.committer(env, now);
    return new CommitText(
        subject,
        "Removes these runs' folders so Flux and Argo CD prune their objects.",
        trailers,
        committer,
        committer);
  }
}
