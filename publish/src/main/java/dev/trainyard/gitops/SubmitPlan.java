package dev.trainyard.gitops;

import java.util.Objects;

/**
 * What a submit would do, planned but not pushed ({@link Submitter#plan}): the GitOps tree it
 * starts from, the tree it would commit, and the result as {@code --dry-run} reports it.
 *
 * @param base the branch tip (the empty snapshot for an empty repository)
 * @param after the tree after the submit; {@code base} itself when nothing would change or a
 *     compile failed
 * @param result the runs, their outcome and every diagnostic
 */
public record SubmitPlan(Snapshot base, Snapshot after, SubmitResult result) {
  public SubmitPlan {
    Objects.requireNonNull(base, "base");
    Objects.requireNonNull(after, "after");
    Objects.requireNonNull(result, "result");
  }
}
