package dev.trainyard.gitops;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The platform team's files as a compile reads them: {@code --platform}/{@code --runtimes} when
 * given, else {@code platform.yaml} and {@code runtimes/} at the GitOps repository's root (copied
 * from the commit into a private temporary folder, removed on {@link #close()}), else the embedded
 * default platform and the built-in runtimes.
 *
 * @param platform the platform.yaml to compile with, if any
 * @param platformDisplay how diagnostics name it when it came from the GitOps repo
 * @param runtimes the runtimes folder to compile with, if any
 */
record GitOpsPlatform(
    Optional<Path> platform,
    Optional<String> platformDisplay,
    Optional<Path> runtimes,
    Optional<Path> temp)
    implements AutoCloseable {
  /** How diagnostics name the GitOps repository's platform.yaml. */
  static final String DISPLAY = "platform.yaml (GitOps repo)";

  static GitOpsPlatform of(SubmitRequest request, Snapshot tree) {
    return of(
        request.platform().map(request::resolve), request.runtimes().map(request::resolve), tree);
  }

  /**
   * The platform files of {@code tree}, each replaced by its override when one is given.
   *
   * @throws UncheckedIOException when the temporary copy cannot be written
   */
  static GitOpsPlatform of(
      Optional<Path> platformOverride, Optional<Path> runtimesOverride, Snapshot tree) {
    Optional<String> platformText =
        platformOverride.isPresent() ? Optional.empty() : tree.read("platform.yaml");
    Map<String, String> runtimeFiles =
        runtimesOverride.isPresent() ? Map.of() : tree.folder("runtimes");
    if (platformText.isEmpty() && runtimeFiles.isEmpty()) {
      return new GitOpsPlatform(
          platformOverride, Optional.empty(), runtimesOverride, Optional.empty());
    }
    try {
      Path temp = Files.createTempDirectory("trainyard-platform-");
      Optional<Path> platform = platformOverride;
      if (platformText.isPresent()) {
        platform =
            Optional.of(
                Files.writeString(
                    temp.resolve("platform.yaml"), platformText.get(), StandardCharsets.UTF_8));
      }
      Optional<Path> runtimes = runtimesOverride;
      if (!runtimeFiles.isEmpty()) {
        runtimes = Optional.of(temp.resolve("runtimes"));
        for (Map.Entry<String, String> f : runtimeFiles.entrySet()) {
          Path file = temp.resolve("runtimes").resolve(f.getKey()).normalize();
          if (!file.startsWith(temp)) {
            continue;
          }
          Files.createDirectories(file.getParent());
          Files.writeString(file, f.getValue(), StandardCharsets.UTF_8);
        }
      }
      return new GitOpsPlatform(
          platform, platformText.map(t -> DISPLAY), runtimes, Optional.of(temp));
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot copy the GitOps repo's platform files to a temporary folder", e);
    }
  }

  /**
   * {@code diagnostics} with each location inside the temporary copy named from the GitOps repo's
   * root instead ({@code /tmp/trainyard-platform-…/runtimes/x/1.0/runtime.yaml} becomes {@code
   * runtimes/x/1.0/runtime.yaml}), in the location and the message; others unchanged.
   */
  List<Diagnostic> repoRelative(List<Diagnostic> diagnostics) {
    if (temp.isEmpty()) {
      return diagnostics;
    }
    String prefix = temp.get().toString() + File.separator;
    return diagnostics.stream()
        .map(
            d -> {
              String file = d.location().file();
              if (!file.startsWith(prefix) && !d.message().contains(prefix)) {
                return d;
              }
              var at =
                  new SourceLocation(
                      file.startsWith(prefix) ? file.substring(prefix.length()) : file,
                      d.location().line(),
                      d.location().column());
              return new Diagnostic(
                  d.severity(),
                  d.code(),
                  d.message().replace(prefix, ""),
                  at,
                  d.pointer(),
                  d.hint());
            })
        .toList();
  }

  @Override
  public void close() {
    if (temp.isEmpty()) {
      return;
    }
    try (Stream<Path> files = Files.walk(temp.get())) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // A leftover temp folder holds only the platform's own public files.
    }
  }
}
