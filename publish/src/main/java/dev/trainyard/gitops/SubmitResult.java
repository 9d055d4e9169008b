package dev.trainyard.gitops;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import java.util.List;
import java.util.Optional;

/**
 * What a submit did.
 *
 * @param runs one entry per train.yaml that compiled, in the order given
 * @param diagnostics every compile's diagnostics, sorted; any error means nothing was written
 * @param commit the GitOps commit's SHA when one was pushed
 * @param pushed whether the branch now holds the new runs
 * @param attempts how often the change was planned (more than 1 after lost push races)
 * @param dryRun whether this was {@code --dry-run}
 */
public record SubmitResult(
    List<SubmittedRun> runs,
    List<Diagnostic> diagnostics,
    Optional<String> commit,
    boolean pushed,
    int attempts,
    boolean dryRun) {
  public SubmitResult {
    runs = List.copyOf(runs);
    diagnostics = diagnostics.stream().distinct().sorted(Diagnostic.ORDER).toList();
  }

  public boolean hasErrors() {
    return diagnostics.stream().anyMatch(Diagnostic::isError);
  }

  /** The runs this submit wrote (or, for a dry run, would write). */
  public List<SubmittedRun> newRuns() {
    return runs.stream().filter(r -> r.outcome() == SubmittedRun.Outcome.NEW).toList();
  }
}
