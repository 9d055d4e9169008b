package dev.trainyard.gitops.preview;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.gitops.GitOpsException;
import dev.trainyard.gitops.GitOpsRepository;
import dev.trainyard.gitops.Snapshot;
import dev.trainyard.gitops.leaks.LeakCheck;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * {@code trainyard preview} in a GitOps repository: what a pull request changes, run by run: the
 * tree of head compared with the tree of the merge base of base and head, as GitHub and GitLab show
 * a pull request's diff ({@code git diff base...head}). When base is an ancestor of head (an
 * up-to-date branch) or head is the merge commit CI checks out, that is exactly the tree diff of
 * base and head; for a branch behind its base, runs the base gained since the fork are not shown as
 * removed. Unrelated histories: the tree diff. The platform.yaml is head's (what applies after the
 * merge). The files the pull request changes get the leak check, as {@code submit} gives its own: a
 * key is E809 (the preview fails) and its file's diff is hidden.
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
  public static Preview of(Path repoDir, String base, String head, Optional<Path> platform)
      throws GitOpsException {
    return of(repoDir, base, head, platform, Path.of(""));
  }

  /**
   * As {@link #of(Path, String, String, Optional)}, with a relative {@code platform} read resolved
   * against {@code workingDirectory} (the CLI's working directory; the empty path: the process's)
   * and named as given.
   *
   * @throws GitOpsException when there is no repository or a revision does not exist (exit 3)
   */
  public static Preview of(
      Path repoDir, String base, String head, Optional<Path> platform, Path workingDirectory)
      throws GitOpsException {
    try (GitOpsRepository repo = GitOpsRepository.local(repoDir)) {
      Snapshot tip = repo.snapshot(base);
      Snapshot h = repo.snapshot(head);
      Optional<String> fork =
          repo.mergeBase(base, head).filter(c -> !tip.commit().orElseThrow().equals(c));
      Snapshot b = fork.isPresent() ? repo.snapshot(fork.get()) : tip;
      List<String> changed = repo.changedFiles(b, h);
      StageResult<Platform> p = PreviewPlatform.load(platform, workingDirectory, h);
      String note =
          changed.isEmpty() ? "The two commits have the same tree: merging changes nothing." : "";
      List<Diagnostic> diagnostics = new ArrayList<>(p.diagnostics());
      diagnostics.addAll(leaks(p.value().orElseThrow(), h, changed));
      PreviewBuilder.Labels labels =
          new PreviewBuilder.Labels(
              Preview.Mode.GITOPS,
              label(base, tip)
                  + fork.map(c -> " (merge base " + c.substring(0, 12) + ")").orElse(""),
              label(head, h),
              diagnostics,
              note);
      Preview preview =
          new PreviewBuilder(p.value().orElseThrow())
              .build(labels, b, LeakHiding.hide(h, diagnostics), changed);
      return PlatformEffect.applies(changed)
          ? withPlatform(
              preview,
              PreviewPlatform.load(platform, workingDirectory, b),
              p.value().orElseThrow(),
              h,
              changed)
          : preview;
    }
  }

  /**
   * {@code preview} with the platform change's effect: its call-outs, and its quota table when
   * platform.yaml or {@code runtimes/} changed or a quota did (a pull request that only touches
   * queue files gets the call-outs alone). The diagnostics of the base's platform.yaml are not
   * added: the base was merged with them.
   */
  private static Preview withPlatform(
      Preview preview,
      StageResult<Platform> before,
      Platform after,
      Snapshot head,
      List<String> changed) {
    PlatformEffect.Result effect =
        PlatformEffect.of(
            before.value().orElseThrow(), after, head, new JobSetFacts(after, new YamlTrees()));
    boolean platformFiles =
        changed.stream().anyMatch(f -> f.equals("platform.yaml") || f.startsWith("runtimes/"));
    return preview.withPlatform(
        effect.callOuts(),
        platformFiles || !effect.change().quotas().isEmpty()
            ? Optional.of(effect.change())
            : Optional.empty());
  }

  /**
   * The leak check ({@code check-secrets}, as {@code submit} runs it) on the files the pull request
   * adds or changes, under head's platform.yaml: E809 for each key outside an allowed plain Secret.
   */
  static List<Diagnostic> leaks(Platform platform, Snapshot head, List<String> changed) {
    SortedMap<String, String> files = new TreeMap<>();
    for (String path : changed) {
      head.read(path).ifPresent(text -> files.put(path, text));
    }
    return new LeakCheck(platform).checkText(files).diagnostics();
  }

  /** {@code main @ 1a2b3c4d5e6f}: the revision as given and its commit. */
  static String label(String revision, Snapshot tree) {
    return revision + tree.commit().map(c -> " @ " + c.substring(0, 12)).orElse("");
  }
}
