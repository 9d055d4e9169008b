package dev.trainyard.gitops.preview;

import dev.trainyard.compiler.CompileRequest;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import dev.trainyard.compiler.SshSecretSource;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.gitops.GitCli;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.eclipse.jgit.api.Git;

/**
 * Real repositories for preview tests, made with the {@code git} CLI at fixed dates (so commit
 * SHAs, run ids and outputs are the same on every run), and run folders compiled by the real
 * compiler with seeded keys.
 */
final class PreviewRepos {
  static final Instant T0 = Instant.parse("2026-12-01T09:00:00Z");
  static final String REMOTE = TrainProject.REMOTE;
  static final Path ROOT =
      Path.of(System.getProperty("trainyard.repo.root", "..")).toAbsolutePath().normalize();
  private static int counter;

  private PreviewRepos() {}

  /**
   * Runs git in {@code dir} at time {@code when} (author and committer date); returns stdout; fails
   * the test on an error.
   */
  static String git(Path dir, Instant when, String... args) {
    return GitCli.git(
        dir,
        Map.of("GIT_AUTHOR_DATE", when.toString(), "GIT_COMMITTER_DATE", when.toString()),
        args);
  }

  /** A new work repository with {@code origin} set to {@link #REMOTE}. */
  static Path init(Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    git(dir, T0, "init", "-q");
    git(dir, T0, "remote", "add", "origin", REMOTE);
    return dir;
  }

  /**
   * Writes {@code files}, deletes {@code deleted} (files or folders), commits everything at {@code
   * when} and points {@code origin/main} at it; returns the SHA.
   */
  static String commit(
      Path work,
      Map<String, String> files,
      Collection<String> deleted,
      String message,
      Instant when) {
    try {
      for (String d : deleted) {
        git(work, when, "rm", "-r", "-q", d);
      }
      for (Map.Entry<String, String> f : files.entrySet()) {
        Path file = work.resolve(f.getKey());
        Files.createDirectories(file.getParent());
        Files.writeString(file, f.getValue(), StandardCharsets.UTF_8);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    git(work, when, "add", "-A");
    git(work, when, "commit", "-q", "--allow-empty", "-m", message);
    // As after a push: origin/main has the commit, so a source repo's compile sees it pushed (no
    // W316).
    git(work, when, "update-ref", "refs/remotes/origin/main", "HEAD");
    return git(work, when, "rev-parse", "HEAD").strip();
  }

  /** A bare clone of {@code work} (the "remote" GitOps repository of a source-repo preview). */
  static Path bare(Path work, Path dir) {
    git(work.getParent(), T0, "clone", "-q", "--bare", work.toString(), dir.toString());
    return dir;
  }

  /**
   * The files the compiler writes for one train.yaml (path from the GitOps root → text): source
   * repo {@link #REMOTE} at {@code commit}, created at {@code createdAt}, SSH keys from a
   * SecureRandom seeded with {@code seed} (the JDK's EC key generation does not repeat for a seed
   * within one JVM: tests that need the key use {@link KnownKeySecrets}).
   */
  static Map<String, String> compile(
      Path temp,
      String folder,
      String trainYaml,
      String platformYaml,
      String commit,
      Instant createdAt,
      long seed) {
    return compile(
        temp,
        folder,
        trainYaml,
        platformYaml,
        commit,
        createdAt,
        new SshSecretProvider(random(seed), Clock.fixed(createdAt, ZoneOffset.UTC)));
  }

  /** As above, with the SSH Secret from {@code secrets}. */
  static Map<String, String> compile(
      Path temp,
      String folder,
      String trainYaml,
      String platformYaml,
      String commit,
      Instant createdAt,
      SshSecretSource secrets) {
    try {
      Path dir = Files.createDirectories(temp.resolve("compile-" + (++counter)));
      Path platform =
          Files.writeString(dir.resolve("platform.yaml"), platformYaml, StandardCharsets.UTF_8);
      TrainProject p = TrainProject.create(dir, folder, trainYaml, Map.of());
      // The fixed commit is not in this repository (it keeps run names stable): as a work tree that
      // is no clone of
      // REMOTE, the compile does not ask for it (a clone of REMOTE lacking it would be E314).
      try (Git git = Git.open(p.root().toFile())) {
        git.getRepository().getConfig().unsetSection("remote", "origin");
        git.getRepository().getConfig().save();
      }
      CompileRequest request =
          CompileRequest.builder(p.trainYaml())
              .displayPath(folder + "/train.yaml")
              .platformFile(platform)
              .sourceRepo(REMOTE)
              .sourceCommit(commit)
              .createdAt(createdAt)
              // As Submitter names the GitOps repo's own platform.yaml (a copy, in diagnostics and
              // in the queue objects' trainyard.dev/platform).
              .platformDisplay("platform.yaml (GitOps repo)")
              .platformProvenance(Optional.of("platform.yaml (GitOps repo)"))
              .build();
      CompileResult result = new Compiler(secrets).compile(request);
      return new TreeMap<>(TrainProject.tree(result).files());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A SecureRandom that repeats for one seed. */
  static SecureRandom random(long seed) {
    try {
      SecureRandom random = SecureRandom.getInstance("SHA1PRNG");
      random.setSeed(seed);
      return random;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A repository file's text ({@code examples/platform.yaml}). */
  static String read(String path) {
    try {
      return Files.readString(ROOT.resolve(path), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A 40-hex commit id made of one repeated digit, for compiles that need no real source commit.
   */
  static String sha(char digit) {
    return String.valueOf(digit).repeat(40);
  }
}
