package dev.trainyard.compiler.resolve;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.Suggestions;
import dev.trainyard.compiler.runtime.RuntimeDefinition;
import java.util.List;
import java.util.Optional;

/**
 * Finds the runtime a train.yaml names, or the platform default, with a hint listing what is
 * installed.
 */
final class RuntimeChoice {
  private RuntimeChoice() {}

  static Optional<RuntimeDefinition> find(ResolveInput in, List<Diagnostic> problems) {
    String ref = in.spec().runtime().orElse(in.platform().defaultRuntime());
    Optional<RuntimeDefinition> found = in.catalog().find(ref);
    if (found.isPresent()) {
      return found;
    }
    String name = ref.contains("@") ? ref.substring(0, ref.indexOf('@')) : ref;
    List<String> versions = in.catalog().versionsOf(name);
    if (versions.isEmpty()) {
      problems.add(
          Diagnostic.error(
                  DiagnosticCode.UNKNOWN_RUNTIME,
                  ResolveStage.at(in.spec(), "/runtime"),
                  "/runtime",
                  "runtime \"" + name + "\" is not installed")
              .withHint(
                  closest(name, in.catalog().names())
                          .map(c -> "did you mean `" + c + "`? ")
                          .orElse("")
                      + "installed runtimes: "
                      + String.join(", ", in.catalog().names())
                      + " (`trainyard runtimes list`)"));
    } else {
      problems.add(
          Diagnostic.error(
                  DiagnosticCode.UNKNOWN_RUNTIME_VERSION,
                  ResolveStage.at(in.spec(), "/runtime"),
                  "/runtime",
                  "runtime \"" + ref + "\" is not installed")
              .withHint(
                  "installed versions of "
                      + name
                      + ": "
                      + String.join(", ", versions)
                      + "; or write `runtime: "
                      + name
                      + "` for the newest"));
    }
    return Optional.empty();
  }

  /**
   * The installed name meant: a typo (one or two edits, a swap of two letters counting one: {@code
   * troch}), else one that contains, or is contained in, what was written ({@code pytorch} → {@code
   * torch}).
   */
  static Optional<String> closest(String name, List<String> installed) {
    return Suggestions.closest(name, installed);
  }
}
