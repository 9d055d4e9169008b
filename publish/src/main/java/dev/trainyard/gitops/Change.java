package dev.trainyard.gitops;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import java.util.List;
import java.util.Optional;

/**
 * What one command wants to do to the GitOps tree, planned against one base commit: the edits, the
 * commit text, and what to tell the user. Planned again on every retry, against the new tip.
 *
 * @param edits changes to the base tree (the cluster roots are added by {@link Publisher})
 * @param text the commit message and identities; empty when there is nothing to commit
 * @param diagnostics problems found while planning; any error refuses the change (nothing is
 *     written)
 * @param summary the command's own result (the runs submitted or pruned), for output
 * @param <S> the summary's type
 */
public record Change<S>(
    List<TreeEdit> edits, Optional<CommitText> text, List<Diagnostic> diagnostics, S summary) {
  public Change {
    edits = List.copyOf(edits);
    diagnostics = List.copyOf(diagnostics);
  }

  /** Whether a diagnostic refuses the change. */
  public boolean refused() {
    return diagnostics.stream().anyMatch(Diagnostic::isError);
  }
}
