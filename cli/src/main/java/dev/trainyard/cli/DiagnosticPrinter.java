package dev.trainyard.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.Severity;
import dev.trainyard.compiler.manifest.CanonicalJson;
import java.io.PrintWriter;
import java.util.List;

/**
 * Prints diagnostics as compilers do ({@code file:line:col: error[E402]: message}, then the JSON
 * pointer and the hint indented), or as one JSON document for bots that post PR comments.
 */
final class DiagnosticPrinter {
  private DiagnosticPrinter() {}

  /** Text form, with a closing count line when there is anything to count. */
  static void printText(List<Diagnostic> diagnostics, PrintWriter err) {
    for (Diagnostic d : diagnostics) {
      err.println(
          d.location() + ": " + d.severity().label() + "[" + d.code().id() + "]: " + d.message());
      if (!d.pointer().isEmpty()) {
        err.println("    at " + d.pointer());
      }
      if (!d.hint().isEmpty()) {
        err.println("    hint: " + d.hint());
      }
    }
    if (!diagnostics.isEmpty()) {
      err.println(
          count(diagnostics, Severity.ERROR, "error")
              + ", "
              + count(diagnostics, Severity.WARNING, "warning"));
    }
    err.flush();
  }

  /**
   * JSON form: {@code {"diagnostics": [...], "errors": N, "warnings": N}} plus {@code extra}'s
   * fields.
   */
  static ObjectNode toJson(List<Diagnostic> diagnostics) {
    ObjectNode root = CanonicalJson.mapper().createObjectNode();
    ArrayNode list = root.putArray("diagnostics");
    for (Diagnostic d : diagnostics) {
      ObjectNode o = list.addObject();
      o.put("severity", d.severity().label())
          .put("code", d.code().id())
          .put("message", d.message());
      o.put("file", d.location().file())
          .put("line", d.location().line())
          .put("column", d.location().column());
      o.put("pointer", d.pointer()).put("hint", d.hint());
    }
    root.put("errors", diagnostics.stream().filter(Diagnostic::isError).count());
    root.put(
        "warnings", diagnostics.stream().filter(d -> d.severity() == Severity.WARNING).count());
    return root;
  }

  private static String count(List<Diagnostic> diagnostics, Severity severity, String word) {
    long n = diagnostics.stream().filter(d -> d.severity() == severity).count();
    return n + " " + word + (n == 1 ? "" : "s");
  }
}
