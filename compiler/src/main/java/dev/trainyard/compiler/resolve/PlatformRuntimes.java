package dev.trainyard.compiler.resolve;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.Suggestions;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.runtime.RuntimeCatalog;
import java.util.List;

/**
 * The platform's own references to runtimes, checked when the platform and the runtimes are loaded
 * (before any train.yaml is looked at): an unknown {@code defaultRuntime} is the platform team's
 * mistake, reported at its line in platform.yaml, not at the user's train.yaml.
 */
public final class PlatformRuntimes {
  private PlatformRuntimes() {}

  /** E304 at {@code defaultRuntime} when the catalog has no such runtime. */
  public static List<Diagnostic> check(Platform platform, RuntimeCatalog catalog) {
    String ref = platform.defaultRuntime();
    if (catalog.find(ref).isPresent()) {
      return List.of();
    }
    String name = ref.contains("@") ? ref.substring(0, ref.indexOf('@')) : ref;
    return List.of(
        Diagnostic.error(
                DiagnosticCode.INVALID_PLATFORM,
                platform.map().at("/defaultRuntime"),
                "/defaultRuntime",
                "`defaultRuntime` \""
                    + ref
                    + "\" is not an installed runtime, so every train.yaml without `runtime:` fails")
            .withHint(
                Suggestions.closest(name, catalog.names())
                        .map(c -> "did you mean `" + c + "`? ")
                        .orElse("")
                    + "installed runtimes: "
                    + String.join(", ", catalog.names())));
  }
}
