package dev.trainyard.gitops;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * Publishes a {@link Change} as one commit on a branch of the GitOps repository, so concurrent
 * submits never lose each other's runs: fetch the tip, plan the change against it, build the tree
 * (plus the cluster roots), commit, and push with compare-and-swap; when another push won the race,
 * fetch again and re-plan on the new tip, at most {@link #MAX_ATTEMPTS} times with a growing random
 * pause between attempts.
 *
 * <pre>
 * Published&lt;List&lt;SubmittedRun&gt;&gt; done =
 *     new Publisher(repo, "main").publish(base -&gt; plan(base), false);
 * </pre>
 */
public final class Publisher {
  /** Attempts before giving up on a branch that keeps moving (an environment problem, exit 3). */
  public static final int MAX_ATTEMPTS = 40;

  private static final long MAX_PAUSE_MILLIS = 1_000;
  private final GitOpsRepository repo;
  private final String branch;
  private final RandomGenerator random;
  private final BeforePush beforePush;
  private final PublishProgress progress;

  /** A planner: the change wanted on top of {@code base} (empty for an empty repository). */
  @FunctionalInterface
  public interface Planner<S> {
    Change<S> plan(Optional<Snapshot> base) throws GitOpsException;
  }

  /** Called between commit and push; tests use it to make a concurrent push win the race. */
  @FunctionalInterface
  interface BeforePush {
    void run(int attempt) throws GitOpsException;
  }

  public Publisher(GitOpsRepository repo, String branch) {
    this(repo, branch, new PublishProgress());
  }

  /** A publisher that keeps {@code progress} up to date, for a caller that may be interrupted. */
  public Publisher(GitOpsRepository repo, String branch, PublishProgress progress) {
    this(repo, branch, RandomGenerator.getDefault(), attempt -> {}, progress);
  }

  Publisher(GitOpsRepository repo, String branch, RandomGenerator random, BeforePush beforePush) {
    this(repo, branch, random, beforePush, new PublishProgress());
  }

  Publisher(
      GitOpsRepository repo,
      String branch,
      RandomGenerator random,
      BeforePush beforePush,
      PublishProgress progress) {
    this.repo = repo;
    this.branch = branch;
    this.random = random;
    this.beforePush = beforePush;
    this.progress = progress;
  }

  /**
   * What a publish did.
   *
   * @param change the change as last planned
   * @param commit the new commit's SHA; empty when refused, when nothing changed, or for a dry run
   * @param pushed whether the branch now points at {@code commit}
   * @param attempts how many times the change was planned (1 without races)
   * @param after the tree after the change (the base when nothing changed)
   */
  public record Published<S>(
      Change<S> change,
      Optional<String> commit,
      boolean pushed,
      int attempts,
      Optional<Snapshot> after) {}

  /**
   * Plans, commits and pushes; with {@code dryRun} stops after building the tree (nothing is
   * pushed).
   *
   * @throws GitOpsException when the repository cannot be read or written, or the branch moved on
   *     every attempt
   */
  public <S> Published<S> publish(Planner<S> planner, boolean dryRun) throws GitOpsException {
    for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      progress.publishing(repo.shown(), branch);
      Optional<Snapshot> base = repo.fetch(branch);
      Change<S> change = planner.plan(base);
      if (change.refused() || change.text().isEmpty() || change.edits().isEmpty()) {
        return new Published<>(change, Optional.empty(), false, attempt, base);
      }
      ClusterRoots.Result roots =
          ClusterRoots.after(base.orElseGet(EmptySnapshot::new), change.edits());
      if (!roots.diagnostics().isEmpty()) {
        List<Diagnostic> all = new ArrayList<>(change.diagnostics());
        all.addAll(roots.diagnostics());
        return new Published<>(
            new Change<>(List.of(), Optional.empty(), all, change.summary()),
            Optional.empty(),
            false,
            attempt,
            base);
      }
      List<TreeEdit> edits = new ArrayList<>(change.edits());
      edits.addAll(roots.edits());
      Snapshot next = repo.apply(base, edits);
      Optional<String> commit = repo.commit(base, next, change.text().get());
      if (commit.isEmpty() || dryRun) {
        return new Published<>(change, Optional.empty(), false, attempt, Optional.of(next));
      }
      beforePush.run(attempt);
      progress.pushing(repo.shown(), branch, commit.get());
      boolean landed = repo.push(commit.get(), branch, base) == GitOpsRepository.PushOutcome.PUSHED;
      progress.answered(landed);
      if (landed) {
        return new Published<>(change, commit, true, attempt, Optional.of(next));
      }
      pause(attempt);
    }
    throw new GitOpsException(
        "the branch "
            + branch
            + " moved on each of "
            + MAX_ATTEMPTS
            + " attempts to push; nothing was written",
        "another process is pushing to it constantly; try again later");
  }

  private void pause(int attempt) throws GitOpsException {
    long bound = Math.min(MAX_PAUSE_MILLIS, 25L << Math.min(attempt, 6));
    try {
      Thread.sleep(1 + random.nextLong(bound));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new GitOpsException("interrupted while retrying the push", "");
    }
  }
}
