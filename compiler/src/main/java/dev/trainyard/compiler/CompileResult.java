package dev.trainyard.compiler;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.manifest.OutputTree;
import dev.trainyard.compiler.resolve.ResolvedJob;
import java.util.List;
import java.util.Optional;

/**
 * What a compile produced: the output tree when no stage failed, and every diagnostic, sorted.
 *
 * @param tree the files to write, absent on errors
 * @param job the resolved job, when resolution got that far (for summaries)
 * @param diagnostics errors and warnings, sorted by file, line, column
 */
public record CompileResult(
    Optional<OutputTree> tree, Optional<ResolvedJob> job, List<Diagnostic> diagnostics) {
  public CompileResult {
    diagnostics = diagnostics.stream().distinct().sorted(Diagnostic.ORDER).toList();
  }

  public boolean hasErrors() {
    return tree.isEmpty() || diagnostics.stream().anyMatch(Diagnostic::isError);
  }
}
