package dev.trainyard.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * Hidden {@code trainyard warmup}: runs {@code trainyard compile} on a torch job and an MPI job in
 * a throw-away folder, so the launcher script can record the classes a compile loads and archive
 * them (JDK 17 AppCDS: {@code -XX:DumpLoadedClassList}, then {@code -Xshare:dump}; JDK 25: {@code
 * -XX:AOTCacheOutput}). Classes it does not load are not archived, so it goes through the CLI
 * (option parsing, writing, reporting) and must compile without errors; then it submits the torch
 * job into a throw-away bare GitOps repo, so {@code submit} (JGit's fetch, commit and push, the
 * publish path) starts from the archive too, and previews a source repo and a GitOps repo (the
 * preview's diff and comment rendering). Exit code 0 when both compiles succeeded.
 *
 * <p>The compiles pass {@code --source-repo}/{@code --source-commit} (the CI path), so they read no
 * git. JGit's classes can be archived because the build re-packs its signed jar without the
 * signature files ({@code trainyard-cli-*-jgit-unsigned.jar}); a signed jar keeps its classes out
 * of any archive and makes every JDK 25 start signature-check it.
 */
@Command(
    name = "warmup",
    hidden = true,
    description = "Compile sample jobs in a temp folder (used to build the start-up archive).")
final class WarmupCommand implements Callable<Integer> {
  private static final String REPO = "https://example.com/warmup.git";
  private static final String COMMIT = "0123456789abcdef0123456789abcdef01234567";

  /** {@link GitOpsOptions#cacheRoot}'s override: the warm-up's mirror stays in its temp folder. */
  private static final String CACHE_PROPERTY = "trainyard.cache";

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    Invocation invocation = Invocation.of(spec);
    Path dir = Files.createTempDirectory("trainyard-warmup-");
    try {
      Path repo = Files.createDirectories(dir.resolve("warmup"));
      // The layout `git init` makes, enough for train.yaml's path in the work tree; no commit is
      // read.
      Files.createDirectories(repo.resolve(".git/objects"));
      Files.createDirectories(repo.resolve(".git/refs/heads"));
      Files.writeString(
          repo.resolve(".git/HEAD"), "ref: refs/heads/main\n", StandardCharsets.UTF_8);
      Files.writeString(
          repo.resolve("train.yaml"),
          "run: torchrun train.py\nnodes: 2\nresources: {gpus: 1}\n",
          StandardCharsets.UTF_8);
      Files.createDirectories(repo.resolve("mpi"));
      Files.writeString(
          repo.resolve("mpi/train.yaml"),
          "runtime: deepspeed\nrun: python train.py\nnodes: 2\nenv: {A: b}\n",
          StandardCharsets.UTF_8);
      String out = dir.resolve("gitops").toString();
      int torch = compile(invocation, repo.resolve("train.yaml"), out);
      int mpi = compile(invocation, repo.resolve("mpi/train.yaml"), out);
      submit(invocation, dir, repo.resolve("train.yaml"));
      preview(invocation, dir);
      return torch == 0 && mpi == 0 ? 0 : 1;
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /**
   * A preview of each kind, so that the preview's classes (its compile workers, diff, block-YAML
   * reader and comment rendering: ~300 of the ~475 classes a source-repo preview loaded outside the
   * archive) are archived too: a source-repo preview against the bare GitOps repo {@link #submit}
   * pushed to, in a source repo made with git (two commits, the second changing train.yaml), and a
   * GitOps-repo preview in a repo made with git whose second commit adds what that bare repo holds
   * (the submitted run, its queues and kustomizations). Skipped when git cannot make the repos (or
   * the submit was skipped); its outcome does not change warm-up's exit code.
   *
   * @return the GitOps-repo preview's exit code, or -1 when skipped
   */
  static int preview(Invocation invocation, Path dir) {
    Path bare = dir.resolve("gitops.git");
    Path source = dir.resolve("preview-source");
    Path submitted = dir.resolve("preview-submitted");
    Path ops = dir.resolve("preview-gitops");
    try {
      Files.createDirectories(source);
      Files.writeString(source.resolve("train.yaml"), "run: torchrun train.py\nnodes: 2\n");
      if (!git(source, "init", "-q", "-b", "main")
          || !git(source, "remote", "add", "origin", REPO)
          || !commitAll(source)) {
        return -1;
      }
      Files.writeString(source.resolve("train.yaml"), "run: torchrun train.py\nnodes: 4\n");
      Files.createDirectories(ops);
      Files.writeString(ops.resolve("README.md"), "GitOps repo\n");
      if (!commitAll(source)
          || !git(dir, "clone", "-q", "-b", "main", bare.toString(), submitted.toString())
          || !git(ops, "init", "-q", "-b", "main")
          || !commitAll(ops)
          || !copyTree(submitted.resolve("clusters"), ops.resolve("clusters"))
          || !commitAll(ops)) {
        return -1;
      }
    } catch (IOException e) {
      return -1;
    }
    PrintWriter sink = new PrintWriter(Writer.nullWriter());
    withCache(
        dir,
        () ->
            Main.run(
                new Invocation(source, invocation.environment()),
                sink,
                sink,
                "preview",
                "--gitops",
                bare.toString(),
                "--base",
                "HEAD~1",
                "--out",
                dir.resolve("comments-source").toString()));
    return withCache(
        dir,
        () ->
            Main.run(
                new Invocation(ops, invocation.environment()),
                sink,
                sink,
                "preview",
                "--base",
                "HEAD~1",
                "--out",
                dir.resolve("comments-gitops").toString()));
  }

  /** {@code git add -A} and a commit by "warmup" in {@code repo}. */
  private static boolean commitAll(Path repo) {
    return git(repo, "add", "-A")
        && git(
            repo,
            "-c",
            "user.name=warmup",
            "-c",
            "user.email=warmup@localhost",
            "commit",
            "-q",
            "-m",
            "warmup");
  }

  /** Copies the folder {@code from} to {@code to}; false when there is none. */
  private static boolean copyTree(Path from, Path to) throws IOException {
    if (!Files.isDirectory(from)) {
      return false;
    }
    try (Stream<Path> files = Files.walk(from)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Path target = to.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(target);
        } else {
          Files.copy(f, target);
        }
      }
    }
    return true;
  }

  /** Runs git with {@code args} in {@code dir} (at most 30 s); whether it exited 0. */
  private static boolean git(Path dir, String... args) {
    List<String> command = new ArrayList<>(List.of("git"));
    command.addAll(List.of(args));
    try {
      Process git =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (!git.waitFor(30, TimeUnit.SECONDS)) {
        git.destroyForcibly();
        return false;
      }
      return git.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Runs {@code call} with the GitOps mirror cache in {@code dir}'s {@code cache} folder, then puts
   * the setting back as it was.
   */
  private static int withCache(Path dir, IntSupplier call) {
    String cache = System.getProperty(CACHE_PROPERTY);
    System.setProperty(CACHE_PROPERTY, dir.resolve("cache").toString());
    try {
      return call.getAsInt();
    } finally {
      if (cache == null) {
        System.clearProperty(CACHE_PROPERTY);
      } else {
        System.setProperty(CACHE_PROPERTY, cache);
      }
    }
  }

  /**
   * Two submits of {@code trainYaml} into a throw-away bare GitOps repo (made with {@code git init
   * --bare}), the first cloning the mirror and the second fetching into it as a CI runner with a
   * cache does, so that JGit's transport, commit and push classes and the publish path are archived
   * too: a submit loaded ~840 classes outside the archive (~440 of JGit's), ~290 after. Skipped
   * when {@code git} cannot make the repo; its outcome does not change warm-up's exit code.
   *
   * @return the second submit's exit code, or -1 when skipped
   */
  static int submit(Invocation invocation, Path dir, Path trainYaml) {
    Path bare = dir.resolve("gitops.git");
    if (!git(dir, "init", "-q", "--bare", bare.toString())) {
      return -1;
    }
    PrintWriter sink = new PrintWriter(Writer.nullWriter());
    return withCache(
        dir,
        () -> {
          int code = -1;
          for (String rerun : new String[] {"--dry-run", "--rerun"}) {
            code =
                Main.run(
                    invocation,
                    sink,
                    sink,
                    "submit",
                    trainYaml.toString(),
                    "--gitops",
                    bare.toString(),
                    "--source-repo",
                    REPO,
                    "--source-commit",
                    COMMIT,
                    rerun);
          }
          return code;
        });
  }

  private static int compile(Invocation invocation, Path trainYaml, String out) {
    PrintWriter sink = new PrintWriter(Writer.nullWriter());
    return Main.run(
        invocation,
        sink,
        sink,
        "compile",
        trainYaml.toString(),
        "--out",
        out,
        "--source-repo",
        REPO,
        "--source-commit",
        COMMIT);
  }
}
