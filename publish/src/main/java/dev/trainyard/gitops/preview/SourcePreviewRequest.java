package dev.trainyard.gitops.preview;

import dev.trainyard.gitops.GitOpsLocation;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code trainyard preview} in a source repo: what merging {@code head} would start. Built with
 * {@link #builder}; only the source folder and the GitOps repository are required.
 *
 * <pre>{@code
 * SourcePreviewRequest.builder(checkout, GitOpsLocation.parse(url, checkout))
 *     .base(Optional.of("origin/main"))
 *     .build();
 * }</pre>
 *
 * @param sourceDir a folder of the source checkout, the working directory: relative {@code
 *     trainYamls}, {@code platform} and {@code runtimes} are read resolved against it (and named as
 *     given)
 * @param trainYamls the files to preview, as the user named them; empty: those that changed since
 *     {@code base} (or {@code train.yaml} when there is no base either)
 * @param base the revision the pull request merges into; only used to find the changed train.yaml
 *     files (those that differ between the merge base of base and head, and head: what the pull
 *     request changes)
 * @param head the revision to compile (default {@code HEAD}); must be the checked-out commit, as
 *     the files on disk are compiled
 * @param gitops the GitOps repository the runs would be committed to
 * @param branch its branch (default {@code main})
 * @param platform platform.yaml instead of the GitOps repository's
 * @param runtimes runtimes folder instead of the GitOps repository's
 * @param sourceRepo clone URL instead of the checkout's remote
 * @param cluster target cluster instead of the platform's first
 * @param namespace target namespace instead of the first that admits the source repo
 */
public record SourcePreviewRequest(
    Path sourceDir,
    List<Path> trainYamls,
    Optional<String> base,
    String head,
    GitOpsLocation gitops,
    String branch,
    Optional<Path> platform,
    Optional<Path> runtimes,
    Optional<String> sourceRepo,
    Optional<String> cluster,
    Optional<String> namespace) {
  public SourcePreviewRequest {
    Objects.requireNonNull(sourceDir, "sourceDir");
    trainYamls = List.copyOf(trainYamls);
    Objects.requireNonNull(head, "head");
    Objects.requireNonNull(gitops, "gitops");
    Objects.requireNonNull(branch, "branch");
  }

  /** A request for {@code sourceDir}'s checkout into {@code gitops}, everything else defaulted. */
  public static Builder builder(Path sourceDir, GitOpsLocation gitops) {
    return new Builder(sourceDir, gitops);
  }

  /** Builds a {@link SourcePreviewRequest}. */
  public static final class Builder {
    private final Path sourceDir;
    private final GitOpsLocation gitops;
    private List<Path> trainYamls = List.of();
    private Optional<String> base = Optional.empty();
    private String head = "HEAD";
    private String branch = "main";
    private Optional<Path> platform = Optional.empty();
    private Optional<Path> runtimes = Optional.empty();
    private Optional<String> sourceRepo = Optional.empty();
    private Optional<String> cluster = Optional.empty();
    private Optional<String> namespace = Optional.empty();

    private Builder(Path sourceDir, GitOpsLocation gitops) {
      this.sourceDir = sourceDir;
      this.gitops = gitops;
    }

    /** The files to preview as named (default: none, the changed ones). */
    public Builder trainYamls(List<Path> value) {
      trainYamls = value;
      return this;
    }

    /** The revision the pull request merges into (default: none). */
    public Builder base(Optional<String> value) {
      base = value;
      return this;
    }

    /** The revision to compile (default {@code HEAD}). */
    public Builder head(String value) {
      head = value;
      return this;
    }

    /** The GitOps repository's branch (default {@code main}). */
    public Builder branch(String value) {
      branch = value;
      return this;
    }

    /** platform.yaml instead of the GitOps repository's (default: none). */
    public Builder platform(Optional<Path> value) {
      platform = value;
      return this;
    }

    /** A runtimes folder instead of the GitOps repository's (default: none). */
    public Builder runtimes(Optional<Path> value) {
      runtimes = value;
      return this;
    }

    /** A clone URL instead of the checkout's remote (default: none). */
    public Builder sourceRepo(Optional<String> value) {
      sourceRepo = value;
      return this;
    }

    /** The target cluster instead of the platform's first (default: none). */
    public Builder cluster(Optional<String> value) {
      cluster = value;
      return this;
    }

    /** The target namespace instead of the first that admits the source repo (default: none). */
    public Builder namespace(Optional<String> value) {
      namespace = value;
      return this;
    }

    /**
     * The request.
     *
     * @throws NullPointerException when the source folder, the GitOps repository, the head or the
     *     branch is null
     */
    public SourcePreviewRequest build() {
      return new SourcePreviewRequest(
          sourceDir,
          trainYamls,
          base,
          head,
          gitops,
          branch,
          platform,
          runtimes,
          sourceRepo,
          cluster,
          namespace);
    }
  }
}
