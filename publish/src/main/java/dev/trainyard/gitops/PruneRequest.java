package dev.trainyard.gitops;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One {@code trainyard prune}: remove finished runs' folders from the GitOps repository in one
 * commit, so Flux ({@code prune: true}) or Argo CD (automated prune) delete their objects instead
 * of re-creating them.
 *
 * @param gitops the GitOps repository
 * @param branch the branch to commit to
 * @param runs run names to remove (each must exist); empty with {@code olderThan}
 * @param olderThan remove every run created (provenance {@code trainyard.dev/created-at}) longer
 *     ago than this
 * @param cluster only runs of this cluster
 * @param dryRun plan, push nothing
 */
public record PruneRequest(
    GitOpsLocation gitops,
    String branch,
    List<String> runs,
    Optional<Duration> olderThan,
    Optional<String> cluster,
    boolean dryRun) {
  public PruneRequest {
    Objects.requireNonNull(gitops, "gitops");
    runs = List.copyOf(runs);
    if (runs.isEmpty() == olderThan.isEmpty()) {
      throw new IllegalArgumentException("either run names or olderThan");
    }
  }
}
