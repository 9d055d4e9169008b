package dev.trainyard.gitops.preview;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.Severity;
import java.util.ArrayList;
import java.util.List;

/**
 * Diagnostics exactly as {@code trainyard validate} prints them (the CLI's {@code
 * DiagnosticPrinter}):
 *
 * <pre>
 * jobs/a/train.yaml:4:8: error[E402]: `nodes` must be at least 1, got 0
 *     at /nodes
 *     hint: set `nodes: 1` for a single-node run
 * 1 error, 0 warnings
 * </pre>
 *
 * A CLI test keeps the two identical.
 */
public final class DiagnosticText {
  private DiagnosticText() {}

  /** The printed lines, with the closing count line when there is anything to count. */
  public static List<String> lines(List<Diagnostic> diagnostics) {
    List<String> out = new ArrayList<>();
    for (Diagnostic d : diagnostics) {
      out.add(
          d.location() + ": " + d.severity().label() + "[" + d.code().id() + "]: " + d.message());
      if (!d.pointer().isEmpty()) {
        out.add("    at " + d.pointer());
      }
      if (!d.hint().isEmpty()) {
        out.add("    hint: " + d.hint());
      }
    }
    if (!diagnostics.isEmpty()) {
      out.add(
          count(diagnostics, Severity.ERROR, "error")
              + ", "
              + count(diagnostics, Severity.WARNING, "warning"));
    }
    return out;
  }

  /** {@code N error(s)} or {@code N warning(s)}. */
  static String count(List<Diagnostic> diagnostics, Severity severity, String word) {
    long n = diagnostics.stream().filter(d -> d.severity() == severity).count();
    return n + " " + word + (n == 1 ? "" : "s");
  }
}
