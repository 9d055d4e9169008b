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
 * @param platformProvenance the queue objects' {@code trainyard.dev/platform} annotation when
 *     {@code platformFile} is a copy (e.g. {@code platform.yaml (GitOps repo)}); empty: its path
 *     from the root of the git work tree that holds it, else its file name, so that the same
 *     platform.yaml gives the same bytes whatever the working directory or checkout path
 * @param sourceBranch the source branch the run comes from, part of its checkpoint key (job name +
 *     branch); empty: the key has no branch
 * @param fresh whether a checkpointed run starts over instead of resuming from the job's last
 *     checkpoint ({@code --fresh})
 * @param workingTree whether the run uses the files as they are on disk, not a commit ({@code run
 *     --local --working-tree}): train.yaml need not match {@code sourceCommit} then
 * @param workingDirectory the folder the caller's relative paths and diagnostics' file names are
 *     relative to (the CLI's working directory): an absolute {@code platformFile} is named relative
 *     to it when it lies near it, and outside a git repository (W315) train.yaml's provenance path
 *     is taken below it. The default, the empty path, stands for the process's working directory;
 *     the paths in this request are opened as given, so a caller with another working directory
 *     passes them resolved against it
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
    Optional<String> platformDisplay,
    Optional<String> platformProvenance,
    Optional<String> sourceBranch,
    boolean fresh,
    boolean workingTree,
    Path workingDirectory) {
  public CompileRequest {
    Objects.requireNonNull(trainYaml, "trainYaml");
    Objects.requireNonNull(displayPath, "displayPath");
    Objects.requireNonNull(workingDirectory, "workingDirectory");
    if (attempt < 1) {
      throw new IllegalArgumentException("attempt must be >= 1");
    }
  }

  /** A request with defaults for everything but the file. */
  public static CompileRequest of(Path trainYaml) {
    return builder(trainYaml).build();
  }

  /**
   * A builder for a request about {@code trainYaml}: named like the file, embedded platform,
   * built-in runtimes, HEAD of its repository, the platform's first cluster and namespace, attempt
   * 1.
   *
   * <pre>
   * CompileRequest.builder(path).platformFile(platformYaml).sourceRepo(url).attempt(2).build()
   * </pre>
   */
  public static Builder builder(Path trainYaml) {
    return new Builder(trainYaml);
  }

  /** A builder holding this request's values. */
  public Builder toBuilder() {
    return new Builder(trainYaml)
        .displayPath(displayPath)
        .platformFile(platformFile)
        .runtimesDir(runtimesDir)
        .sourceRepo(sourceRepo)
        .sourceCommit(sourceCommit)
        .cluster(cluster)
        .namespace(namespace)
        .attempt(attempt)
        .existingTree(existingTree)
        .createdAt(createdAt)
        .platformDisplay(platformDisplay)
        .platformProvenance(platformProvenance)
        .sourceBranch(sourceBranch)
        .fresh(fresh)
        .workingTree(workingTree)
        .workingDirectory(workingDirectory);
  }

  /** The same request for another re-run counter. */
  public CompileRequest withAttempt(int newAttempt) {
    return toBuilder().attempt(newAttempt).build();
  }

  /** The same request stamped with a submit time. */
  public CompileRequest withCreatedAt(Instant time) {
    return toBuilder().createdAt(time).build();
  }

  /** Builds a {@link CompileRequest}; each setter takes the value or an Optional of it. */
  public static final class Builder {
    private final Path trainYaml;
    private String displayPath;
    private Optional<Path> platformFile = Optional.empty();
    private Optional<Path> runtimesDir = Optional.empty();
    private Optional<String> sourceRepo = Optional.empty();
    private Optional<String> sourceCommit = Optional.empty();
    private Optional<String> cluster = Optional.empty();
    private Optional<String> namespace = Optional.empty();
    private int attempt = 1;
    private Optional<Path> existingTree = Optional.empty();
    private Optional<Instant> createdAt = Optional.empty();
    private Optional<String> platformDisplay = Optional.empty();
    private Optional<String> platformProvenance = Optional.empty();
    private Optional<String> sourceBranch = Optional.empty();
    private boolean fresh;
    private boolean workingTree;
    private Path workingDirectory = Path.of("");

    private Builder(Path trainYaml) {
      this.trainYaml = Objects.requireNonNull(trainYaml, "trainYaml");
      this.displayPath = trainYaml.toString();
    }

    /** How diagnostics name the train.yaml (default: its path). */
    public Builder displayPath(String value) {
      displayPath = value;
      return this;
    }

    /** platform.yaml; empty: the embedded default. */
    public Builder platformFile(Optional<Path> value) {
      platformFile = value;
      return this;
    }

    public Builder platformFile(Path value) {
      return platformFile(Optional.of(value));
    }

    /** The platform's runtimes folder. */
    public Builder runtimesDir(Optional<Path> value) {
      runtimesDir = value;
      return this;
    }

    public Builder runtimesDir(Path value) {
      return runtimesDir(Optional.of(value));
    }

    /** Clone URL instead of the git remote's. */
    public Builder sourceRepo(Optional<String> value) {
      sourceRepo = value;
      return this;
    }

    public Builder sourceRepo(String value) {
      return sourceRepo(Optional.of(value));
    }

    /** Full commit SHA instead of HEAD. */
    public Builder sourceCommit(Optional<String> value) {
      sourceCommit = value;
      return this;
    }

    public Builder sourceCommit(String value) {
      return sourceCommit(Optional.of(value));
    }

    /** Target cluster instead of the platform's first. */
    public Builder cluster(Optional<String> value) {
      cluster = value;
      return this;
    }

    public Builder cluster(String value) {
      return cluster(Optional.of(value));
    }

    /** Target namespace instead of the first that allows the repo. */
    public Builder namespace(Optional<String> value) {
      namespace = value;
      return this;
    }

    public Builder namespace(String value) {
      return namespace(Optional.of(value));
    }

    /** Re-run counter, at least 1. */
    public Builder attempt(int value) {
      attempt = value;
      return this;
    }

    /** Root of the GitOps tree whose existing run Secret is reused. */
    public Builder existingTree(Optional<Path> value) {
      existingTree = value;
      return this;
    }

    public Builder existingTree(Path value) {
      return existingTree(Optional.of(value));
    }

    /** Submit time for provenance. */
    public Builder createdAt(Optional<Instant> value) {
      createdAt = value;
      return this;
    }

    public Builder createdAt(Instant value) {
      return createdAt(Optional.of(value));
    }

    /** How diagnostics name {@code platformFile} when it is a copy. */
    public Builder platformDisplay(Optional<String> value) {
      platformDisplay = value;
      return this;
    }

    public Builder platformDisplay(String value) {
      return platformDisplay(Optional.of(value));
    }

    /**
     * The queue objects' {@code trainyard.dev/platform} annotation when {@code platformFile} is a
     * copy; empty: derived from its path.
     */
    public Builder platformProvenance(Optional<String> value) {
      platformProvenance = value;
      return this;
    }

    /** The source branch, part of a checkpoint key. */
    public Builder sourceBranch(Optional<String> value) {
      sourceBranch = value;
      return this;
    }

    /** Start a checkpointed run over instead of resuming ({@code --fresh}). */
    public Builder fresh(boolean value) {
      fresh = value;
      return this;
    }

    /**
     * The run uses the files as they are on disk ({@code run --local --working-tree}): an edited or
     * uncommitted train.yaml is not an error then.
     */
    public Builder workingTree(boolean value) {
      workingTree = value;
      return this;
    }

    /**
     * The folder relative file names are shown against (default: the empty path, the process's
     * working directory); see {@link CompileRequest#workingDirectory()}.
     */
    public Builder workingDirectory(Path value) {
      workingDirectory = Objects.requireNonNull(value, "workingDirectory");
      return this;
    }

    /** The request; IllegalArgumentException when {@code attempt < 1}. */
    public CompileRequest build() {
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
          createdAt,
          platformDisplay,
          platformProvenance,
          sourceBranch,
          fresh,
          workingTree,
          workingDirectory);
    }
  }
}
