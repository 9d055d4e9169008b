package dev.trainyard.gitops.preview;

import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.platform.PlatformLoader;
import dev.trainyard.gitops.Snapshot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The platform.yaml a preview checks queues, quotas, GPU types and the secrets policy against:
 * {@code --platform} when given, else {@code platform.yaml} at the root of a GitOps tree, else the
 * embedded default. Loaded with the compiler's own loader, so its problems are the same diagnostics
 * {@code validate} prints.
 */
final class PreviewPlatform {
  private PreviewPlatform() {}

  /**
   * The platform, or the embedded default with the broken file's diagnostics.
   *
   * @param override platform.yaml instead of the tree's, read resolved against {@code
   *     workingDirectory} and named as given
   * @param workingDirectory what a relative {@code override} is relative to (the empty path: the
   *     process's working directory)
   * @param tree where {@code platform.yaml} is read from when there is no override
   */
  static StageResult<Platform> load(Optional<Path> override, Path workingDirectory, Snapshot tree) {
    PlatformLoader loader = PlatformLoader.standard();
    Optional<String> text = override.isPresent() ? Optional.empty() : tree.read("platform.yaml");
    StageResult<Platform> result =
        text.isPresent()
            ? fromText(loader, text.get())
            : loader.load(
                override.map(workingDirectory::resolve),
                override.map(Path::toString).orElse(PlatformLoader.EMBEDDED_NAME));
    if (result.value().isPresent()) {
      return result;
    }
    Platform fallback =
        loader.load(Optional.empty(), PlatformLoader.EMBEDDED_NAME).value().orElseThrow();
    return StageResult.of(fallback, result.diagnostics());
  }

  private static StageResult<Platform> fromText(PlatformLoader loader, String text) {
    try {
      Path dir = Files.createTempDirectory("trainyard-preview-");
      try {
        Path file = Files.writeString(dir.resolve("platform.yaml"), text, StandardCharsets.UTF_8);
        return loader.load(Optional.of(file), "platform.yaml (GitOps repo)");
      } finally {
        for (Path p : List.of(dir.resolve("platform.yaml"), dir)) {
          Files.deleteIfExists(p);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot copy platform.yaml to a temporary folder", e);
    }
  }
}
