package dev.trainyard.gitops;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import java.util.List;
import java.util.Optional;

/**
 * What a prune did.
 *
 * @param pruned the runs removed (or, for a dry run, that would be), sorted
 * @param diagnostics unknown run names (errors: then nothing is removed), runs without a creation
 *     time (warnings)
 * @param commit the GitOps commit's SHA when one was pushed
 * @param pushed whether the branch no longer holds the runs
 * @param attempts how often the change was planned
 */
public record PruneResult(
    List<RunFolder> pruned,
    List<Diagnostic> diagnostics,
    Optional<String> commit,
    boolean pushed,
    int attempts) {
  public PruneResult {
    pruned = List.copyOf(pruned);
    diagnostics = diagnostics.stream().distinct().sorted(Diagnostic.ORDER).toList();
  }

  public boolean hasErrors() {
    return diagnostics.stream().anyMatch(Diagnostic::isError);
  }
}
