package dev.trainyard.gitops;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Which jobs a change starts: every {@code train.yaml} at head whose folder (the folder of the file
 * and everything below it) holds a file that differs between two commits of the source repo. A run
 * pins the source commit, so a change to the training code next to a {@code train.yaml} starts a
 * new run just as a change to the file itself does; a job whose folder did not change starts
 * nothing. {@code preview} (in a source repo) and {@code submit --changed-since} both select jobs
 * this way, so what a pull request's preview shows is what merging it submits.
 *
 * <p>Files under a folder whose name starts with a dot ({@code .github/}, {@code .venv/}) are not
 * jobs. A {@code train.yaml} at the repository root owns the whole repository: any change starts
 * it.
 */
public final class ChangedJobs {
  private static final String FILE = "train.yaml";

  /** git's null object id: "no commit" in hooks and in GitHub's and GitLab's push events. */
  public static final String NULL_SHA = "0".repeat(40);

  private static final Pattern FULL_SHA = Pattern.compile("^[0-9a-f]{40}$");

  private ChangedJobs() {}

  /**
   * The {@code train.yaml} paths (relative to the repository root, {@code /}-separated, sorted) of
   * the jobs that the change from {@code base} to {@code head} starts.
   *
   * @throws GitOpsException when a tree cannot be read
   */
  public static List<String> between(GitOpsRepository source, Snapshot base, Snapshot head)
      throws GitOpsException {
    List<String> changed = source.changedFiles(base, head);
    List<String> jobs = new ArrayList<>();
    for (String path : source.changedFiles(source.emptyTree(), head)) {
      if (isJob(path) && changed.stream().anyMatch(c -> inFolder(c, folderOf(path)))) {
        jobs.add(path);
      }
    }
    return List.copyOf(jobs);
  }

  /**
   * What {@code submit --changed-since} selected.
   *
   * @param trainYamls the jobs, as paths relative to the folder submit runs in, sorted
   * @param warnings W810 when the base commit was missing and HEAD's own change was used instead
   */
  public record Selection(List<Path> trainYamls, List<Diagnostic> warnings) {
    public Selection {
      trainYamls = List.copyOf(trainYamls);
      warnings = List.copyOf(warnings);
    }
  }

  private record Base(Snapshot snapshot, List<Diagnostic> warnings) {}

  /**
   * {@code submit --changed-since REF}: the jobs that the commits from {@code ref} to the
   * checked-out HEAD of the source repo containing {@code workDir} start.
   *
   * <p>A full SHA the repository does not have is what CI passes after a force push (GitHub's
   * {@code github.event.before}, GitLab's {@code CI_COMMIT_BEFORE_SHA} name the replaced tip) or in
   * a shallow clone. Then the jobs HEAD's own commit changed (since its first parent) are
   * submitted, with warning W810 naming the SHA. Not every job: a run's id comes from the source
   * commit, so each job at a new commit would start a new run.
   *
   * @param ref a commit, branch or tag of the source repo (in CI: the branch tip before the push);
   *     the null SHA (40 zeros), which GitHub and GitLab give for a push that created the branch,
   *     means "no earlier commit": every job of HEAD
   * @throws GitOpsException a usage error (exit 2) when {@code ref} is not a full SHA and names no
   *     commit of the repository; an environment error when {@code workDir} is in no git
   *     repository, a tree cannot be read, or a missing SHA meets a shallow clone that lacks HEAD's
   *     parent too
   */
  public static Selection since(Path workDir, String ref) throws GitOpsException {
    Path dir = workDir.toAbsolutePath().normalize();
    try (GitOpsRepository source = GitOpsRepository.local(dir)) {
      Path root =
          source
              .workTree()
              .orElseThrow(
                  () ->
                      new GitOpsException(
                          "the source repo at " + dir + " has no work tree",
                          "run submit in a checkout of the source repo"))
              .toAbsolutePath()
              .normalize();
      Base base = base(source, ref);
      List<Path> out = new ArrayList<>();
      for (String path : between(source, base.snapshot(), source.snapshot("HEAD"))) {
        out.add(dir.relativize(root.resolve(path)));
      }
      return new Selection(out, base.warnings());
    }
  }

  private static Base base(GitOpsRepository source, String ref) throws GitOpsException {
    if (ref.equals(NULL_SHA)) {
      return new Base(source.emptyTree(), List.of());
    }
    try {
      return new Base(source.snapshot(ref), List.of());
    } catch (GitOpsException e) {
      if (!FULL_SHA.matcher(ref).matches()) {
        throw GitOpsException.usage(
            "--changed-since " + ref + ": no such commit, branch or tag in the source repo",
            "give a commit the checkout has; CI passes the full SHA of the branch tip before the push (a shallow CI clone needs fetch-depth: 0)");
      }
      return missing(source, ref);
    }
  }

  /**
   * The base for a full SHA that is not in the repository: HEAD's first parent (or nothing, for a
   * root commit).
   */
  private static Base missing(GitOpsRepository source, String sha) throws GitOpsException {
    Optional<Snapshot> parent = parent(source);
    if (parent.isEmpty() && source.isShallow()) {
      throw new GitOpsException(
          "--changed-since "
              + sha
              + " is not in the source repo, and this shallow clone lacks HEAD's parent too,"
              + " so no change can be computed",
          "fetch the history: actions/checkout with fetch-depth: 0, or GIT_DEPTH: \"0\" in GitLab CI");
    }
    String since = parent.isPresent() ? "since HEAD~1" : "HEAD is a root commit: every job";
    Diagnostic warning =
        Diagnostic.warning(
                DiagnosticCode.BASE_COMMIT_MISSING,
                SourceLocation.ofFile("--changed-since"),
                "",
                "commit "
                    + sha
                    + " is not in the source repo (a force push replaced it, or the clone is shallow); submitting the jobs HEAD's"
                    + " own commit changed ("
                    + since
                    + ")")
            .withHint(
                "to submit other jobs too, name their train.yaml files (trainyard submit jobs/x/train.yaml); every job at once would"
                    + " start a new run of each, since a run belongs to its source commit");
    return new Base(parent.isPresent() ? parent.get() : source.emptyTree(), List.of(warning));
  }

  private static Optional<Snapshot> parent(GitOpsRepository source) {
    try {
      return Optional.of(source.snapshot("HEAD~1"));
    } catch (GitOpsException e) {
      return Optional.empty();
    }
  }

  static boolean isJob(String path) {
    if (!path.equals(FILE) && !path.endsWith("/" + FILE)) {
      return false;
    }
    for (String segment : path.split("/")) {
      if (segment.startsWith(".")) {
        return false;
      }
    }
    return true;
  }

  static String folderOf(String trainYaml) {
    int slash = trainYaml.lastIndexOf('/');
    return slash < 0 ? "" : trainYaml.substring(0, slash);
  }

  static boolean inFolder(String path, String folder) {
    return folder.isEmpty() || path.startsWith(folder + "/");
  }
}
