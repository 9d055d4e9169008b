package dev.trainyard.gitops.preview;

import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.gitops.GitOpsException;
import dev.trainyard.gitops.GitOpsRepository;
import dev.trainyard.gitops.Snapshot;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * {@code trainyard preview} in a GitOps repository: the trees of two commits compared run by run. Any two
 * commits work (head need not descend from base): it is a diff of trees, like {@code git diff base head}.
 * The platform.yaml is head's (what applies after the merge).
 */
public final class GitOpsPreview {
  private GitOpsPreview() {}

  /**
   * @param repoDir the GitOps checkout (or bare repository)
   * @param base the revision the pull request merges into ({@code origin/main}, a SHA)
   * @param head the pull request's revision ({@code HEAD})
   * @param platform platform.yaml to use instead of head's
   * @throws GitOpsException when there is no repository or a revision does not exist (exit 3)
   */
  public static Preview of(Path repoDir, String base, String head, Optional<Path> platform) throws GitOpsException {
    try (GitOpsRepository repo = GitOpsRepository.local(repoDir)) {
      Snapshot b = repo.snapshot(base);
      Snapshot h = repo.snapshot(head);
      List<String> changed = repo.changedFiles(b, h);
      StageResult<Platform> p = PreviewPlatform.load(platform, h);
      String note = changed.isEmpty() ? "The two commits have the same tree: merging changes nothing." : "";
      PreviewBuilder.Labels labels = new PreviewBuilder.Labels(Preview.Mode.GITOPS, label(base, b), label(head, h), p.diagnostics(), note);
      return new PreviewBuilder(p.value().orElseThrow()).build(labels, b, h, changed);
    }
  }

  /** {@code main @ 1a2b3c4d5e6f}: the revision as given and its commit. */
  static String label(String revision, Snapshot tree) {
    return revision + tree.commit().map(c -> " @ " + c.substring(0, 12)).orElse("");
  }
}
