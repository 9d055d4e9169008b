package dev.trainyard.compiler;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One compile: which train.yaml, with which platform and runtimes, for which commit and target.
 *
 * @param trainYaml the user's file
 * @param displayPath how diagnostics name it (as the user typed it)
 * @param platformFile platform.yaml, or empty for the embedded default
 * @param runtimesDir the platform's runtimes folder (overrides and adds to the built-ins), if any
 * @param sourceRepo clone URL instead of the git remote's
 * @param sourceCommit full commit SHA instead of HEAD
 * @param cluster target cluster instead of the platform's first
 * @param namespace target namespace instead of the first that allows the repo
 * @param attempt re-run counter (1 = first run of this commit); part of the run id
 * @param existingTree root of the GitOps tree being written to: an existing run's SSH Secret is
 *     reused from there so re-compiles are byte-identical
 * @param createdAt the submit time to record in provenance ({@code trainyard.dev/created-at});
 *     empty for compile
 * @param platformDisplay how diagnostics name {@code platformFile} when it is a copy (e.g. read
 *     from a GitOps repo: {@code platform.yaml (gitops main)}); empty: its path
 */
public record CompileRequest(
    Path trainYaml,
    String displayPath,
    Optional<Path> platformFile,
    Optional<Path> runtimesDir,
    Optional<String> sourceRepo,
    Optional<String> sourceCommit,
    Optional<String> cluster,
    Optional<String> namespace,
    int attempt,
    Optional<Path> existingTree,
    Optional<Instant> createdAt,
    Optional<String> platformDisplay) {
  public CompileRequest {
    Objects.requireNonNull(trainYaml, "trainYaml");
    Objects.requireNonNull(displayPath, "displayPath");
    if (attempt < 1) {
      throw new IllegalArgumentException("attempt must be >= 1");
    }
  }

  /** A request with defaults for everything but the file. */
  public static CompileRequest of(Path trainYaml) {
    return new CompileRequest(
        trainYaml,
        trainYaml.toString(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        1,
        Optional.empty(),
        Optional.empty(),
        Optional.empty());
  }

  /** The same request for another re-run counter. */
  public CompileRequest withAttempt(int newAttempt) {
    return new CompileRequest(
        trainYaml,
        displayPath,
        platformFile,
        runtimesDir,
        sourceRepo,
        sourceCommit,
        cluster,
        namespace,
        newAttempt,
        existingTree,
        createdAt,
        platformDisplay);
  }

  /** The same request stamped with a submit time. */
  public CompileRequest withCreatedAt(Instant time) {
    return new CompileRequest(
        trainYaml,
        displayPath,
        platformFile,
        runtimesDir,
        sourceRepo,
        sourceCommit,
        cluster,
        namespace,
        attempt,
        existingTree,
        Optional.of(time),
        platformDisplay);
  }
}
