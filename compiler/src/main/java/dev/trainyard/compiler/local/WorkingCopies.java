package dev.trainyard.compiler.local;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The code each local node runs in, like the pod's code-sync container gives it: a clone of the
 * source commit ({@code git clone --shared} of the local repository, then {@code git checkout
 * --detach SHA}), or with {@code --working-tree} a copy of the files git would see (tracked and
 * untracked, minus ignored ones: {@code git ls-files --cached --others --exclude-standard}). Uses
 * the {@code git} command; a failing git is an {@link IOException} naming the command and its
 * output.
 */
public final class WorkingCopies {
  private static final long GIT_SECONDS = 300;

  private WorkingCopies() {}

  /** The top folder of the work tree holding {@code dir}, or an IOException when there is none. */
  public static Path repositoryRoot(Path dir) throws IOException {
    return Path.of(git(dir, "rev-parse", "--show-toplevel").strip());
  }

  /** The full SHA of HEAD of the repository at {@code root}. */
  public static String head(Path root) throws IOException {
    return git(root, "rev-parse", "HEAD").strip();
  }

  /**
   * The full SHA of HEAD of the repository at {@code root}; empty when it has no commit yet (a
   * fresh {@code git init}).
   */
  public static Optional<String> headIfAny(Path root) throws IOException {
    Result r = run(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}");
    if (r.exit() == 1 && r.output().isBlank()) {
      return Optional.empty();
    }
    return Optional.of(checked(r, root, "rev-parse", "HEAD").strip());
  }

  /**
   * Whether git ignores {@code path} in the work tree at {@code root} ({@code git check-ignore}).
   */
  public static boolean ignored(Path root, Path path) throws IOException {
    return run(root, "check-ignore", "-q", path.toString()).exit() == 0;
  }

  /** The URL of remote {@code origin}, else of the first remote; empty without remotes. */
  public static Optional<String> remoteUrl(Path root) throws IOException {
    List<String> remotes = git(root, "remote").lines().filter(l -> !l.isBlank()).toList();
    if (remotes.isEmpty()) {
      return Optional.empty();
    }
    String name = remotes.contains("origin") ? "origin" : remotes.get(0);
    return Optional.of(git(root, "remote", "get-url", name).strip());
  }

  /** A clean clone of {@code commit} of the repository at {@code root} into {@code into}. */
  public static void clone(Path root, String commit, Path into) throws IOException {
    git(root, "clone", "--quiet", "--shared", "--no-checkout", root.toString(), into.toString());
    git(into, "-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", commit);
  }

  /** A copy of the files of the work tree at {@code root} that git tracks or would track. */
  public static void copy(Path root, Path into) throws IOException {
    String listed = git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard");
    for (String name : listed.split("\0")) {
      Path from = root.resolve(name);
      if (name.isEmpty() || !Files.exists(from, LinkOption.NOFOLLOW_LINKS)) {
        continue; // deleted in the work tree, still in the index
      }
      Path to = into.resolve(name);
      Files.createDirectories(to.getParent());
      Files.copy(
          from,
          to,
          LinkOption.NOFOLLOW_LINKS,
          StandardCopyOption.COPY_ATTRIBUTES,
          StandardCopyOption.REPLACE_EXISTING);
    }
  }

  private static String git(Path dir, String... args) throws IOException {
    return checked(run(dir, args), dir, args);
  }

  private static String checked(Result r, Path dir, String... args) throws IOException {
    if (r.exit() != 0) {
      throw new IOException(
          "git " + String.join(" ", args) + " in " + dir + " failed: " + r.output().strip());
    }
    return r.output();
  }

  private record Result(int exit, String output) {}

  private static Result run(Path dir, String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of("git", "-C", dir.toString()));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (!p.waitFor(GIT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException("git " + args[0] + " did not finish in " + GIT_SECONDS + " s");
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while running git " + args[0], e);
    }
    return new Result(p.exitValue(), output);
  }
}
