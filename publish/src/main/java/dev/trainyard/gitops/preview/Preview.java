package dev.trainyard.gitops.preview;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A pull-request preview: what merging would start, change or stop, and every problem, with Secret
 * data already masked. Renderers ({@link MarkdownPreview}, {@link JsonPreview}) only format it.
 *
 * @param mode whose pull request: the source repo's (compiled train.yaml files) or the GitOps
 *     repo's (two trees)
 * @param base what the change is compared with ({@code main @ 1a2b3c4d5e6f})
 * @param head the change ({@code feature @ 9f8e7d6c5b4a})
 * @param runs added, changed and removed runs, in that order, each sorted by path
 * @param queues GPUs per LocalQueue asked by the added and changed runs
 * @param callOuts refusals first, then warnings
 * @param diagnostics every compile diagnostic, sorted as {@code validate} prints them
 * @param otherFiles changed files outside run folders (queues, kustomize roots, platform.yaml),
 *     sorted
 * @param otherObjects the objects of those files that differ, field by field as a run's ({@link
 *     ObjectChange#file} is the file's path): manifests under {@code clusters/} except
 *     kustomization files, whose resource lists follow the runs
 * @param note a sentence shown when nothing changed ("No job folder … changed …"), else ""
 * @param platform in a GitOps pull request that changes platform.yaml, {@code runtimes/} or the
 *     queue folders: the quotas it changes and what that does to the committed runs; else empty
 */
public record Preview(
    Mode mode,
    String base,
    String head,
    List<RunChange> runs,
    List<QueueTotal> queues,
    List<CallOut> callOuts,
    List<Diagnostic> diagnostics,
    List<String> otherFiles,
    List<ObjectChange> otherObjects,
    String note,
    Optional<PlatformChange> platform) {
  /** Which repository the pull request is in. */
  public enum Mode {
    SOURCE,
    GITOPS
  }

  /** A preview in which nothing changed: no run, file or problem, only {@code note}. */
  public static Preview unchanged(Mode mode, String base, String head, String note) {
    return new Preview(
        mode,
        base,
        head,
        List.of(),
        List.of(),
        List.of(),
        List.of(),
        List.of(),
        List.of(),
        note,
        Optional.empty());
  }

  public Preview {
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(platform, "platform");
    runs = List.copyOf(runs);
    queues = List.copyOf(queues);
    callOuts = callOuts.stream().sorted().toList();
    diagnostics = diagnostics.stream().distinct().sorted(Diagnostic.ORDER).toList();
    otherFiles = List.copyOf(otherFiles);
    otherObjects = List.copyOf(otherObjects);
  }

  /**
   * This preview with a platform change's effect: {@code platformCallOuts} added to the call-outs
   * (sorted again), and {@code change} as {@link #platform}.
   */
  public Preview withPlatform(List<CallOut> platformCallOuts, Optional<PlatformChange> change) {
    List<CallOut> all = new ArrayList<>(callOuts);
    all.addAll(platformCallOuts);
    return new Preview(
        mode, base, head, runs, queues, all, diagnostics, otherFiles, otherObjects, note, change);
  }

  /** Runs with {@code status}. */
  public List<RunChange> runs(RunChange.Status status) {
    return runs.stream().filter(r -> r.status() == status).toList();
  }

  /** Whether CI should fail: an error diagnostic, or a call-out the cluster would refuse. */
  public boolean refused() {
    return diagnostics.stream().anyMatch(Diagnostic::isError)
        || callOuts.stream().anyMatch(c -> c.severity() == CallOut.Severity.REFUSED);
  }
}
