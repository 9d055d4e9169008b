package dev.trainyard.gitops;

import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.eclipse.jgit.errors.RevisionSyntaxException;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.NullProgressMonitor;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.TreeFormatter;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.revwalk.filter.RevFilter;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.transport.FetchConnection;
import org.eclipse.jgit.transport.FetchResult;
import org.eclipse.jgit.transport.PushResult;
import org.eclipse.jgit.transport.RefSpec;
import org.eclipse.jgit.transport.RemoteRefUpdate;
import org.eclipse.jgit.transport.Transport;
import org.eclipse.jgit.transport.URIish;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.treewalk.filter.TreeFilter;

/**
 * The GitOps repository as Trainyard reads and writes it, through JGit (with {@link TreeSurgery},
 * {@link GitTreeSnapshot}, {@link MemoryObjects}, {@link GitCredentials} and {@link SourceAuthor},
 * the only classes of this module that import JGit). Writes never need a working tree: a commit is
 * built from the base commit's tree plus {@link TreeEdit}s, rewriting only the trees on the edited
 * paths, so a repository with 10,000 runs costs a few tree rewrites, not a checkout.
 *
 * <p>Remote repositories are kept as a bare mirror under {@code <cache>/gitops/<sha256(url)>.git},
 * fetched before every change and locked for the process that uses it (two submits on one machine
 * take turns; two machines race at the remote, and {@link Publisher} retries the loser).
 *
 * <pre>
 * try (GitOpsRepository repo = GitOpsRepository.mirror(location, cacheRoot, System.getenv())) {
 *   Optional&lt;Snapshot&gt; tip = repo.fetch("main");
 *   Snapshot next = repo.apply(tip, edits);
 *   repo.commit(tip, next, text).ifPresent(id -&gt; repo.push(id, "main", tip));
 * }
 * </pre>
 */
public final class GitOpsRepository implements AutoCloseable {
  private static final long LOCK_WAIT_MILLIS = 120_000;

  /** Environment variable: seconds a connection to the GitOps repository may stay silent. */
  public static final String TIMEOUT_ENV = "TRAINYARD_GITOPS_TIMEOUT";

  /** {@link #TIMEOUT_ENV}'s default and bounds, in seconds. */
  static final int DEFAULT_TIMEOUT_SECONDS = 60;

  static final int MAX_TIMEOUT_SECONDS = 3_600;
  private final Repository repo;
  private final Optional<GitOpsLocation> remote;
  private final GitCredentials credentials;
  private final Optional<FileChannel> lockChannel;
  private final int timeoutSeconds;

  /** The dry runs' objects ({@link #applyUnstored}), made on first use; gone with this object. */
  private MemoryObjects unstored;

  private GitOpsRepository(
      Repository repo,
      Optional<GitOpsLocation> remote,
      Map<String, String> env,
      Optional<FileChannel> lock,
      int timeoutSeconds) {
    this.repo = repo;
    this.remote = remote;
    this.credentials = new GitCredentials(env);
    this.lockChannel = lock;
    this.timeoutSeconds = timeoutSeconds;
  }

  /**
   * The seconds a connection may stay silent before JGit gives up on a request (its connect and
   * read timeout, {@code Transport.setTimeout}): {@value #TIMEOUT_ENV}, a whole number from 1 to
   * 3600, default 60.
   *
   * @throws GitOpsException (usage) when the variable is set to anything else
   */
  static int timeoutSeconds(Map<String, String> env) throws GitOpsException {
    String value = env.get(TIMEOUT_ENV);
    if (value == null || value.isBlank()) {
      return DEFAULT_TIMEOUT_SECONDS;
    }
    try {
      int seconds = Integer.parseInt(value.strip());
      if (seconds >= 1 && seconds <= MAX_TIMEOUT_SECONDS) {
        return seconds;
      }
    } catch (NumberFormatException e) {
      // Reported below.
    }
    throw GitOpsException.usage(
        TIMEOUT_ENV
            + "=\""
            + value
            + "\" is not a number of seconds from 1 to "
            + MAX_TIMEOUT_SECONDS,
        "set it to the seconds a GitOps server may stay silent, or unset it for "
            + DEFAULT_TIMEOUT_SECONDS);
  }

  /**
   * Whether {@code name} is a branch a GitOps repository can have, by git's own ref-name rules
   * (JGit's {@code Repository.isValidRefName} on {@code refs/heads/<name>}: no {@code ..}, blanks,
   * {@code ~ ^ : ? * [ \\}, {@code @{}, a {@code .lock} suffix, a leading or trailing {@code /}
   * or {@code .}), not starting with {@code -} and not {@code HEAD} (which {@code git branch} and
   * {@code git check-ref-format --branch} refuse too).
   */
  public static boolean isBranchName(String name) {
    return !name.isEmpty()
        && !name.startsWith("-")
        && !name.equals("HEAD")
        && Repository.isValidRefName(Constants.R_HEADS + name);
  }

  /**
   * Opens the bare mirror of {@code location} under {@code cacheRoot}, creating it on first use,
   * and locks it for this process (waiting up to 2 minutes for another process on this machine).
   *
   * @param env the environment to read {@code TRAINYARD_GITOPS_TOKEN} from
   * @throws GitOpsException when the cache folder cannot be created or stays locked
   */
  public static GitOpsRepository mirror(
      GitOpsLocation location, Path cacheRoot, Map<String, String> env) throws GitOpsException {
    int timeout = timeoutSeconds(env);
    Path dir = cacheRoot.resolve("gitops").resolve(key(location.url()) + ".git");
    FileChannel lock = null;
    try {
      Files.createDirectories(dir.getParent());
      lock = lock(dir.resolveSibling(dir.getFileName() + ".lock"));
      dropLeftovers(dir);
      Repository r = new FileRepositoryBuilder().setGitDir(dir.toFile()).setBare().build();
      if (!r.getObjectDatabase().exists()) {
        r.create(true);
      }
      return new GitOpsRepository(r, Optional.of(location), env, Optional.of(lock), timeout);
    } catch (LockTimeout e) {
      throw new GitOpsException(
          e.getMessage(),
          "another trainyard call on this machine (a submit, prune or preview of the same GitOps"
              + " repo) holds it; let it finish, or set TRAINYARD_CACHE to another folder",
          e);
    } catch (IOException | UncheckedIOException failure) {
      // The lock is this process's until closed: a resident server that kept it would make every
      // later call on this mirror wait and fail.
      closeQuietly(lock);
      IOException e =
          failure instanceof UncheckedIOException u ? u.getCause() : (IOException) failure;
      String why =
          e instanceof AccessDeniedException
              ? "permission denied on " + e.getMessage()
              : e.getMessage();
      throw new GitOpsException(
          "cannot use the GitOps cache " + dir + ": " + why,
          "set TRAINYARD_CACHE to a writable folder",
          e);
    }
  }

  /**
   * Opens a local repository (a GitOps checkout, bare or not) for reading commits, e.g. for a
   * preview.
   *
   * @throws GitOpsException when {@code dir} holds no git repository
   */
  public static GitOpsRepository local(Path dir) throws GitOpsException {
    try {
      FileRepositoryBuilder b =
          new FileRepositoryBuilder().readEnvironment().findGitDir(dir.toFile());
      if (b.getGitDir() == null) {
        b.setGitDir(dir.toFile()).setBare();
      }
      Repository r = b.setMustExist(true).build();
      return new GitOpsRepository(
          r, Optional.empty(), Map.of(), Optional.empty(), DEFAULT_TIMEOUT_SECONDS);
    } catch (IOException | IllegalArgumentException e) {
      throw new GitOpsException(
          "no git repository at " + dir, "run it inside a git repository or pass its path", e);
    }
  }

  /**
   * Fetches {@code branch} from the remote into the mirror.
   *
   * @return the branch tip, or empty when the repository has no branch at all yet (a new, empty
   *     repository)
   * @throws GitOpsException when the remote cannot be reached or refuses the credentials, or when
   *     it has branches but not this one (a mistyped {@code --branch} must not start an unrelated
   *     history)
   */
  public Optional<Snapshot> fetch(String branch) throws GitOpsException {
    String remoteRef = Constants.R_HEADS + branch;
    try {
      List<String> heads = heads();
      if (!heads.contains(remoteRef)) {
        if (heads.isEmpty()) {
          return Optional.empty();
        }
        throw GitOpsException.usage(
            "--branch \""
                + branch
                + "\" does not exist in "
                + shown()
                + "; it has "
                + String.join(
                    ", ",
                    heads.stream()
                        .map(h -> h.substring(Constants.R_HEADS.length()))
                        .sorted()
                        .limit(10)
                        .toList()),
            "pass one of those branches (an empty repository gets its first branch on the first submit)");
      }
      try (Transport t = open()) {
        FetchResult result =
            t.fetch(
                NullProgressMonitor.INSTANCE,
                List.of(new RefSpec("+" + remoteRef + ":" + tracking(branch))));
        Ref tip = result.getAdvertisedRef(remoteRef);
        return tip == null ? Optional.empty() : Optional.of(snapshotOf(tip.getObjectId()));
      }
    } catch (IOException | RuntimeException e) {
      throw transportFailure("fetch " + branch + " from", e);
    }
  }

  /**
   * The tree of a revision (a branch, tag or SHA) of this repository, as git rev-parse resolves it.
   *
   * @throws GitOpsException when the revision does not exist here (a usage error: {@link
   *     GitOpsException#isUsage()})
   */
  public Snapshot snapshot(String revision) throws GitOpsException {
    try {
      ObjectId id = repo.resolve(revision + "^{commit}");
      if (id == null) {
        // The user's revision (--base, --head): a usage error (exit 2), as --changed-since's is.
        throw GitOpsException.usage(
            "no commit \"" + revision + "\" in " + repo.getDirectory(),
            "fetch it first, or give a branch or full SHA");
      }
      return snapshotOf(id);
    } catch (RevisionSyntaxException e) {
      // JGit throws this unchecked for a revision it cannot parse ("HEAD^{", "HEAD@{99}"): the
      // user's mistake, a usage error, never an internal one.
      throw GitOpsException.usage(
          "\"" + revision + "\" is not a revision git can read",
          "give a branch, a tag or a commit SHA (e.g. origin/main, HEAD~1)");
    } catch (IOException e) {
      throw new GitOpsException("cannot read \"" + revision + "\": " + e.getMessage(), "", e);
    }
  }

  /**
   * The tree {@code edits} make of {@code base} (objects are written to the repository, no ref
   * moves).
   */
  public Snapshot apply(Optional<Snapshot> base, List<TreeEdit> edits) throws GitOpsException {
    return apply(base, edits, Optional.empty());
  }

  /**
   * The tree {@code edits} make of {@code base}, as {@link #apply} builds it, with its new objects
   * kept in memory ({@link MemoryObjects}) instead of the repository: for a dry run or a preview,
   * which push nothing, so the mirror in the cache gains nothing either (a 500-run preview once
   * left ~1,500 unreachable loose objects, ~9 MB, in it per call). The snapshot, a {@link #commit}
   * of it and {@link #changedFiles} read them while this repository is open.
   *
   * @throws GitOpsException when the tree cannot be built
   */
  public Snapshot applyUnstored(Optional<Snapshot> base, List<TreeEdit> edits)
      throws GitOpsException {
    if (unstored == null) {
      unstored = new MemoryObjects();
    }
    return apply(base, edits, Optional.of(unstored));
  }

  private Snapshot apply(
      Optional<Snapshot> base, List<TreeEdit> edits, Optional<MemoryObjects> memory)
      throws GitOpsException {
    try (ObjectInserter inserter = inserter(memory);
        ObjectReader reader = reader(memory)) {
      ObjectId tree =
          new TreeSurgery(reader, inserter).apply(base.map(GitOpsRepository::tree), edits);
      inserter.flush();
      return new GitTreeSnapshot(repo, memory, Optional.empty(), tree);
    } catch (IOException e) {
      throw new GitOpsException("cannot build the GitOps tree: " + e.getMessage(), "", e);
    }
  }

  /** An inserter into a dry run's memory when given, else into the repository. */
  private ObjectInserter inserter(Optional<MemoryObjects> memory) {
    return memory.isPresent() ? memory.get().inserter() : repo.newObjectInserter();
  }

  /** A reader of the repository's objects and, when given, a dry run's over them. */
  private ObjectReader reader(Optional<MemoryObjects> memory) {
    ObjectReader own = repo.newObjectReader();
    return memory.isPresent() ? memory.get().over(own) : own;
  }

  /**
   * Commits {@code next} on top of {@code base}, where {@code next}'s objects are: the repository,
   * or memory for a tree of {@link #applyUnstored}.
   *
   * @return the new commit's SHA, or empty when {@code next} has the same tree as {@code base}
   *     (nothing to commit)
   */
  public Optional<String> commit(Optional<Snapshot> base, Snapshot next, CommitText text)
      throws GitOpsException {
    ObjectId tree = tree(next);
    if (base.isPresent() && tree(base.get()).equals(tree)) {
      return Optional.empty();
    }
    Optional<MemoryObjects> memory =
        next instanceof GitTreeSnapshot g ? g.unstored() : Optional.empty();
    try (ObjectInserter inserter = inserter(memory)) {
      CommitBuilder c = new CommitBuilder();
      c.setTreeId(tree);
      base.flatMap(Snapshot::commit)
          .ifPresent(parent -> c.setParentId(ObjectId.fromString(parent)));
      c.setAuthor(ident(text.author()));
      c.setCommitter(ident(text.committer()));
      c.setMessage(text.message());
      ObjectId id = inserter.insert(c);
      inserter.flush();
      return Optional.of(id.name());
    } catch (IOException e) {
      throw new GitOpsException("cannot write the GitOps commit: " + e.getMessage(), "", e);
    }
  }

  private static PersonIdent ident(CommitText.Person p) {
    return new PersonIdent(p.name(), p.email(), p.when(), ZoneOffset.UTC);
  }

  /** What a push did. */
  public enum PushOutcome {
    /** The branch now points at the commit. */
    PUSHED,
    /**
     * Someone else moved the branch since {@code base} was fetched: fetch, re-apply, push again.
     */
    RACED
  }

  /**
   * Moves the remote {@code branch} from {@code base}'s commit to {@code commit}, only if it still
   * points there (compare-and-swap; never a force push).
   *
   * @throws GitOpsException when the remote refuses the push for another reason (permissions,
   *     hooks, protection); {@linkplain GitOpsException#isTransient() transient} when the
   *     connection broke or the server failed before its answer came: the branch may or may not
   *     have moved (check with {@link #contains} after a fetch)
   */
  public PushOutcome push(String commit, String branch, Optional<Snapshot> base)
      throws GitOpsException {
    refuseCheckedOutBranch(branch);
    ObjectId expected =
        base.flatMap(Snapshot::commit).map(ObjectId::fromString).orElse(ObjectId.zeroId());
    try (Transport t = open()) {
      RemoteRefUpdate update =
          new RemoteRefUpdate(
              repo, commit, Constants.R_HEADS + branch, false, tracking(branch), expected);
      PushResult result = t.push(NullProgressMonitor.INSTANCE, List.of(update));
      RemoteRefUpdate done = result.getRemoteUpdate(Constants.R_HEADS + branch);
      return outcome(done, branch);
    } catch (IOException | RuntimeException e) {
      throw transportFailure("push " + branch + " to", e);
    }
  }

  /**
   * Refuses a push to the branch a local working copy has checked out, as git does by default
   * (git-config(1), {@code receive.denyCurrentBranch}: "refuse" unless it is set to {@code ignore},
   * {@code warn} or {@code false}): the push would move the branch under that copy's files and
   * index, so they would show the pushed files as deleted, and its next commit would undo the push.
   * JGit's local transport does not check this itself. Bare repositories and other branches pass.
   *
   * @throws GitOpsException a usage error naming {@code --gitops} and the branch
   */
  private void refuseCheckedOutBranch(String branch) throws GitOpsException {
    Optional<Path> dir = remote.flatMap(GitOpsLocation::localPath);
    if (dir.isEmpty() || !Files.exists(dir.get().resolve(Constants.DOT_GIT))) {
      return;
    }
    try (Repository target =
        new FileRepositoryBuilder().setWorkTree(dir.get().toFile()).setMustExist(true).build()) {
      String deny = target.getConfig().getString("receive", null, "denyCurrentBranch");
      boolean allowed =
          deny != null && Set.of("ignore", "warn", "false").contains(deny.toLowerCase(Locale.ROOT));
      if (allowed || !(Constants.R_HEADS + branch).equals(target.getFullBranch())) {
        return;
      }
    } catch (IOException e) {
      return; // not readable as a working copy: the push itself reports what is wrong
    }
    throw GitOpsException.usage(
        "--gitops "
            + shown()
            + " is a working copy with "
            + branch
            + " checked out: a push would move "
            + branch
            + " under its files, and its next commit would undo the push (git refuses this push"
            + " too: receive.denyCurrentBranch)",
        "submit to a bare repository (`git init --bare -b "
            + branch
            + "`) or to the remote that working copy pushes to");
  }

  private PushOutcome outcome(RemoteRefUpdate done, String branch) throws GitOpsException {
    switch (done.getStatus()) {
      case OK, UP_TO_DATE:
        return PushOutcome.PUSHED;
      case REJECTED_NONFASTFORWARD, REJECTED_REMOTE_CHANGED:
        return PushOutcome.RACED;
      case REJECTED_OTHER_REASON:
        String why = String.valueOf(done.getMessage());
        if (why.contains("lock") || why.contains("failed to update") || why.contains("stale")) {
          return PushOutcome.RACED;
        }
        throw new GitOpsException(
            "the GitOps repository " + shown() + " refused the push to " + branch + ": " + why,
            "check the branch protection rules and that the token may push to " + branch);
      default:
        throw new GitOpsException(
            "the push to " + branch + " of " + shown() + " failed: " + done.getStatus(), "");
    }
  }

  /**
   * The remote's branches ({@code refs/heads/...}); an empty repository has none, and fetching one
   * would fail.
   */
  private List<String> heads() throws IOException {
    try (Transport t = open();
        FetchConnection c = t.openFetch()) {
      return c.getRefs().stream()
          .map(Ref::getName)
          .filter(n -> n.startsWith(Constants.R_HEADS))
          .toList();
    }
  }

  private Transport open() throws IOException {
    GitOpsLocation location =
        remote.orElseThrow(() -> new IllegalStateException("a local repository has no remote"));
    try {
      Transport t = Transport.open(repo, new URIish(location.url()));
      t.setCredentialsProvider(credentials);
      t.setTimeout(timeoutSeconds);
      return t;
    } catch (URISyntaxException e) {
      throw new IOException("not a git URL: " + location.shown(), e);
    }
  }

  /**
   * A failed fetch or push as the user reads it: refused credentials name where they came from
   * (never their value), a broken connection or a failing server is {@linkplain
   * GitOpsException#isTransient() transient}.
   */
  private GitOpsException transportFailure(String action, Exception e) {
    String message = GitOpsLocation.redact(String.valueOf(e.getMessage()));
    // JGit reports HTTP answers only in its message; the URL (whose port may read "401") is cut out
    // first.
    String answer =
        message
            .replace(shown(), "")
            .replace(remote.map(GitOpsLocation::url).orElse(""), "")
            .replaceFirst("^[:\\s]+", "");
    if (answer.contains("not authorized")
        || answer.contains("Authentication is required")
        || answer.contains("authentication not supported")
        || answer.matches("(?s).*\\b401\\b.*")) {
      return new GitOpsException(
          "cannot " + action + " " + shown() + ": " + credentials.refusal(), credentials.hint(), e);
    }
    if (answer.contains("ermission denied")
        || answer.contains("not permitted")
        || answer.matches("(?s).*\\b403\\b.*")) {
      return new GitOpsException(
          "cannot " + action + " " + shown() + ": " + answer,
          "the user or token may not write to this repository: use a token with push access ("
              + GitCredentials.TOKEN_ENV
              + ")",
          e);
    }
    String reason = transientReason(e, answer, timeoutSeconds);
    if (!reason.isEmpty()) {
      return GitOpsException.transientFailure(
          "cannot " + action + " " + shown() + ": " + reason,
          reason.startsWith("no answer")
              ? "check that the server is up; a slow server needs a larger "
                  + TIMEOUT_ENV
                  + " (seconds, default "
                  + DEFAULT_TIMEOUT_SECONDS
                  + ")"
              : "check the --gitops URL and that the server is reachable",
          reason,
          e);
    }
    return new GitOpsException(
        "cannot " + action + " " + shown() + ": " + answer,
        "check the --gitops URL and that the server is reachable",
        e);
  }

  private static final Pattern SERVER_ERROR = Pattern.compile("\\b(5\\d\\d|429)\\b[^\\n:]*");

  /**
   * A failure that may pass when tried again, in a few words, or "" for one that will not (a
   * refused request, an unknown host, a refused connection, a bad URL): the connection was reset or
   * ended early (the JDK's {@code SocketException}, {@code EOFException}), nothing came within the
   * timeout ({@code SocketTimeoutException}), or the server answered 5xx or 429 (RFC 9110 §15.6,
   * RFC 6585 §4).
   */
  static String transientReason(Throwable e, String answer, int timeoutSeconds) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof SocketTimeoutException) {
        return "no answer within " + timeoutSeconds + " s (" + TIMEOUT_ENV + ")";
      }
      if (c instanceof UnknownHostException
          || c instanceof URISyntaxException
          || c instanceof ConnectException) {
        return ""; // a wrong URL or port more often than a restart: fail at once
      }
      if (c instanceof SocketException s) {
        return String.valueOf(s.getMessage()).toLowerCase(Locale.ROOT);
      }
      if (c instanceof EOFException) {
        return "the connection ended early";
      }
    }
    Matcher m = SERVER_ERROR.matcher(answer);
    if (m.find()) {
      return "the server answered " + m.group().strip();
    }
    if (answer.contains("Read timed out") || answer.contains("timed out")) {
      return "no answer within " + timeoutSeconds + " s (" + TIMEOUT_ENV + ")";
    }
    if (answer.contains("Connection reset")) {
      return "connection reset";
    }
    if (answer.contains("Premature EOF")
        || answer.contains("Unexpected end")
        || answer.contains("Short read")
        || answer.contains("truncated")) {
      return "the connection ended early";
    }
    return "";
  }

  /**
   * Whether {@code commit} is {@code tip} or one of its ancestors (both must be in this repository:
   * fetch the tip first).
   *
   * @throws GitOpsException when either commit cannot be read
   */
  public boolean contains(String tip, String commit) throws GitOpsException {
    ObjectId t = ObjectId.fromString(tip);
    ObjectId c = ObjectId.fromString(commit);
    if (t.equals(c)) {
      return true;
    }
    try (RevWalk walk = new RevWalk(repo)) {
      return walk.isMergedInto(walk.parseCommit(c), walk.parseCommit(t));
    } catch (IOException e) {
      throw new GitOpsException(
          "cannot read the history of " + repo.getDirectory() + ": " + e.getMessage(), "", e);
    }
  }

  /** The repository as printed: its URL without credentials, or a local repository's folder. */
  String shown() {
    return remote.map(GitOpsLocation::shown).orElse(repo.getDirectory().toString());
  }

  private static String tracking(String branch) {
    return Constants.R_REMOTES + "origin/" + branch;
  }

  private Snapshot snapshotOf(ObjectId commit) throws IOException {
    try (RevWalk walk = new RevWalk(repo)) {
      RevCommit c = walk.parseCommit(commit);
      return new GitTreeSnapshot(repo, Optional.of(c.name()), c.getTree().getId());
    }
  }

  private static ObjectId tree(Snapshot s) {
    if (s instanceof GitTreeSnapshot g) {
      return g.tree();
    }
    throw new IllegalArgumentException("not a snapshot of this repository: " + s);
  }

  private static FileChannel lock(Path file) throws IOException {
    FileChannel channel =
        FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    long deadline = System.nanoTime() + LOCK_WAIT_MILLIS * 1_000_000;
    while (System.nanoTime() < deadline) {
      try {
        FileLock held = channel.tryLock();
        if (held != null) {
          return channel;
        }
      } catch (OverlappingFileLockException e) {
        // Another GitOpsRepository of this JVM holds it: wait like for another process.
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    channel.close();
    throw new LockTimeout(
        "the cache "
            + file
            + " stayed locked by another trainyard call for "
            + LOCK_WAIT_MILLIS / 1000
            + " s");
  }

  /** The mirror's lock was held by another call for the whole wait. */
  private static final class LockTimeout extends IOException {
    private static final long serialVersionUID = 1L;

    LockTimeout(String message) {
      super(message);
    }
  }

  private static void closeQuietly(FileChannel channel) {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException e) {
        // Closing releases the lock; nothing else to do.
      }
    }
  }

  /**
   * Removes what a trainyard process killed in the middle of a fetch or push (Ctrl-C, SIGTERM, a CI
   * job cancelled) left in the mirror, which the caller now holds locked, so no live process owns
   * any of it: git's {@code *.lock} files (a ref, {@code packed-refs} or {@code config} being
   * rewritten, git's lockfile convention; JGit's {@code LockFile} uses it too), which would refuse
   * every later ref update, and JGit's {@code incoming_*} pack files of an unfinished fetch. A
   * mirror without a {@code config} file was cut off while being created: it is a cache, so it is
   * made anew.
   */
  static void dropLeftovers(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return;
    }
    if (!Files.exists(dir.resolve("config"))) {
      deleteTree(dir);
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        String name = f.getFileName().toString();
        if (name.endsWith(".lock") || name.startsWith("incoming_")) {
          Files.deleteIfExists(f);
        }
      }
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(f);
      }
    }
  }

  private static String key(String url) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(url.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The paths of the files that differ between two trees of this repository (added, removed or
   * changed), sorted. Identical sub-trees are skipped by object id, so two trees of 10,000 runs
   * that differ in one run cost one run's worth of tree reads.
   *
   * @throws GitOpsException when a tree cannot be read
   */
  public List<String> changedFiles(Snapshot base, Snapshot head) throws GitOpsException {
    try (ObjectReader reader = reader(Optional.ofNullable(unstored));
        TreeWalk walk = new TreeWalk(reader)) {
      walk.addTree(tree(base));
      walk.addTree(tree(head));
      walk.setRecursive(true);
      walk.setFilter(TreeFilter.ANY_DIFF);
      List<String> paths = new ArrayList<>();
      while (walk.next()) {
        paths.add(walk.getPathString());
      }
      paths.sort(String::compareTo);
      return List.copyOf(paths);
    } catch (IOException e) {
      throw new GitOpsException(
          "cannot compare two trees of " + repo.getDirectory() + ": " + e.getMessage(), "", e);
    }
  }

  /**
   * The best common ancestor of two commits (git merge-base), or empty when their histories are
   * unrelated.
   *
   * @throws GitOpsException when a revision does not exist here
   */
  public Optional<String> mergeBase(String a, String b) throws GitOpsException {
    try (RevWalk walk = new RevWalk(repo)) {
      walk.setRevFilter(RevFilter.MERGE_BASE);
      walk.markStart(walk.parseCommit(ObjectId.fromString(snapshot(a).commit().orElseThrow())));
      walk.markStart(walk.parseCommit(ObjectId.fromString(snapshot(b).commit().orElseThrow())));
      RevCommit base = walk.next();
      return Optional.ofNullable(base).map(RevCommit::name);
    } catch (IOException e) {
      throw new GitOpsException(
          "cannot find the merge base of " + a + " and " + b + ": " + e.getMessage(), "", e);
    }
  }

  /** The work tree of a non-bare repository opened with {@link #local(Path)}, if it has one. */
  public Optional<Path> workTree() {
    return repo.isBare() ? Optional.empty() : Optional.of(repo.getWorkTree().toPath());
  }

  /**
   * Whether this is a shallow clone (git writes {@code $GIT_DIR/shallow}, gitformat-shallow(5)):
   * its oldest commits lack parents.
   */
  public boolean isShallow() {
    return Files.exists(repo.getDirectory().toPath().resolve("shallow"));
  }

  /** The tree of an empty repository (no files), usable with {@link #changedFiles}. */
  public Snapshot emptyTree() throws GitOpsException {
    try (ObjectInserter inserter = repo.newObjectInserter()) {
      ObjectId id = inserter.insert(new TreeFormatter());
      inserter.flush();
      return new GitTreeSnapshot(repo, Optional.empty(), id);
    } catch (IOException e) {
      throw new GitOpsException("cannot write the empty tree: " + e.getMessage(), "", e);
    }
  }

  @Override
  public void close() {
    repo.close();
    lockChannel.ifPresent(
        c -> {
          try {
            c.close();
          } catch (IOException e) {
            // Closing releases the lock; nothing else to do.
          }
        });
  }
}
