package dev.trainyard.gitops;

import dev.trainyard.compiler.CompileRequest;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import dev.trainyard.compiler.TargetFlags;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.manifest.OutputTree;
import dev.trainyard.compiler.resolve.ResolvedJob;
import dev.trainyard.gitops.leaks.LeakCheck;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.random.RandomGenerator;

/**
 * {@code trainyard submit}: compiles each train.yaml at the source commit, with the platform files
 * of the GitOps repository, and commits every new run to it in one commit (pushed with retry, see
 * {@link Publisher}).
 *
 * <p>A run is immutable once in the GitOps repo: a JobSet cannot change in place (jobset webhook:
 * {@code spec.replicatedJobs} is immutable), so re-submitting the same commit finds the run there
 * and changes nothing, a run pruned after it finished is not started again, and {@code --rerun}
 * takes the next attempt number (a new run id). Anything a compile refuses — including a namespace,
 * queue or runtime the platform does not allow for the source repo — is a diagnostic, and then
 * nothing is written.
 */
public final class Submitter {
  private static final int MAX_RERUN_ATTEMPT = 1_000;
  private final Path cacheRoot;
  private final Map<String, String> env;
  private final Clock clock;
  private final PublishProgress progress;
  private final CompileWorkers workers;

  /**
   * @param cacheRoot where the GitOps mirror is kept ({@code ~/.cache/trainyard})
   * @param env the environment (credentials: {@code TRAINYARD_GITOPS_TOKEN}; committer: {@code
   *     TRAINYARD_GIT_COMMITTER_NAME}/{@code _EMAIL})
   * @param clock stamps {@code trainyard.dev/created-at} and the commit time
   */
  public Submitter(Path cacheRoot, Map<String, String> env, Clock clock) {
    this(cacheRoot, env, clock, new PublishProgress());
  }

  /**
   * A submitter that keeps {@code progress} up to date, so an interrupted caller can say whether
   * its commit landed.
   */
  public Submitter(Path cacheRoot, Map<String, String> env, Clock clock, PublishProgress progress) {
    this(cacheRoot, env, clock, progress, CompileWorkers.available());
  }

  /** With {@code workers} compiling the train.yaml files (tests compare 1 thread with several). */
  Submitter(
      Path cacheRoot,
      Map<String, String> env,
      Clock clock,
      PublishProgress progress,
      CompileWorkers workers) {
    this.cacheRoot = cacheRoot;
    this.env = Map.copyOf(env);
    this.clock = clock;
    this.progress = progress;
    this.workers = workers;
  }

  /**
   * Submits; never throws for a mistake in the user's or the platform's files (those are
   * diagnostics).
   *
   * @throws GitOpsException when the GitOps repository cannot be reached, read or written (exit 3)
   */
  public SubmitResult submit(SubmitRequest request) throws GitOpsException {
    return submit(request, attempt -> {});
  }

  SubmitResult submit(SubmitRequest request, Publisher.BeforePush beforePush)
      throws GitOpsException {
    // Named before the mirror's lock is waited for, so a stop meanwhile says where nothing went.
    progress.publishing(request.gitops().shown(), request.branch());
    try (GitOpsRepository repo = mirror(request.gitops())) {
      List<Diagnostic> diagnostics = new ArrayList<>();
      Publisher publisher =
          new Publisher(repo, request.branch(), RandomGenerator.getDefault(), beforePush, progress);
      Publisher.Published<List<SubmittedRun>> done =
          publisher.publish(
              base -> plan(request, base.orElseGet(EmptySnapshot::new)), request.dryRun());
      diagnostics.addAll(done.change().diagnostics());
      return new SubmitResult(
          done.change().summary(),
          diagnostics,
          done.commit(),
          done.pushed(),
          done.attempts(),
          request.dryRun());
    }
  }

  /**
   * The bare mirror of {@code gitops} in this submitter's cache, opened and locked as {@link
   * GitOpsRepository#mirror} does, with this submitter's environment for credentials; the caller
   * closes it.
   *
   * @throws GitOpsException when the cache folder cannot be created or stays locked
   */
  public GitOpsRepository mirror(GitOpsLocation gitops) throws GitOpsException {
    return GitOpsRepository.mirror(gitops, cacheRoot, env);
  }

  /**
   * What {@code request} would submit, built like {@code --dry-run} (the commit's tree is written
   * to memory over {@code repo}'s objects, {@link GitOpsRepository#applyUnstored}; no ref moves,
   * nothing is pushed), with the tree before and after it: a preview diffs the two. {@code repo} is
   * the caller's open mirror of {@code request.gitops()}, kept open for as long as the snapshots
   * are read.
   *
   * @throws GitOpsException when the GitOps repository cannot be fetched or read (exit 3)
   */
  public SubmitPlan plan(SubmitRequest request, GitOpsRepository repo) throws GitOpsException {
    AtomicReference<Snapshot> seen = new AtomicReference<>(new EmptySnapshot());
    Publisher publisher =
        new Publisher(repo, request.branch(), RandomGenerator.getDefault(), attempt -> {});
    AtomicReference<List<Diagnostic>> diagnostics = new AtomicReference<>(List.of());
    Publisher.Published<List<SubmittedRun>> done =
        publisher.publish(
            base -> {
              seen.set(base.orElseGet(EmptySnapshot::new));
              // A preview still shows the runs that did compile when another train.yaml has errors
              // (submit would write
              // none of them: the result keeps every error, so the preview says so and exits 1).
              Change<List<SubmittedRun>> change = plan(request, seen.get(), true);
              diagnostics.set(change.diagnostics());
              return new Change<>(
                  change.edits(),
                  change.text(),
                  change.diagnostics().stream().filter(d -> !d.isError()).toList(),
                  change.summary());
            },
            true);
    List<Diagnostic> all = new ArrayList<>(diagnostics.get());
    done.change().diagnostics().stream()
        .filter(Diagnostic::isError)
        .forEach(all::add); // a cluster root refused (E803/E804)
    SubmitResult result =
        new SubmitResult(
            done.change().summary(), all, Optional.empty(), false, done.attempts(), true);
    return new SubmitPlan(seen.get(), done.after().orElse(seen.get()), result);
  }

  private Change<List<SubmittedRun>> plan(SubmitRequest request, Snapshot base)
      throws GitOpsException {
    return plan(request, base, false);
  }

  /**
   * With {@code keepValidRuns}, a failed train.yaml drops only its own run (for a preview), else
   * every run.
   */
  private Change<List<SubmittedRun>> plan(
      SubmitRequest request, Snapshot base, boolean keepValidRuns) throws GitOpsException {
    Instant now = clock.instant();
    List<Diagnostic> diagnostics = new ArrayList<>(PlatformSource.check(request, base));
    if (diagnostics.stream().anyMatch(Diagnostic::isError)) {
      return new Change<>(List.of(), Optional.empty(), diagnostics, List.of());
    }
    List<SubmittedRun> runs = new ArrayList<>();
    Map<String, TreeEdit> edits = new LinkedHashMap<>();
    try (GitOpsPlatform platform = GitOpsPlatform.of(request, base)) {
      refuseTargetFlags(request, platform, now);
      Snapshot shared = new LockedSnapshot(base);
      List<CompileResult> results =
          workers.map(
              request.trainYamls(),
              () -> new Compiler(SshSecretProvider.reading(shared::read)),
              (compiler, trainYaml) ->
                  compileRun(
                      compiler,
                      compileRequest(request, platform, trainYaml, now),
                      shared,
                      request.rerun()));
      for (int i = 0; i < results.size(); i++) {
        Path trainYaml = request.trainYamls().get(i);
        CompileResult result = results.get(i);
        diagnostics.addAll(platform.repoRelative(result.diagnostics()));
        if (result.hasErrors()) {
          continue;
        }
        SubmittedRun run = classify(result.job().orElseThrow(), trainYaml.toString(), base);
        runs.add(run);
        if (run.outcome() == SubmittedRun.Outcome.NEW) {
          diagnostics.addAll(leaks(result.tree().orElseThrow(), run.job()));
          folders(result.tree().orElseThrow()).forEach(edits::put);
        }
      }
      for (TreeEdit edit : edits.values()) {
        diagnostics.addAll(handWrittenInTheWay(base, edit));
      }
    }
    if (diagnostics.stream().anyMatch(Diagnostic::isError) && !keepValidRuns) {
      return new Change<>(List.of(), Optional.empty(), diagnostics, runs);
    }
    List<SubmittedRun> fresh =
        runs.stream().filter(r -> r.outcome() == SubmittedRun.Outcome.NEW).toList();
    Optional<CommitText> text =
        fresh.isEmpty()
            ? Optional.empty()
            : Optional.of(SubmitMessage.of(fresh, now, env, request.workingDirectory()));
    return new Change<>(List.copyOf(edits.values()), text, diagnostics, runs);
  }

  /**
   * A {@code --target-cluster} or {@code --namespace} the platform does not define is one usage
   * error (exit 2), checked before any train.yaml, not the same E310 at each of them.
   */
  private static void refuseTargetFlags(SubmitRequest request, GitOpsPlatform platform, Instant now)
      throws GitOpsException {
    if (request.trainYamls().isEmpty()) {
      return;
    }
    Optional<TargetFlags.Refusal> refusal =
        TargetFlags.check(compileRequest(request, platform, request.trainYamls().get(0), now));
    if (refusal.isPresent()) {
      throw GitOpsException.usage(refusal.get().message(), refusal.get().hint());
    }
  }

  private static CompileRequest compileRequest(
      SubmitRequest r, GitOpsPlatform platform, Path trainYaml, Instant now) {
    // The platform override is read resolved against the working directory but named as given:
    // relative as typed, absolute relative to the working directory (Compiler's own rule).
    Optional<String> platformDisplay =
        platform
            .platformDisplay()
            .or(() -> r.platform().filter(p -> !p.isAbsolute()).map(Path::toString));
    return CompileRequest.builder(r.resolve(trainYaml))
        .displayPath(trainYaml.toString())
        .workingDirectory(r.workingDirectory())
        .platformFile(platform.platform())
        .runtimesDir(platform.runtimes())
        .sourceRepo(r.sourceRepo())
        .sourceCommit(r.sourceCommit())
        .cluster(r.cluster())
        .namespace(r.namespace())
        .createdAt(now)
        .platformDisplay(platformDisplay)
        .platformProvenance(platform.platformDisplay())
        .sourceBranch(r.checkpoints().sourceBranch())
        .fresh(r.checkpoints().fresh())
        .build();
  }

  /**
   * Compiles attempt 1, or with {@code rerun} the first attempt whose run the tree has never held.
   */
  private static CompileResult compileRun(
      Compiler compiler, CompileRequest request, Snapshot base, boolean rerun) {
    CompileResult result = compiler.compile(request);
    int attempt = 1;
    while (rerun
        && !result.hasErrors()
        && attempt < MAX_RERUN_ATTEMPT
        && classify(result.job().get(), "", base).outcome() != SubmittedRun.Outcome.NEW) {
      attempt++;
      result = compiler.compile(request.withAttempt(attempt));
    }
    return result;
  }

  private static SubmittedRun classify(ResolvedJob job, String trainYaml, Snapshot base) {
    RunFolder folder =
        new RunFolder(job.target().cluster(), job.target().namespace(), job.naming().runName());
    SubmittedRun.Outcome outcome = SubmittedRun.Outcome.NEW;
    if (base.hasFolder(folder.path())) {
      outcome = SubmittedRun.Outcome.EXISTS;
    } else if (PrunedRuns.of(base, folder.cluster()).contains(folder.key())) {
      outcome = SubmittedRun.Outcome.PRUNED;
    }
    return new SubmittedRun(folder, trainYaml, outcome, job);
  }

  /**
   * The leak check on what this commit writes (the run's and its queue folders' files): a key in an
   * env value, an annotation or a runtime's skeleton refuses the submit (E809), so no private key
   * ever lands outside an allowed plain Secret. Files already in the repo were checked when they
   * were committed, or are the platform team's own (check them with {@code trainyard
   * check-secrets}).
   */
  private static List<Diagnostic> leaks(OutputTree tree, ResolvedJob job) {
    return LeakCheck.compiled(tree, job.platform());
  }

  /**
   * E814 for each file of {@code base} that {@code edit} would remove or rewrite although Trainyard
   * did not write it ({@link HandWrittenFiles}): a queue folder is replaced whole, and an ML
   * engineer's submit must not delete the platform team's LimitRange with its run.
   */
  static List<Diagnostic> handWrittenInTheWay(Snapshot base, TreeEdit edit) {
    return edit instanceof TreeEdit.ReplaceFolder replace
        ? HandWrittenFiles.inTheWay(
            base, replace.path(), replace.files(), "submit", "nothing was committed")
        : List.of();
  }

  /**
   * One ReplaceFolder per folder the compile owns (the run, and the queue folders it brings up to
   * date).
   */
  static Map<String, TreeEdit> folders(OutputTree tree) {
    Map<String, TreeEdit> edits = new LinkedHashMap<>();
    for (String folder : tree.ownedFolders()) {
      SortedMap<String, String> files = new TreeMap<>();
      tree.files()
          .forEach(
              (path, text) -> {
                if (path.startsWith(folder + "/")) {
                  files.put(path.substring(folder.length() + 1), text);
                }
              });
      edits.put(folder, new TreeEdit.ReplaceFolder(folder, files));
    }
    return edits;
  }
}
