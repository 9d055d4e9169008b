package dev.trainyard.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import picocli.CommandLine.Command;

/**
 * Hidden {@code trainyard warmup}: runs {@code trainyard compile} on a torch job (source read from git) and an
 * MPI job (source passed as {@code --source-repo}/{@code --source-commit}, the CI path) in a throw-away git
 * repo, so the launcher script can record the classes a compile loads and build a class-data-sharing archive
 * from them (JDK 17 AppCDS: {@code -XX:DumpLoadedClassList}, then {@code -Xshare:dump}). Classes it does not
 * load are not archived, so it goes through the CLI (option parsing, writing, reporting) and must compile
 * without errors. Exit code 0 when both compiles succeeded.
 */
@Command(name = "warmup", hidden = true, description = "Compile sample jobs in a temp folder (used to build the CDS archive).")
final class WarmupCommand implements Callable<Integer> {
  // No JGit type in a signature: picocli reflects over every subcommand at start-up, and naming one would
  // load (and signature-check) the JGit jar on every command.
  @Override
  public Integer call() throws IOException {
    Path dir = Files.createTempDirectory("trainyard-warmup-");
    try {
      Path repo = Files.createDirectories(dir.resolve("warmup"));
      Files.writeString(repo.resolve("train.yaml"), "run: torchrun train.py\nnodes: 2\nresources: {gpus: 1}\n", StandardCharsets.UTF_8);
      Files.createDirectories(repo.resolve("mpi"));
      Files.writeString(repo.resolve("mpi/train.yaml"), "runtime: deepspeed\nrun: python train.py\nnodes: 2\nenv: {A: b}\n", StandardCharsets.UTF_8);
      commitAll(repo);
      String out = dir.resolve("gitops").toString();
      int torch = compile(repo.resolve("train.yaml").toString(), "--out", out);
      int mpi = compile(repo.resolve("mpi/train.yaml").toString(), "--out", out,
          "--source-repo", "https://example.com/warmup.git", "--source-commit", "0123456789abcdef0123456789abcdef01234567");
      return torch == 0 && mpi == 0 ? 0 : 1;
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static void commitAll(Path repo) {
    try (Git git = Git.init().setDirectory(repo.toFile()).call()) {
      var config = git.getRepository().getConfig();
      config.setString("remote", "origin", "url", "https://example.com/warmup.git");
      config.save();
      git.add().addFilepattern(".").call();
      git.commit().setMessage("warmup").setAuthor("trainyard", "trainyard@localhost").setCommitter("trainyard", "trainyard@localhost").call();
    } catch (GitAPIException e) {
      throw new IllegalStateException("cannot make the warm-up repository", e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static int compile(String... args) {
    PrintWriter sink = new PrintWriter(Writer.nullWriter());
    String[] command = Stream.concat(Stream.of("compile"), Stream.of(args)).toArray(String[]::new);
    return Main.run(sink, sink, command);
  }
}
