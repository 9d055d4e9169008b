package dev.trainyard.compiler.fuzz;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * What every compile must answer, whatever its input: a failure is diagnostics (never an empty
 * error list), each with a file, and with a line unless the problem is the whole file (empty, too
 * large, not UTF-8, unreadable, not in a repository); a success has an output tree.
 */
final class DiagnosticContract {
  /** Problems that concern a whole file or the environment, which have no line to point at. */
  static final Set<DiagnosticCode> WHOLE_FILE =
      EnumSet.of(
          DiagnosticCode.EMPTY_FILE,
          DiagnosticCode.FILE_TOO_LARGE,
          DiagnosticCode.FILE_UNREADABLE,
          DiagnosticCode.NOT_UTF8,
          DiagnosticCode.SOURCE_NOT_COMMITTED,
          DiagnosticCode.SOURCE_NO_REMOTE);

  private DiagnosticContract() {}

  static Optional<String> violation(CompileResult result) {
    boolean errors = result.diagnostics().stream().anyMatch(Diagnostic::isError);
    if (errors == result.tree().isPresent()) {
      return Optional.of(
          (errors ? "an output tree despite errors: " : "no output tree and no error to say why: ")
              + result.diagnostics());
    }
    for (Diagnostic d : result.diagnostics()) {
      if (d.location().file().isBlank()) {
        return Optional.of("a diagnostic without a file: " + d);
      }
      if (d.isError() && d.location().line() == 0 && !WHOLE_FILE.contains(d.code())) {
        return Optional.of("an error without a line: " + d);
      }
      if (d.message().isBlank()) {
        return Optional.of("a diagnostic without a message: " + d);
      }
    }
    return Optional.empty();
  }
}
