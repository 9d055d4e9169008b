package dev.trainyard.gitops.preview;

import dev.trainyard.gitops.GitOpsLocation;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code trainyard preview} in a source repo: what merging {@code head} would start.
 *
 * @param sourceDir a folder of the source checkout, the working directory: relative {@code
 *     trainYamls}, {@code platform} and {@code runtimes} are read resolved against it (and named as
 *     given)
 * @param trainYamls the files to preview, as the user named them; empty: those that changed since
 *     {@code base} (or {@code train.yaml} when there is no base either)
 * @param base the revision the pull request merges into; only used to find the changed train.yaml
 *     files (those that differ between the merge base of base and head, and head: what the pull
 *     request changes)
 * @param head the revision to compile; must be the checked-out commit, as the files on disk are
 *     compiled
 * @param gitops the GitOps repository the runs would be committed to
 * @param branch its branch
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
}
