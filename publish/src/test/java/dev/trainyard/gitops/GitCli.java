package dev.trainyard.gitops;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The real {@code git} CLI, for tests that check what JGit wrote and write what JGit must read
 * (also the preview tests' repositories, {@code preview.PreviewRepos}). Identity, branch and
 * signing are fixed by {@code -c}, so a developer's git config does not change what the tests
 * commit.
 */
public final class GitCli {
  private GitCli() {}

  /**
   * Runs {@code git args} in {@code dir}; returns stdout; fails the test on a non-zero exit or
   * after 60 s.
   */
  static String git(Path dir, String... args) {
    return git(dir, Map.of(), args);
  }

  /**
   * Runs {@code git args} in {@code dir} with {@code env} added to the environment (e.g. {@code
   * GIT_AUTHOR_DATE}); returns stdout (with stderr); fails the test on a non-zero exit or after 60
   * s.
   */
  public static String git(Path dir, Map<String, String> env, String... args) {
    List<String> command =
        new ArrayList<>(
            List.of(
                "git",
                "-c",
                "user.name=Grace",
                "-c",
                "user.email=grace@example.com",
                "-c",
                "init.defaultBranch=main",
                "-c",
                "safe.directory=*",
                "-c",
                "commit.gpgsign=false"));
    command.addAll(List.of(args));
    try {
      ProcessBuilder pb =
          new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
      pb.environment().putAll(env);
      Process p = pb.start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("git " + String.join(" ", args) + " timed out");
      }
      if (p.exitValue() != 0) {
        throw new AssertionError(
            "git " + String.join(" ", args) + " failed (" + p.exitValue() + "):\n" + out);
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** A new empty bare repository at {@code dir}, made by the git CLI. */
  static Path bare(Path dir) {
    git(dir.getParent(), "init", "-q", "--bare", dir.getFileName().toString());
    return dir;
  }

  /**
   * Clones {@code bare} into {@code dir}, commits {@code files} (path → text) with the git CLI and
   * pushes main.
   */
  static void pushFiles(Path bare, Path dir, Map<String, String> files, String message) {
    if (!dir.resolve(".git").toFile().exists()) {
      git(bare.getParent(), "clone", "-q", bare.toString(), dir.toString());
    } else {
      git(dir, "pull", "-q", "--rebase", "origin", "main");
    }
    try {
      for (var f : files.entrySet()) {
        Path file = dir.resolve(f.getKey());
        Files.createDirectories(file.getParent());
        Files.writeString(file, f.getValue(), StandardCharsets.UTF_8);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    git(dir, "add", "-A");
    git(dir, "commit", "-q", "-m", message);
    git(dir, "push", "-q", "origin", "HEAD:main");
  }

  /** {@code git ls-tree -r --name-only main} of a bare repo. */
  static List<String> files(Path bare) {
    return git(bare, "ls-tree", "-r", "--name-only", "main").lines().toList();
  }

  /** {@code git show main:path} of a bare repo. */
  static String show(Path bare, String path) {
    return git(bare, "show", "main:" + path);
  }

  /** The commit subjects of main, newest first. */
  static List<String> log(Path bare) {
    return git(bare, "log", "--format=%s", "main").lines().toList();
  }
}
