package dev.trainyard.gitops;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * One {@code trainyard submit}: compile each train.yaml at the source commit and commit the new
 * runs to the GitOps repository.
 *
 * @param trainYamls the files, as the user named them (at least one)
 * @param gitops the GitOps repository
 * @param branch the branch to commit to, e.g. {@code main}
 * @param platform platform.yaml to use instead of the GitOps repo's own {@code platform.yaml}
 * @param runtimes runtimes folder to use instead of the GitOps repo's {@code runtimes/}
 * @param sourceRepo clone URL instead of the source checkout's remote
 * @param sourceCommit commit SHA instead of HEAD
 * @param cluster target cluster instead of the platform's first
 * @param namespace target namespace instead of the first that admits the source repo
 * @param rerun start a new run (a new run id) even when this commit already has one
 * @param dryRun plan and build the commit, but push nothing
 * @param checkpoints the source branch of the checkpoint key and {@code --fresh}
 * @param workingDirectory the folder relative {@code trainYamls}, {@code platform} and {@code
 *     runtimes} are resolved against when read (the CLI's working directory); diagnostics and
 *     {@link SubmittedRun#trainYaml()} still name the files as given. The empty path (the default)
 *     stands for the process's working directory
 */
public record SubmitRequest(
    List<Path> trainYamls,
    GitOpsLocation gitops,
    String branch,
    Optional<Path> platform,
    Optional<Path> runtimes,
    Optional<String> sourceRepo,
    Optional<String> sourceCommit,
    Optional<String> cluster,
    Optional<String> namespace,
    boolean rerun,
    boolean dryRun,
    Checkpoints checkpoints,
    Path workingDirectory) {
  /** A request whose checkpointed runs resume, with no source branch in their key. */
  public SubmitRequest(
      List<Path> trainYamls,
      GitOpsLocation gitops,
      String branch,
      Optional<Path> platform,
      Optional<Path> runtimes,
      Optional<String> sourceRepo,
      Optional<String> sourceCommit,
      Optional<String> cluster,
      Optional<String> namespace,
      boolean rerun,
      boolean dryRun) {
    this(
        trainYamls,
        gitops,
        branch,
        platform,
        runtimes,
        sourceRepo,
        sourceCommit,
        cluster,
        namespace,
        rerun,
        dryRun,
        Checkpoints.RESUME,
        Path.of(""));
  }

  /**
   * How checkpointed runs ({@code checkpoint:} in train.yaml) of this submit find their
   * checkpoints.
   *
   * @param sourceBranch the source branch, part of the checkpoint key (job name + branch); empty:
   *     none
   * @param fresh start over instead of resuming from the job's newest complete checkpoint ({@code
   *     --fresh})
   */
  public record Checkpoints(Optional<String> sourceBranch, boolean fresh) {
    /** Resume; no branch in the key. */
    public static final Checkpoints RESUME = new Checkpoints(Optional.empty(), false);
  }

  public SubmitRequest {
    Objects.requireNonNull(workingDirectory, "workingDirectory");
    trainYamls =
        trainYamls.stream().filter(distinctFile(workingDirectory, new HashSet<>())).toList();
    if (trainYamls.isEmpty()) {
      throw new IllegalArgumentException("at least one train.yaml");
    }
    Objects.requireNonNull(gitops, "gitops");
    Objects.requireNonNull(branch, "branch");
    Objects.requireNonNull(checkpoints, "checkpoints");
  }

  /**
   * Keeps the first of several names for one file ({@code a/train.yaml}, {@code ./a/train.yaml}, a
   * symlinked folder).
   */
  private static Predicate<Path> distinctFile(Path workingDirectory, Set<Path> seen) {
    return p -> seen.add(real(workingDirectory.resolve(p)));
  }

  /** {@code file} as it is read: resolved against {@link #workingDirectory()}. */
  public Path resolve(Path file) {
    return workingDirectory.resolve(file);
  }

  private static Path real(Path p) {
    try {
      return p.toRealPath();
    } catch (IOException e) {
      return p.toAbsolutePath().normalize();
    }
  }
}
