package dev.trainyard.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticPrinter;
import java.io.PrintWriter;
import java.util.List;
import java.util.function.Consumer;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * {@code --output text|json}: how compile, validate, submit, prune, check-secrets and platform
 * render print their diagnostics and result.
 */
final class OutputOptions {
  @Option(
      names = {"-o", "--output"},
      paramLabel = "FORMAT",
      defaultValue = "text",
      description = "text or json (default: ${DEFAULT-VALUE})")
  Format format;

  /** Whether {@code --output json} was given. */
  boolean json() {
    return format == Format.json;
  }

  /**
   * Prints {@code diagnostics} and a command's result: with json one object on stdout, the
   * diagnostics' fields ({@link DiagnosticPrinter#toJson}) plus what {@code jsonResult} adds; with
   * text the diagnostics on stderr, then what {@code textResult} prints on stdout.
   */
  void print(
      CommandSpec spec,
      List<Diagnostic> diagnostics,
      Consumer<ObjectNode> jsonResult,
      Consumer<PrintWriter> textResult) {
    PrintWriter out = spec.commandLine().getOut();
    if (json()) {
      ObjectNode json = DiagnosticPrinter.toJson(diagnostics);
      jsonResult.accept(json);
      out.println(json.toPrettyString());
    } else {
      DiagnosticPrinter.printText(diagnostics, spec.commandLine().getErr());
      textResult.accept(out);
    }
    out.flush();
  }

  /** Output formats of {@code --output}. */
  enum Format {
    text,
    json
  }
}
