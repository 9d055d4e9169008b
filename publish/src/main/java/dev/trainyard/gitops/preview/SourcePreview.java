package dev.trainyard.gitops.preview;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.gitops.ChangedJobs;
import dev.trainyard.gitops.EmptySnapshot;
import dev.trainyard.gitops.GitOpsException;
import dev.trainyard.gitops.GitOpsRepository;
import dev.trainyard.gitops.Snapshot;
import dev.trainyard.gitops.SubmitPlan;
import dev.trainyard.gitops.SubmitRequest;
import dev.trainyard.gitops.SubmittedRun;
import dev.trainyard.gitops.Submitter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code trainyard preview} in a source repo: compiles the train.yaml files of the changed jobs
 * ({@link ChangedJobs}: a file changed in the folder of a train.yaml) at head exactly as {@code
 * submit} would ({@link Submitter#plan}, nothing pushed), then previews the GitOps tree before and
 * after. Each new run is compared with the latest run of the same train.yaml the GitOps repo
 * already holds. No changed job: an empty preview that says so, without touching the GitOps repo.
 */
public final class SourcePreview {
  /** Plans exactly as {@code submit} does, on the same mirror cache, environment and clock. */
  private final Submitter submitter;

  /**
   * @see Submitter#Submitter(Path, Map, Clock)
   */
  public SourcePreview(Path cacheRoot, Map<String, String> env, Clock clock) {
    this.submitter = new Submitter(cacheRoot, env, clock);
  }

  /**
   * @throws GitOpsException when a repository cannot be read or a revision does not exist (exit 3)
   * @throws IllegalArgumentException when head is not the checked-out commit (a usage error)
   */
  public Preview preview(SourcePreviewRequest r) throws GitOpsException {
    Map<Path, String> files;
    String headLabel;
    try (GitOpsRepository source = GitOpsRepository.local(r.sourceDir())) {
      Snapshot head = source.snapshot(r.head());
      checkCheckedOut(source, r.head(), head);
      headLabel = GitOpsPreview.label(r.head(), head);
      files = trainYamls(source, r, head);
    }
    if (files.isEmpty()) {
      String note =
          "No job folder (a train.yaml's folder) changed between "
              + Md.code(r.base().orElse(""))
              + " and "
              + Md.code(r.head())
              + ": merging starts no run.";
      return Preview.unchanged(Preview.Mode.SOURCE, r.base().orElse(""), headLabel, note);
    }
    return compiled(r, files, headLabel);
  }

  private Preview compiled(SourcePreviewRequest r, Map<Path, String> files, String headLabel)
      throws GitOpsException {
    // No commit override: head is the checked-out commit (checkCheckedOut), so the source is
    // inspected exactly as
    // submit inspects it, uncommitted and untracked files next to train.yaml included (E305).
    SubmitRequest submit =
        new SubmitRequest(
            List.copyOf(files.keySet()),
            r.gitops(),
            r.branch(),
            r.platform(),
            r.runtimes(),
            r.sourceRepo(),
            Optional.empty(),
            r.cluster(),
            r.namespace(),
            false,
            true,
            SubmitRequest.Checkpoints.RESUME,
            r.sourceDir());
    try (GitOpsRepository mirror = submitter.mirror(r.gitops())) {
      SubmitPlan plan = submitter.plan(submit, mirror);
      Snapshot base = plan.base() instanceof EmptySnapshot ? mirror.emptyTree() : plan.base();
      Snapshot after = plan.after() instanceof EmptySnapshot ? base : plan.after();
      StageResult<Platform> platform = PreviewPlatform.load(r.platform(), r.sourceDir(), base);
      List<Diagnostic> diagnostics = new ArrayList<>(displayed(plan.result().diagnostics(), files));
      String baseLabel =
          "GitOps "
              + r.branch()
              + base.commit().map(c -> " @ " + c.substring(0, 12)).orElse(" (empty)");
      PreviewBuilder.Labels labels =
          new PreviewBuilder.Labels(
              Preview.Mode.SOURCE, baseLabel, headLabel, diagnostics, note(plan));
      // submit's leak check ran on the new runs (E809 in the plan): their files' diffs must not
      // show the key.
      return new PreviewBuilder(platform.value().orElseThrow())
          .build(
              labels,
              base,
              LeakHiding.hide(after, plan.result().diagnostics()),
              mirror.changedFiles(base, after));
    }
  }

  /** Why nothing would start, when nothing would: errors, or every run already there. */
  private static String note(SubmitPlan plan) {
    if (plan.result().hasErrors()) {
      return "Nothing would be submitted: a train.yaml has errors (see Diagnostics), and submit writes all runs or none.";
    }
    List<String> lines = new ArrayList<>();
    for (SubmittedRun run : plan.result().runs()) {
      if (run.outcome() == SubmittedRun.Outcome.EXISTS) {
        lines.add(
            Md.code(run.folder().run())
                + " is already in the GitOps repo: merging starts nothing new for it.");
      } else if (run.outcome() == SubmittedRun.Outcome.PRUNED) {
        lines.add(
            Md.code(run.folder().run())
                + " already ran and was pruned: merging does not start it again (`submit --rerun` would).");
      }
    }
    return String.join(" ", lines);
  }

  /** The train.yaml files to compile (path on disk → how diagnostics name it). */
  private static Map<Path, String> trainYamls(
      GitOpsRepository source, SourcePreviewRequest r, Snapshot head) throws GitOpsException {
    Map<Path, String> files = new LinkedHashMap<>();
    if (!r.trainYamls().isEmpty() || r.base().isEmpty()) {
      (r.trainYamls().isEmpty() ? List.of(Path.of("train.yaml")) : r.trainYamls())
          .forEach(p -> files.put(p, p.toString()));
      return files;
    }
    Path workTree =
        source
            .workTree()
            .orElseThrow(
                () -> new IllegalArgumentException("the source repo has no work tree to compile"));
    String from =
        source
            .mergeBase(r.base().get(), r.head())
            .orElse(source.snapshot(r.base().get()).commit().orElseThrow());
    for (String path : ChangedJobs.between(source, source.snapshot(from), head)) {
      files.put(workTree.resolve(path), path);
    }
    return files;
  }

  private static void checkCheckedOut(GitOpsRepository source, String head, Snapshot tree)
      throws GitOpsException {
    Optional<String> checkedOut = source.snapshot("HEAD").commit();
    if (!checkedOut.equals(tree.commit())) {
      throw new IllegalArgumentException(
          "--head "
              + head
              + " is not the checked-out commit; preview compiles the files on disk,"
              + " so check it out first (git checkout "
              + head
              + ")");
    }
  }

  /**
   * Diagnostics naming train.yaml files as found in the repository (relative to its root), not by
   * absolute path.
   */
  private static List<Diagnostic> displayed(List<Diagnostic> diagnostics, Map<Path, String> files) {
    List<Diagnostic> out = new ArrayList<>();
    for (Diagnostic d : diagnostics) {
      String file = d.location().file();
      String message = d.message();
      for (Map.Entry<Path, String> f : files.entrySet()) {
        file = file.equals(f.getKey().toString()) ? f.getValue() : file;
        message = message.replace(f.getKey().toString(), f.getValue());
      }
      out.add(
          new Diagnostic(
              d.severity(),
              d.code(),
              message,
              new SourceLocation(file, d.location().line(), d.location().column()),
              d.pointer(),
              d.hint()));
    }
    return out;
  }
}
