package dev.trainyard.compiler.testing;

import dev.trainyard.compiler.CompileRequest;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;

/**
 * A compile of one train.yaml with the request fields the CLI flags set ({@code --platform}, {@code
 * --runtimes}, {@code --source-commit}, {@code --cluster}, {@code --namespace}); seeded keys and a
 * fixed clock as in {@link TrainProject#compile()}.
 *
 * <pre>
 * CompileResult r = CompileCall.of(project.trainYaml()).platformText(dir, yaml).namespace("team-b").compile();
 * </pre>
 *
 * @param trainYaml the file to compile, shown as {@code train.yaml}
 * @param platform platform.yaml, or empty for the embedded default
 * @param runtimesDir extra runtimes folder, if any
 * @param sourceCommit the commit to record instead of HEAD, if any
 * @param cluster target cluster, if any
 * @param namespace target namespace, if any
 */
public record CompileCall(
    Path trainYaml,
    Optional<Path> platform,
    Optional<Path> runtimesDir,
    Optional<String> sourceCommit,
    Optional<String> cluster,
    Optional<String> namespace) {

  public static CompileCall of(Path trainYaml) {
    return new CompileCall(
        trainYaml,
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty());
  }

  /** Writes {@code yaml} to {@code dir/platform.yaml} and uses it. */
  public CompileCall platformText(Path dir, String yaml) {
    try {
      Files.createDirectories(dir);
      Path file = Files.writeString(dir.resolve("platform.yaml"), yaml, StandardCharsets.UTF_8);
      return new CompileCall(
          trainYaml, Optional.of(file), runtimesDir, sourceCommit, cluster, namespace);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public CompileCall runtimes(Path dir) {
    return new CompileCall(trainYaml, platform, Optional.of(dir), sourceCommit, cluster, namespace);
  }

  public CompileCall commit(String sha) {
    return new CompileCall(trainYaml, platform, runtimesDir, Optional.of(sha), cluster, namespace);
  }

  public CompileCall cluster(String name) {
    return new CompileCall(
        trainYaml, platform, runtimesDir, sourceCommit, Optional.of(name), namespace);
  }

  public CompileCall namespace(String name) {
    return new CompileCall(
        trainYaml, platform, runtimesDir, sourceCommit, cluster, Optional.of(name));
  }

  public CompileResult compile() {
    CompileRequest request =
        CompileRequest.builder(trainYaml)
            .displayPath("train.yaml")
            .platformFile(platform)
            .runtimesDir(runtimesDir)
            .sourceCommit(sourceCommit)
            .cluster(cluster)
            .namespace(namespace)
            .build();
    return new Compiler(
            new SshSecretProvider(
                TrainProject.seeded(),
                Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC)))
        .compile(request);
  }
}
