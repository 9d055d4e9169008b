package dev.trainyard.compiler.diagnostic;

import java.util.List;
import java.util.Optional;

/**
 * What a pipeline stage hands on: its value (absent when it found errors it cannot get past) and
 * every diagnostic it found. A stage reports all of its problems at once.
 *
 * @param <T> the stage's output record
 */
public record StageResult<T>(Optional<T> value, List<Diagnostic> diagnostics) {

  public StageResult {
    diagnostics = List.copyOf(diagnostics);
  }

  public static <T> StageResult<T> of(T value, List<Diagnostic> diagnostics) {
    return new StageResult<>(Optional.of(value), diagnostics);
  }

  public static <T> StageResult<T> failed(List<Diagnostic> diagnostics) {
    return new StageResult<>(Optional.empty(), diagnostics);
  }

  /** True when any diagnostic is an error, or there is no value: the pipeline stops here. */
  public boolean failed() {
    return value.isEmpty() || diagnostics.stream().anyMatch(Diagnostic::isError);
  }
}
