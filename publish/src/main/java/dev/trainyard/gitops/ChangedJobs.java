package dev.trainyard.gitops;

import java.util.ArrayList;
import java.util.List;

/**
 * Which jobs a change starts: every {@code train.yaml} at head whose folder (the folder of the file and
 * everything below it) holds a file that differs between two commits of the source repo. A run pins the
 * source commit, so a change to the training code next to a {@code train.yaml} starts a new run just as a
 * change to the file itself does; a job whose folder did not change starts nothing. {@code preview} (in a
 * source repo) and {@code submit --changed-since} both select jobs this way, so what a pull request's
 * preview shows is what merging it submits.
 *
 * <p>Files under a folder whose name starts with a dot ({@code .github/}, {@code .venv/}) are not jobs.
 * A {@code train.yaml} at the repository root owns the whole repository: any change starts it.
 */
public final class ChangedJobs {
  private static final String FILE = "train.yaml";
  /** git's null object id: "no commit" in hooks and in GitHub's and GitLab's push events. */
  public static final String NULL_SHA = "0".repeat(40);

  private ChangedJobs() {}

  /**
   * The {@code train.yaml} paths (relative to the repository root, {@code /}-separated, sorted) of the jobs
   * that the change from {@code base} to {@code head} starts.
   *
   * @throws GitOpsException when a tree cannot be read
   */
  public static List<String> between(GitOpsRepository source, Snapshot base, Snapshot head) throws GitOpsException {
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
   * {@code submit --changed-since REF}: the jobs that the commits from {@code ref} to the checked-out HEAD of
   * the source repo containing {@code workDir} start, as paths relative to {@code workDir}.
   *
   * @param ref a commit, branch or tag of the source repo (in CI: the branch tip before the push); the null
   *     SHA (40 zeros), which GitHub ({@code github.event.before}) and GitLab ({@code CI_COMMIT_BEFORE_SHA})
   *     give for a push that created the branch, means "no earlier commit": every job of HEAD
   * @throws GitOpsException a usage error (exit 2) when {@code ref} is not a commit of the repository; an
   *     environment error when {@code workDir} is in no git repository or a tree cannot be read
   */
  public static List<java.nio.file.Path> since(java.nio.file.Path workDir, String ref) throws GitOpsException {
    java.nio.file.Path dir = workDir.toAbsolutePath().normalize();
    try (GitOpsRepository source = GitOpsRepository.local(dir)) {
      java.nio.file.Path root = source.workTree()
          .orElseThrow(() -> new GitOpsException("the source repo at " + dir + " has no work tree", "run submit in a checkout of the source repo"))
          .toAbsolutePath().normalize();
      Snapshot base;
      try {
        base = ref.equals(NULL_SHA) ? source.emptyTree() : source.snapshot(ref);
      } catch (GitOpsException e) {
        throw GitOpsException.usage("--changed-since " + ref + ": no such commit in the source repo",
            "give a commit the checkout has (a shallow CI clone needs fetch-depth: 0)");
      }
      List<java.nio.file.Path> out = new ArrayList<>();
      for (String path : between(source, base, source.snapshot("HEAD"))) {
        out.add(dir.relativize(root.resolve(path)));
      }
      return List.copyOf(out);
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
