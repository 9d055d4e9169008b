package dev.trainyard.gitops;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * Publishes a {@link Change} as one commit on a branch of the GitOps repository, so concurrent
 * submits never lose each other's runs: fetch the tip, plan the change against it, build the tree
 * (plus the cluster roots), commit, and push with compare-and-swap; when another push won the race,
 * fetch again and re-plan on the new tip, at most {@link #MAX_ATTEMPTS} times with a growing random
 * pause between attempts. A broken connection or a failing server is tried again a few times, and a
 * push whose answer was lost is never repeated blindly (see {@link #publish}).
 *
 * <pre>
 * Published&lt;List&lt;SubmittedRun&gt;&gt; done =
 *     new Publisher(repo, "main").publish(base -&gt; plan(base), false);
 * </pre>
 */
public final class Publisher {
  /** Attempts before giving up on a branch that keeps moving (an environment problem, exit 3). */
  public static final int MAX_ATTEMPTS = 40;

  /** Transient failures (a reset, a timeout, a 5xx) one publish tries again after, in all. */
  public static final int MAX_TRANSIENT_RETRIES = 3;

  private static final long MAX_PAUSE_MILLIS = 1_000;

  /** The first pause after a transient failure; it doubles with each (1, 2, 4 s). */
  long retryUnitMillis = 1_000;

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
   * pushed, and the tree's objects stay in memory, {@link GitOpsRepository#applyUnstored}, not in
   * the mirror).
   *
   * <p>A fetch or push that fails {@linkplain GitOpsException#isTransient() transiently} (a reset,
   * no answer within the timeout, a 5xx or 429) is tried again after 1, 2 and 4 s, at most {@value
   * #MAX_TRANSIENT_RETRIES} times in all. A push whose answer was lost may have landed, so it is
   * never simply sent again: the branch is fetched first, and when it holds the commit (as its tip
   * or below another push) the publish is done; else the change is planned again on the tip, and
   * the new push's compare-and-swap (from the same base) lets at most one of the two land. Each
   * retry is a {@linkplain PublishProgress#note note}.
   *
   * @throws GitOpsException when the repository cannot be read or written, the branch moved on
   *     every attempt, or transient failures went on past the retries (the message then says when a
   *     push's outcome is unknown)
   */
  public <S> Published<S> publish(Planner<S> planner, boolean dryRun) throws GitOpsException {
    Map<String, Sent<S>> unanswered = new LinkedHashMap<>();
    int failures = 0;
    int attempt = 1;
    while (true) {
      if (unanswered.isEmpty()) {
        progress.publishing(repo.shown(), branch);
      }
      Optional<Snapshot> base;
      try {
        base = repo.fetch(branch);
      } catch (GitOpsException e) {
        failures = retryOrThrow(e, failures, unanswered);
        continue;
      }
      Optional<Published<S>> landed = landed(base, unanswered, attempt);
      if (landed.isPresent()) {
        return landed.get();
      }
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
      Snapshot next = dryRun ? repo.applyUnstored(base, edits) : repo.apply(base, edits);
      Optional<String> commit = repo.commit(base, next, change.text().get());
      if (commit.isEmpty() || dryRun) {
        return new Published<>(change, Optional.empty(), false, attempt, Optional.of(next));
      }
      beforePush.run(attempt);
      progress.startPush(repo.shown(), branch, commit.get());
      GitOpsRepository.PushOutcome outcome;
      try {
        outcome = repo.push(commit.get(), branch, base);
      } catch (GitOpsException e) {
        if (e.isTransient()) {
          unanswered.put(commit.get(), new Sent<>(change, next));
        }
        failures = retryOrThrow(e, failures, unanswered);
        continue;
      }
      if (outcome == GitOpsRepository.PushOutcome.PUSHED) {
        progress.answered(true);
        return new Published<>(change, commit, true, attempt, Optional.of(next));
      }
      if (unanswered.isEmpty()) {
        progress.answered(false);
      }
      if (attempt == MAX_ATTEMPTS) {
        throw new GitOpsException(
            "the branch "
                + branch
                + " moved on each of "
                + MAX_ATTEMPTS
                + " attempts to push; nothing was written",
            "another process is pushing to it constantly; try again later");
      }
      pause(attempt);
      attempt++;
    }
  }

  /** A commit pushed without an answer, and what it held. */
  private record Sent<S>(Change<S> change, Snapshot after) {}

  /**
   * The publish of a commit sent earlier without an answer, when the freshly fetched {@code base}
   * holds it.
   */
  private <S> Optional<Published<S>> landed(
      Optional<Snapshot> base, Map<String, Sent<S>> unanswered, int attempt)
      throws GitOpsException {
    Optional<String> tip = base.flatMap(Snapshot::commit);
    if (tip.isEmpty()) {
      return Optional.empty();
    }
    for (Map.Entry<String, Sent<S>> sent : unanswered.entrySet()) {
      if (repo.contains(tip.get(), sent.getKey())) {
        progress.pushing(repo.shown(), branch, sent.getKey());
        progress.answered(true);
        progress.note(
            branch
                + " of "
                + repo.shown()
                + " holds "
                + sent.getKey().substring(0, 12)
                + ": the push had landed, so it was not sent again");
        return Optional.of(
            new Published<>(
                sent.getValue().change(),
                Optional.of(sent.getKey()),
                true,
                attempt,
                Optional.of(sent.getValue().after())));
      }
    }
    return Optional.empty();
  }

  /**
   * After {@code e}: pauses and returns the failures so far when another try is safe and allowed,
   * else throws what the user reads (saying so when a push's outcome is unknown).
   */
  private int retryOrThrow(GitOpsException e, int failures, Map<String, ?> unanswered)
      throws GitOpsException {
    if (!e.isTransient()) {
      if (unanswered.isEmpty()) {
        throw e;
      }
      throw new GitOpsException(e.getMessage() + "; " + unknown(unanswered), e.hint(), e);
    }
    if (failures >= MAX_TRANSIENT_RETRIES) {
      String tries = "; tried " + (failures + 1) + " times";
      if (unanswered.isEmpty()) {
        throw new GitOpsException(e.getMessage() + tries, e.hint(), e);
      }
      throw new GitOpsException(
          e.getMessage() + tries + "; " + unknown(unanswered),
          "check with git ls-remote "
              + repo.shown()
              + " refs/heads/"
              + branch
              + " before running it again",
          e);
    }
    long pause = retryUnitMillis << failures;
    progress.note(
        e.getMessage()
            + (unanswered.isEmpty()
                ? ""
                : " (the push of "
                    + last(unanswered).substring(0, 12)
                    + " got no answer: the branch is read before any new push)")
            + "; trying again in "
            + pauseText(pause)
            + " ("
            + (failures + 1)
            + " of "
            + MAX_TRANSIENT_RETRIES
            + ")");
    try {
      Thread.sleep(pause);
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
      throw new GitOpsException("interrupted while retrying", "", ie);
    }
    return failures + 1;
  }

  private static String pauseText(long millis) {
    return millis % 1_000 == 0 ? millis / 1_000 + " s" : millis + " ms";
  }

  private String unknown(Map<String, ?> unanswered) {
    return "whether the push of " + last(unanswered) + " landed is unknown";
  }

  private static String last(Map<String, ?> unanswered) {
    String last = "";
    for (String c : unanswered.keySet()) {
      last = c;
    }
    return last;
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
