package dev.trainyard.compiler.diagnostic;

import java.util.Comparator;
import java.util.Objects;

/**
 * One problem found in the user's input, reported instead of thrown.
 *
 * <p>Printed as
 *
 * <pre>
 * train.yaml:4:8: error[E402]: `nodes` must be at least 1, got 0
 *     at /nodes
 *     hint: set `nodes: 1` for a single-node run
 * </pre>
 *
 * @param severity error, warning or info
 * @param code stable code (see {@link DiagnosticCode}); tools and tests match on it, never on the
 *     message
 * @param message what is wrong, quoting the user's value ("`nodes` must be at least 1, got 0")
 * @param location where, in the user's file
 * @param pointer JSON pointer of the field in that file ({@code /resources/gpus}), or "" for the
 *     whole file
 * @param hint what the user can do about it, or "" when there is nothing to add
 */
public record Diagnostic(
    Severity severity,
    DiagnosticCode code,
    String message,
    SourceLocation location,
    String pointer,
    String hint) {

  /** Sort order for reports: file, line, column, code, message (CUE's "sanitize"). */
  public static final Comparator<Diagnostic> ORDER =
      Comparator.comparing(Diagnostic::location)
          .thenComparing(d -> d.code().id())
          .thenComparing(Diagnostic::message);

  public Diagnostic {
    Objects.requireNonNull(severity, "severity");
    Objects.requireNonNull(code, "code");
    Objects.requireNonNull(message, "message");
    Objects.requireNonNull(location, "location");
    pointer = pointer == null ? "" : pointer;
    hint = hint == null ? "" : hint;
  }

  /** An error: stops the pipeline after the stage that reports it. */
  public static Diagnostic error(
      DiagnosticCode code, SourceLocation at, String pointer, String message) {
    return new Diagnostic(Severity.ERROR, code, message, at, pointer, "");
  }

  /** A warning: printed, never stops the pipeline. */
  public static Diagnostic warning(
      DiagnosticCode code, SourceLocation at, String pointer, String message) {
    return new Diagnostic(Severity.WARNING, code, message, at, pointer, "");
  }

  /** The same diagnostic with a hint ("perhaps you should…", printed on its own line). */
  public Diagnostic withHint(String newHint) {
    return new Diagnostic(severity, code, message, location, pointer, newHint);
  }

  public boolean isError() {
    return severity == Severity.ERROR;
  }
}
