package dev.trainyard.compiler.diagnostic;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The one way diagnostics are printed, by the CLI, the pull-request preview and the golden cases:
 * as compilers do, or as one JSON document for bots that post pull-request comments.
 *
 * <pre>
 * jobs/a/train.yaml:4:8: error[E402]: `nodes` must be at least 1, got 0
 *     at /nodes
 *     hint: set `nodes: 1` for a single-node run
 * 1 error, 0 warnings
 * </pre>
 */
public final class DiagnosticPrinter {
  private DiagnosticPrinter() {}

  /** The text form's lines, with the closing count line when there is anything to count. */
  public static List<String> lines(List<Diagnostic> diagnostics) {
    List<String> out = new ArrayList<>();
    for (Diagnostic d : diagnostics) {
      out.add(
          printable(d.location().toString())
              + ": "
              + d.severity().label()
              + "["
              + d.code().id()
              + "]: "
              + printable(d.message()));
      if (!d.pointer().isEmpty()) {
        out.add("    at " + printable(d.pointer()));
      }
      if (!d.hint().isEmpty()) {
        out.add("    hint: " + printable(d.hint()));
      }
    }
    if (!diagnostics.isEmpty()) {
      out.add(counts(diagnostics));
    }
    return out;
  }

  /**
   * {@code text} with every control character but the tab (C0, DEL, C1) written as {@code \\uXXXX}:
   * a file name or a user's value quoted in a diagnostic must not move the terminal's cursor,
   * change its colours (ESC sequences) or start a line of its own that reads like another
   * diagnostic.
   */
  static String printable(String text) {
    StringBuilder out = null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean control = (c < 0x20 && c != '\t') || (c >= 0x7F && c <= 0x9F);
      if (control && out == null) {
        out = new StringBuilder(text.length() + 16).append(text, 0, i);
      }
      if (control) {
        out.append(String.format(Locale.ROOT, "\\u%04X", (int) c));
      } else if (out != null) {
        out.append(c);
      }
    }
    return out == null ? text : out.toString();
  }

  /** {@link #lines} printed to {@code out}, then flushed. */
  public static void printText(List<Diagnostic> diagnostics, PrintWriter out) {
    lines(diagnostics).forEach(out::println);
    out.flush();
  }

  /** "2 errors, 1 warning": the closing count line. */
  public static String counts(List<Diagnostic> diagnostics) {
    return count(diagnostics, Severity.ERROR, "error")
        + ", "
        + count(diagnostics, Severity.WARNING, "warning");
  }

  /**
   * JSON form: {@code {"diagnostics": [{severity, code, message, file, line, column, pointer,
   * hint}, ...], "errors": N, "warnings": N}}.
   */
  public static ObjectNode toJson(List<Diagnostic> diagnostics) {
    ObjectNode root = JsonNodeFactory.instance.objectNode();
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
