package dev.trainyard.compiler.provenance;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.diagnostic.StageResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.Status;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.treewalk.TreeWalk;

/**
 * Reads where the code comes from out of the git repo that holds train.yaml (an edge; the only
 * class that imports JGit for reading sources): the URL of remote {@code origin} (else the only
 * remote), the HEAD commit, and the path of train.yaml in the repo. Pods clone exactly that commit,
 * so anything that would make them run other code than the user sees is a diagnostic, never a
 * silent guess: uncommitted or untracked files in train.yaml's folder, no remote, a remote that is
 * a local path, no commit yet. A CI system that knows the repo and commit passes them instead
 * ({@code --source-repo}, {@code --source-commit}).
 *
 * <p>One inspector serves the train.yaml files of one call (a preview or submit of many, the
 * bench's loop): each repository is opened once, on its first train.yaml, and kept open until
 * {@link #close}, so its pack indexes are read once rather than once per train.yaml (issue #24:
 * opening the repository again for every compile cost most of a warm compile). JGit notices new
 * packs, refs and config changes of an open repository itself, so answers stay those of a fresh
 * open. Safe for concurrent use.
 */
public final class GitSourceInspector implements AutoCloseable {
  private static final Pattern SHA = Pattern.compile("^[0-9a-f]{40}$");

  /**
   * Open repositories by git directory; typed as {@link AutoCloseable} so that this class's fields
   * name no JGit type (see {@link LocalRepository}).
   */
  private final Map<Path, AutoCloseable> repositories = new ConcurrentHashMap<>();

  /**
   * The work-tree status of each repository with more than one train.yaml checked through this
   * inspector (a preview or submit of many): its first train.yaml gets {@code git status} of its
   * folder alone (cheap for one compile in a large repository), the second reads the whole status
   * once, and every later one filters it by folder. Before, each of a preview's 500 train.yaml
   * files walked the index again (issue #24). The status is the work tree's when first read, until
   * {@link #close}: one call does not expect its own files to change under it.
   */
  private final Map<Path, WorkTreeStatus> statuses = new ConcurrentHashMap<>();

  /** Which repositories had a train.yaml's folder checked already, for {@link #statuses}. */
  private final Set<Path> statusAsked = ConcurrentHashMap.newKeySet();

  /**
   * What one call learns of its files' places once and keeps until {@link #close}, as it keeps the
   * status: the work tree (or none) of each folder a train.yaml is in, the real path of each work
   * tree and train.yaml, and each work tree's git directory. Finding them again for every compile
   * (a {@code stat} per folder level for each lookup, the real-path walk twice, JGit's repository
   * search) was a fifth of a warm compile (issue #24); a preview of many train.yaml files of one
   * repository finds the repository once.
   */
  private final Map<Path, Optional<Path>> workTrees = new ConcurrentHashMap<>();

  private final Map<Path, Path> realPaths = new ConcurrentHashMap<>();
  private final Map<Path, Optional<Path>> gitDirs = new ConcurrentHashMap<>();

  /**
   * Each repository's remotes, with the {@code config} file's modification time, size and inode
   * when they were read. Asking JGit for them checks the repository's, the user's and the system's
   * config files for changes (5 % of a warm compile, issue #24); this checks the repository's file
   * alone, which git and JGit replace on every change (a new inode). A remote changed there during
   * a call is seen; one added to the user's or system's config during a call is not.
   */
  private final Map<Path, StampedRemotes> remotes = new ConcurrentHashMap<>();

  /**
   * Whether each repository holds each {@code --source-commit} asked of it, by git directory and
   * SHA: a CI call's train.yaml files share one commit, and JGit looks for a missing object in the
   * pack folder and the loose objects each time it is asked. Like the status, the answer is the
   * repository's when first asked, until {@link #close}.
   */
  private final Map<List<Object>, Boolean> commits = new ConcurrentHashMap<>();

  /**
   * Whether each HEAD commit is on a remote-tracking ref, by git directory and SHA (a preview's
   * train.yaml files share their HEAD; walking the history from every remote ref again for each was
   * most of a warm compile that reads git, issue #24). The answer is the repository's when first
   * asked, until {@link #close}.
   */
  private final Map<List<Object>, Pushed> pushed = new ConcurrentHashMap<>();

  /**
   * @param onRemoteRef the commit is on a ref that mirrors a remote
   * @param anyRemoteRef the repository has such a ref at all
   */
  private record Pushed(boolean onRemoteRef, boolean anyRemoteRef) {}

  /** Remotes, and the config file's state they were read from. */
  private record StampedRemotes(List<Object> stamp, Remotes remotes) {}

  /**
   * A repository's remotes as its config names them, name → URL ({@code null} for a remote without
   * one).
   */
  private record Remotes(SortedMap<String, String> urls) {
    /** The URL of origin, else of the only remote. */
    Optional<String> url() {
      String origin = urls.get("origin");
      if (origin != null) {
        return Optional.of(origin);
      }
      return urls.size() == 1 ? Optional.ofNullable(urls.get(urls.firstKey())) : Optional.empty();
    }

    /** origin, else the only remote (as {@link #url} picks it). */
    String name() {
      return urls.size() == 1 ? urls.firstKey() : "origin";
    }
  }

  /**
   * The paths (relative to the work tree, {@code /}-separated) that {@code git status} reports
   * untracked, and those with uncommitted changes (added, changed, removed, missing, modified,
   * conflicting: JGit's {@code Status.getUncommittedChanges}).
   */
  record WorkTreeStatus(Set<String> untracked, Set<String> uncommitted) {
    WorkTreeStatus {
      untracked = Set.copyOf(untracked);
      uncommitted = Set.copyOf(uncommitted);
    }

    /**
     * The part under {@code folder} (the folder itself and all below it, as a JGit path filter of
     * that folder selects), or all of it for {@code ""}.
     */
    WorkTreeStatus under(String folder) {
      if (folder.isEmpty()) {
        return this;
      }
      return new WorkTreeStatus(within(untracked, folder), within(uncommitted, folder));
    }

    private static Set<String> within(Set<String> paths, String folder) {
      String prefix = folder + "/";
      Set<String> out = new TreeSet<>();
      for (String p : paths) {
        if (p.equals(folder) || p.startsWith(prefix)) {
          out.add(p);
        }
      }
      return out;
    }
  }

  /**
   * @param trainYaml the train.yaml (absolute or relative to the working directory)
   * @param displayPath how diagnostics name it
   * @param repoOverride clone URL to use instead of the remote's
   * @param commitOverride full commit SHA to use instead of HEAD (then local changes are not
   *     checked, but train.yaml must be in that commit as it is on disk; a commit the repository
   *     lacks is E314 (W315 in a shallow clone), also with {@code repoOverride} when the work
   *     tree's remote is that repo. Outside a repository (with {@code repoOverride}) train.yaml's
   *     path is taken relative to the working directory, the checkout root in CI, and W315 says the
   *     commit was not checked)
   * @param ignored a folder whose files never count as uncommitted (the GitOps output folder, when
   *     it lies inside the source repo)
   */
  public StageResult<SourceInfo> inspect(
      Path trainYaml,
      String displayPath,
      Optional<String> repoOverride,
      Optional<String> commitOverride,
      Optional<Path> ignored) {
    return inspect(
        trainYaml, displayPath, repoOverride, commitOverride, ignored, false, Path.of(""));
  }

  /**
   * As {@link #inspect(Path, String, Optional, Optional, Optional)}; with {@code workingTree} (the
   * run uses the files on disk, {@code run --local --working-tree}) train.yaml need not be in
   * {@code commitOverride} nor match it there; outside a repository train.yaml's path is taken
   * relative to {@code workingDirectory} (the empty path: the process's working directory).
   */
  public StageResult<SourceInfo> inspect(
      Path trainYaml,
      String displayPath,
      Optional<String> repoOverride,
      Optional<String> commitOverride,
      Optional<Path> ignored,
      boolean workingTree,
      Path workingDirectory) {
    SourceLocation at = SourceLocation.ofFile(displayPath);
    Path file = trainYaml.toAbsolutePath().normalize();
    if (repoOverride.isPresent() && commitOverride.isPresent() && workTree(file).isEmpty()) {
      // CI passes both, outside a checkout too: then train.yaml's path is relative to the working
      // directory and
      // nothing can tell whether the commit exists or holds this train.yaml, which W315 says.
      // Finding (no) `.git`
      // entry ourselves keeps JGit off this path: same answer as JGit's findGitDir for normal and
      // linked work trees.
      return relativeTo(workingDirectory, file)
          .map(
              p ->
                  checked(
                      repoOverride,
                      commitOverride,
                      p,
                      true,
                      at,
                      withUnchecked(outside(p, at), commitOverride.get(), at)))
          .orElseGet(() -> notInRepository(displayPath, at));
    }
    return LocalRepository.inspect(
        this,
        file,
        displayPath,
        repoOverride,
        commitOverride,
        ignored.map(i -> i.toAbsolutePath().normalize()),
        workingTree,
        at);
  }

  /** Closes the repositories this inspector opened; it may be used again afterwards. */
  @Override
  public void close() {
    statuses.clear();
    statusAsked.clear();
    workTrees.clear();
    realPaths.clear();
    gitDirs.clear();
    remotes.clear();
    commits.clear();
    pushed.clear();
    for (Path gitDir : List.copyOf(repositories.keySet())) {
      AutoCloseable repo = repositories.remove(gitDir);
      if (repo != null) {
        try {
          repo.close();
        } catch (Exception e) {
          throw new IllegalStateException("cannot close the repository at " + gitDir, e);
        }
      }
    }
  }

  /**
   * {@link #workTreeOf}, found once per folder until {@link #close}.
   *
   * @param file an absolute, normalized path
   */
  Optional<Path> workTree(Path file) {
    Path folder = file.getParent();
    return folder == null
        ? Optional.empty()
        : workTrees.computeIfAbsent(folder, f -> workTreeOf(file));
  }

  /**
   * {@code file}'s path from the root of the git work tree that holds it ({@code
   * examples/platform.yaml}, forward slashes; lexical: symlinks are not followed), the same from
   * every working directory and checkout path; empty when no work tree holds it.
   *
   * @param file an absolute, normalized path
   */
  public Optional<String> pathInWorkTree(Path file) {
    return workTree(file).map(root -> root.relativize(file).toString().replace('\\', '/'));
  }

  /**
   * {@code path}'s real path (every symlink followed), found once until {@link #close}.
   *
   * @throws IOException when it does not exist or cannot be read (not remembered)
   */
  public Path realPath(Path path) throws IOException {
    Path known = realPaths.get(path);
    if (known == null) {
      known = path.toRealPath();
      realPaths.put(path, known);
    }
    return known;
  }

  /**
   * The nearest folder at or above train.yaml's that holds a {@code .git} folder or (linked work
   * tree) file.
   */
  static Optional<Path> workTreeOf(Path file) {
    for (Path dir = file.getParent(); dir != null; dir = dir.getParent()) {
      Path dotGit = dir.resolve(".git");
      if (Files.isRegularFile(dotGit) || Files.isRegularFile(dotGit.resolve("HEAD"))) {
        return Optional.of(dir);
      }
    }
    return Optional.empty();
  }

  /**
   * A train.yaml whose real path leaves the repository (a symlink out of it) is not in the commit
   * pods clone.
   */
  static List<Diagnostic> outside(String path, SourceLocation at) {
    if (!path.startsWith("../")) {
      return List.of();
    }
    return List.of(
        Diagnostic.error(
                DiagnosticCode.SOURCE_NOT_COMMITTED,
                at,
                "",
                "train.yaml resolves to "
                    + path
                    + ", outside the repository, so it is not in the commit pods clone")
            .withHint("put train.yaml (not a symlink to it) into the repository"));
  }

  private static List<Diagnostic> withUnchecked(
      List<Diagnostic> found, String sha, SourceLocation at) {
    List<Diagnostic> all = new ArrayList<>(found);
    all.add(
        unchecked(
            at,
            sha,
            " is not checked: train.yaml is in no git repository, so nothing tells whether that"
                + " commit exists and holds this train.yaml",
            "run in a checkout of the source repo (CI's work tree) to have it checked"));
    return all;
  }

  /** {@link DiagnosticCode#COMMIT_UNCHECKED}: "--source-commit SHA" + {@code why}, and a hint. */
  private static Diagnostic unchecked(SourceLocation at, String sha, String why, String hint) {
    return Diagnostic.warning(
            DiagnosticCode.COMMIT_UNCHECKED, at, "", "--source-commit " + sha + why)
        .withHint(hint);
  }

  /** train.yaml's path below the working directory, if it is below it. */
  private static Optional<String> relativeTo(Path workingDirectory, Path file) {
    Path cwd = workingDirectory.toAbsolutePath().normalize();
    return file.startsWith(cwd)
        ? Optional.of(cwd.relativize(file).toString().replace('\\', '/'))
        : Optional.empty();
  }

  private String pathIn(Path workTree, Path file) {
    try {
      return realPath(workTree).relativize(realPath(file)).toString().replace('\\', '/');
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static StageResult<SourceInfo> checked(
      Optional<String> url,
      Optional<String> commit,
      String path,
      boolean commitOverridden,
      SourceLocation at,
      List<Diagnostic> found) {
    List<Diagnostic> problems = new ArrayList<>();
    checkUrl(url, at, problems);
    checkCommit(commit, commitOverridden, at, problems);
    problems.addAll(found);
    return problems.stream().noneMatch(Diagnostic::isError)
        ? StageResult.of(new SourceInfo(url.orElseThrow(), commit.orElseThrow(), path), problems)
        : StageResult.failed(problems);
  }

  private static StageResult<SourceInfo> notInRepository(String displayPath, SourceLocation at) {
    return StageResult.failed(
        List.of(
            Diagnostic.error(
                    DiagnosticCode.SOURCE_NO_REMOTE,
                    at,
                    "",
                    displayPath
                        + " is not inside a git repository, so pods have no commit to clone")
                .withHint(
                    "commit it to a git repository with a remote, or pass --source-repo URL --source-commit SHA and run"
                        + " from the checkout's root")));
  }

  private static void checkUrl(Optional<String> url, SourceLocation at, List<Diagnostic> problems) {
    if (url.isEmpty()) {
      problems.add(
          Diagnostic.error(
                  DiagnosticCode.SOURCE_NO_REMOTE,
                  at,
                  "",
                  "the git repository has no remote, so pods cannot clone the code")
              .withHint(
                  "add one (`git remote add origin https://…`) and push, or pass --source-repo URL"));
    } else if (!namesRepository(url.get())) {
      problems.add(
          Diagnostic.error(
                  DiagnosticCode.SOURCE_NO_REMOTE,
                  at,
                  "",
                  "the source repo URL \""
                      + shown(url.get())
                      + "\" names no repository (no host or no path)")
              .withHint(
                  "pass the clone URL, e.g. --source-repo https://github.com/acme/project.git"));
    } else if (isLocalPath(url.get())) {
      problems.add(
          Diagnostic.error(
                  DiagnosticCode.SOURCE_NO_REMOTE,
                  at,
                  "",
                  "the remote \""
                      + shown(url.get())
                      + "\" is a local path, which pods in the cluster cannot clone")
              .withHint(
                  "pass --source-repo with the URL your forge serves, e.g. https://github.com/acme/project.git"));
    }
  }

  /**
   * {@code url} as a message may show it, since these parts can hold a token: an http(s) URL's user
   * info, any other URL's password ({@code git@host:} stays), and any query or fragment, each
   * replaced by {@code …}.
   */
  static String shown(String url) {
    return url.replaceFirst("^(?i)(https?://)[^/@]+@", "$1…@")
        .replaceFirst("^([a-zA-Z][a-zA-Z0-9+.-]*://)?([^/@:]*):[^/@]*@", "$1$2:…@")
        .replaceFirst("[?#].*$", "?…");
  }

  private static final Pattern URL =
      Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*://([^/?#]*)(/[^?#]*)?");
  private static final Pattern USER = Pattern.compile("^[^@]*@");
  private static final Pattern SCP = Pattern.compile("^[^/@:]+@([^/:]*):(.*)$");

  /**
   * Whether a URL has a host and a path beyond {@code /} ({@code https://} and {@code
   * https://host/} have not).
   */
  static boolean namesRepository(String url) {
    Matcher m = URL.matcher(url);
    if (m.find()) {
      String host = USER.matcher(m.group(1)).replaceFirst("");
      String path = m.group(2) == null ? "" : m.group(2);
      return !host.isEmpty() && !path.replace("/", "").isEmpty();
    }
    Matcher scp = SCP.matcher(url);
    return !scp.matches() || !scp.group(1).isEmpty() && !scp.group(2).replace("/", "").isEmpty();
  }

  /**
   * Whether pods could not clone {@code url}: anything but a URL with a network scheme ({@code
   * https://}, {@code ssh://}, not {@code file:}) or the scp form {@code user@host:path} is a path
   * on this machine ({@code /srv/x.git}, {@code ../x}, {@code ~/x}, {@code C:\x}).
   */
  static boolean isLocalPath(String url) {
    // Schemes are case-insensitive (RFC 3986 §3.1): FILE:///x is a local path too.
    boolean network =
        url.matches("^[A-Za-z][A-Za-z0-9+.-]*://.*")
            && !url.toLowerCase(Locale.ROOT).startsWith("file:");
    return !(network || url.matches("^[^/]+@[^/]+:.*"));
  }

  private static void checkCommit(
      Optional<String> commit, boolean overridden, SourceLocation at, List<Diagnostic> problems) {
    if (commit.isEmpty()) {
      problems.add(
          Diagnostic.error(
                  DiagnosticCode.SOURCE_NOT_COMMITTED,
                  at,
                  "",
                  "the git repository has no commit yet")
              .withHint("commit train.yaml and the code, then compile again"));
    } else if (overridden && !SHA.matcher(commit.get()).matches()) {
      problems.add(
          Diagnostic.error(
                  DiagnosticCode.SOURCE_NOT_COMMITTED,
                  at,
                  "",
                  (commit.get().matches("[0-9a-fA-F]{40}")
                          ? "--source-commit must be written in lower case, as git prints it, got \""
                          : "--source-commit must be a full 40-character commit SHA, got \"")
                      + commit.get()
                      + "\"")
              .withHint(
                  "use `git rev-parse HEAD`; a branch name would let the pods run other code than was reviewed"));
    }
  }

  /**
   * The JGit half: opens the repository, reads the remote, HEAD and the status of train.yaml's
   * folder. A nested class so that loading {@link GitSourceInspector} on the CI path does not load
   * JGit: even a JGit type in a catch clause makes the JVM open and signature-check the (signed)
   * JGit jar.
   */
  private static final class LocalRepository {
    static StageResult<SourceInfo> inspect(
        GitSourceInspector inspector,
        Path file,
        String displayPath,
        Optional<String> repoOverride,
        Optional<String> commitOverride,
        Optional<Path> ignored,
        boolean workingTree,
        SourceLocation at) {
      Optional<Path> gitDir = gitDir(inspector, file);
      if (gitDir.isEmpty()) {
        return notInRepository(displayPath, at);
      }
      Repository repo =
          (Repository)
              inspector.repositories.computeIfAbsent(
                  gitDir.get(), dir -> open(new FileRepositoryBuilder().setGitDir(dir.toFile())));
      Remotes remotes = remotes(inspector, gitDir.get(), repo);
      // new Git(repo) does not close the repository it is given.
      try (Git git = new Git(repo)) {
        String path = inspector.pathIn(repo.getWorkTree().toPath(), file);
        Optional<Diagnostic> ambiguous =
            repoOverride.isPresent() ? Optional.empty() : ambiguousRemotes(remotes, at);
        if (ambiguous.isPresent()) {
          return StageResult.failed(List.of(ambiguous.get()));
        }
        Optional<String> url = repoOverride.or(remotes::url);
        Optional<String> commit = commitOverride.or(() -> head(repo));
        List<Diagnostic> problems = new ArrayList<>(outside(path, at));
        if (!problems.isEmpty()) {
          return StageResult.failed(problems);
        }
        Path workTree = repo.getWorkTree().toPath().toAbsolutePath().normalize();
        // An ignored folder outside the work tree relativizes to `../…`, which no path in it starts
        // with.
        Optional<String> ignoredPath =
            ignored.map(i -> workTree.relativize(i).toString().replace('\\', '/'));
        if (commitOverride.isEmpty() && commit.isPresent()) {
          checkClean(status(inspector, gitDir.get(), git, path), path, ignoredPath, at, problems);
          checkPushed(inspector, gitDir.get(), repo, remotes, commit.get(), at, problems);
        }
        if (commitOverride.isPresent() && !workingTree) {
          boolean sameRepo =
              repoOverride.isEmpty()
                  || remotes.url().map(u -> sameRepository(u, repoOverride.get())).orElse(false);
          checkInCommit(
              inspector,
              gitDir.get(),
              repo,
              new Pinned(commitOverride.get(), sameRepo, remotes.url().isPresent()),
              path,
              file,
              at,
              problems);
        }
        return checked(url, commit, path, commitOverride.isPresent(), at, problems);
      }
    }

    private static Repository open(FileRepositoryBuilder builder) {
      try {
        return builder.build();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /**
     * JGit's search for the git directory ({@code findGitDir}), from train.yaml's work tree, once
     * per work tree: no folder between train.yaml's and its work tree has a {@code .git}, so one
     * search serves every train.yaml of a work tree. Starting at the work tree, not at train.yaml's
     * folder, also skips a folder that JGit would take for a bare repository ({@code HEAD}, {@code
     * objects/}, {@code refs/} side by side): from there JGit found that "repository" and failed
     * for want of a work tree (exit 4 before; a fresh user's finding). Without a work tree (no
     * {@code .git} above train.yaml) JGit searches from train.yaml's folder, once per folder.
     */
    private static Optional<Path> gitDir(GitSourceInspector inspector, Path file) {
      Path from = inspector.workTree(file).orElse(file.getParent());
      return inspector.gitDirs.computeIfAbsent(
          from,
          f ->
              Optional.ofNullable(new FileRepositoryBuilder().findGitDir(f.toFile()).getGitDir())
                  .map(d -> d.toPath().toAbsolutePath().normalize()));
    }

    /**
     * The remotes of the repository's config (repository, user and system files, as git reads
     * them), read again when the repository's {@code config} file changed ({@link #remotes}).
     */
    private static Remotes remotes(GitSourceInspector inspector, Path gitDir, Repository repo) {
      List<Object> stamp = stamp(repo.getCommonDirectory().toPath().resolve("config"));
      StampedRemotes known = inspector.remotes.get(gitDir);
      if (known != null && known.stamp().equals(stamp)) {
        return known.remotes();
      }
      Remotes read = remotes(repo);
      inspector.remotes.put(gitDir, new StampedRemotes(stamp, read));
      return read;
    }

    /** A file's modification time, size and inode; an empty list when it cannot be read. */
    private static List<Object> stamp(Path file) {
      try {
        BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
        return Arrays.asList(a.lastModifiedTime(), a.size(), a.fileKey());
      } catch (IOException e) {
        return List.of();
      }
    }

    private static Remotes remotes(Repository repo) {
      var config = repo.getConfig();
      SortedMap<String, String> urls = new TreeMap<>();
      for (String name : config.getSubsections("remote")) {
        urls.put(name, config.getString("remote", name, "url"));
      }
      return new Remotes(Collections.unmodifiableSortedMap(urls));
    }

    /**
     * Several remotes and none named origin: which one pods clone is a guess, so the user names it.
     */
    private static Optional<Diagnostic> ambiguousRemotes(Remotes remotes, SourceLocation at) {
      SortedMap<String, String> urls = remotes.urls();
      if (urls.get("origin") != null || urls.size() < 2) {
        return Optional.empty();
      }
      List<String> named =
          urls.entrySet().stream().map(r -> r.getKey() + " (" + r.getValue() + ")").toList();
      return Optional.of(
          Diagnostic.error(
                  DiagnosticCode.SOURCE_NO_REMOTE,
                  at,
                  "",
                  "the git repository has "
                      + urls.size()
                      + " remotes and none is named origin: "
                      + String.join(", ", named))
              .withHint(
                  "pass --source-repo with the URL pods should clone, e.g. --source-repo "
                      + urls.get(urls.firstKey())));
    }

    /**
     * Refs that mirror what a remote has: remote-tracking branches, and the refs CI systems fetch
     * for pull and merge requests (GitHub {@code refs/remotes/pull/N/merge} via actions/checkout,
     * GitLab {@code refs/merge-requests/N/head} and {@code refs/pipelines/ID}).
     */
    private static final List<String> REMOTE_REFS =
        List.of("refs/remotes/", "refs/pull/", "refs/merge-requests/", "refs/pipelines/");

    /**
     * A warning when HEAD is on no remote-tracking ref, also when the repository has none at all
     * (never fetched or pushed): it was not pushed, so the pods' clone of the source repo cannot
     * check it out.
     */
    private static void checkPushed(
        GitSourceInspector inspector,
        Path gitDir,
        Repository repo,
        Remotes remotes,
        String sha,
        SourceLocation at,
        List<Diagnostic> problems) {
      Pushed found = inspector.pushed.computeIfAbsent(List.of(gitDir, sha), k -> pushed(repo, sha));
      if (found.onRemoteRef()) {
        return;
      }
      // No remote refs at all (git init + remote add, never fetched or pushed) is the plainest
      // case of all:
      // `git push -u` would have left refs/remotes/<remote>/<branch>.
      String why =
          found.anyRemoteRef()
              ? " is on no remote-tracking branch (not pushed yet?)"
              : " is on no remote-tracking branch: the repository was never fetched or pushed (no refs/remotes)";
      problems.add(
          Diagnostic.warning(
                  DiagnosticCode.COMMIT_NOT_PUSHED,
                  at,
                  "",
                  "commit "
                      + sha.substring(0, 12)
                      + why
                      + "; pods clone the remote and could not check it out")
              .withHint(
                  (found.anyRemoteRef() ? "git push" : "git push -u " + remotes.name() + " HEAD")
                      + ", then submit; or ignore this if the commit reaches the remote another way"));
    }

    /** Whether {@code sha} is on a ref of {@link #REMOTE_REFS}, and whether there is any. */
    private static Pushed pushed(Repository repo, String sha) {
      try (RevWalk walk = new RevWalk(repo)) {
        var commit = walk.parseCommit(ObjectId.fromString(sha));
        List<Ref> remote = new ArrayList<>();
        for (String prefix : REMOTE_REFS) {
          remote.addAll(repo.getRefDatabase().getRefsByPrefix(prefix));
        }
        for (var ref : remote) {
          if (ref.getObjectId() != null
              && walk.isMergedInto(commit, walk.parseCommit(ref.getObjectId()))) {
            return new Pushed(true, true);
          }
        }
        return new Pushed(false, !remote.isEmpty());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    private static Optional<String> head(Repository repo) {
      try {
        ObjectId id = repo.resolve("HEAD^{commit}");
        return Optional.ofNullable(id).map(ObjectId::name);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /**
     * {@code --source-commit}, whether the work tree is a clone of the source repo pods clone, and
     * whether it has a remote at all (a clone of another repository, such as a fork's base, does).
     */
    private record Pinned(String sha, boolean sameRepo, boolean hasRemote) {}

    /**
     * Whether two clone URLs name one repository (https, ssh and scp forms alike, {@code .git} or
     * not).
     */
    private static boolean sameRepository(String a, String b) {
      return new SourceInfo(a, "", "")
          .normalizedRepo()
          .equals(new SourceInfo(b, "", "").normalizedRepo());
    }

    /**
     * With {@code --source-commit}, train.yaml must be in that commit exactly as on disk, or pods
     * would run another job than the one compiled. A commit the local repository does not have is
     * an error, or a warning in a shallow clone (CI), where it may just not have been fetched; when
     * the work tree is not a clone of {@code --source-repo} (no remote, or another one), a missing
     * commit is not its business and passes.
     */
    private static boolean has(Repository repo, ObjectId id) {
      try {
        return repo.getObjectDatabase().has(id);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    private static void checkInCommit(
        GitSourceInspector inspector,
        Path gitDir,
        Repository repo,
        Pinned pinned,
        String path,
        Path file,
        SourceLocation at,
        List<Diagnostic> problems) {
      String sha = pinned.sha();
      try {
        if (!SHA.matcher(sha).matches()) {
          return;
        }
        boolean missing =
            !inspector.commits.computeIfAbsent(
                List.of(gitDir, sha), k -> has(repo, ObjectId.fromString(sha)));
        if (missing && !pinned.sameRepo() && !pinned.hasRemote()) {
          // A work tree without a remote says nothing of --source-repo: both flags pin the source.
          return;
        }
        if (missing && !pinned.sameRepo()) {
          // A clone of another repository than --source-repo (a fork's base) need not hold the
          // commit: not an error, but not a silent pass either.
          problems.add(
              unchecked(
                  at,
                  sha,
                  " is not in this repository, whose remote is not --source-repo, so it cannot be"
                      + " checked against train.yaml",
                  "fetch it (git fetch SOURCE_REPO_URL "
                      + sha
                      + ") to have it checked, or run in a clone of --source-repo"));
          return;
        }
        if (missing) {
          boolean shallow = Files.exists(repo.getDirectory().toPath().resolve("shallow"));
          problems.add(
              shallow
                  ? unchecked(
                      at,
                      sha,
                      " is not in this shallow clone, so it cannot be checked against train.yaml",
                      "fetch it (git fetch --depth=1 origin " + sha + ") to have it checked")
                  : Diagnostic.error(
                          DiagnosticCode.UNKNOWN_COMMIT,
                          at,
                          "",
                          "--source-commit " + sha + " is not a commit of this repository")
                      .withHint(
                          "pass a commit of this repository (git log), or git fetch the one you mean"));
          return;
        }
        ObjectId commit = ObjectId.fromString(sha);
        try (RevWalk walk = new RevWalk(repo);
            TreeWalk tree = TreeWalk.forPath(repo, path, walk.parseCommit(commit).getTree())) {
          if (tree == null) {
            problems.add(
                Diagnostic.error(
                        DiagnosticCode.SOURCE_NOT_COMMITTED,
                        at,
                        "",
                        path + " is not in commit " + sha)
                    .withHint("commit it, or pass the commit that holds it"));
          } else if (!Arrays.equals(
              repo.open(tree.getObjectId(0)).getBytes(), Files.readAllBytes(file))) {
            problems.add(
                Diagnostic.error(
                        DiagnosticCode.SOURCE_NOT_COMMITTED,
                        at,
                        "",
                        path + " differs from its version in commit " + sha)
                    .withHint("commit your change; pods run the committed version"));
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /**
     * The status of train.yaml's folder: {@code git status} of that folder for the repository's
     * first train.yaml, else the filtered whole status, read once ({@link #statuses}).
     */
    private static WorkTreeStatus status(
        GitSourceInspector inspector, Path gitDir, Git git, String trainYamlPath) {
      String folder = folderOf(trainYamlPath);
      if (inspector.statusAsked.add(gitDir)) {
        return status(git, folder);
      }
      return inspector.statuses.computeIfAbsent(gitDir, d -> status(git, "")).under(folder);
    }

    private static WorkTreeStatus status(Git git, String folder) {
      try {
        var status = git.status();
        if (!folder.isEmpty()) {
          status.addPath(folder);
        }
        Status s = status.call();
        return new WorkTreeStatus(s.getUntracked(), s.getUncommittedChanges());
      } catch (GitAPIException e) {
        throw new IllegalStateException("git status failed", e);
      }
    }

    private static String folderOf(String trainYamlPath) {
      int slash = trainYamlPath.lastIndexOf('/');
      return slash < 0 ? "" : trainYamlPath.substring(0, slash);
    }

    private static void checkClean(
        WorkTreeStatus s,
        String trainYamlPath,
        Optional<String> ignored,
        SourceLocation at,
        List<Diagnostic> problems) {
      String folder = folderOf(trainYamlPath);
      Set<String> untracked = new TreeSet<>(s.untracked());
      ignored.ifPresent(i -> untracked.removeIf(c -> c.equals(i) || c.startsWith(i + "/")));
      OutputTrees.remove(untracked);
      Set<String> changed = new TreeSet<>(s.uncommitted());
      ignored.ifPresent(i -> changed.removeIf(c -> c.equals(i) || c.startsWith(i + "/")));
      changed.addAll(untracked);
      if (!changed.isEmpty()) {
        String hint = "commit (and push) them first; the run clones exactly the commit";
        if (!untracked.isEmpty()) {
          hint +=
              "; files pods do not need ("
                  + String.join(", ", OutputTrees.patterns(untracked, folder))
                  + ") belong in .gitignore";
        }
        problems.add(
            Diagnostic.error(
                    DiagnosticCode.SOURCE_NOT_COMMITTED,
                    at,
                    "",
                    changed.size()
                        + " file(s) next to train.yaml are not committed ("
                        + String.join(", ", changed.stream().limit(3).toList())
                        + (changed.size() > 3 ? ", …" : "")
                        + "); pods would run the committed version, not yours")
                .withHint(hint));
      }
    }
  }
}
