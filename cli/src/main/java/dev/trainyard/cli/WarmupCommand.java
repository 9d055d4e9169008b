package dev.trainyard.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;

/**
 * Hidden {@code trainyard warmup}: runs {@code trainyard compile} on a torch job and an MPI job in
 * a throw-away folder, so the launcher script can record the classes a compile loads and archive
 * them (JDK 17 AppCDS: {@code -XX:DumpLoadedClassList}, then {@code -Xshare:dump}; JDK 25: {@code
 * -XX:AOTCacheOutput}). Classes it does not load are not archived, so it goes through the CLI
 * (option parsing, writing, reporting) and must compile without errors. Exit code 0 when both
 * compiles succeeded.
 *
 * <p>Both compiles pass {@code --source-repo}/{@code --source-commit} (the CI path), so JGit is
 * never loaded: its jar is signed, which keeps its classes out of any archive, and with JDK 25 an
 * archived class that merely refers to a JGit type makes every start open and signature-check that
 * jar (about 60 ms).
 */
@Command(
    name = "warmup",
    hidden = true,
    description = "Compile sample jobs in a temp folder (used to build the start-up archive).")
final class WarmupCommand implements Callable<Integer> {
  private static final String REPO = "https://example.com/warmup.git";
  private static final String COMMIT = "0123456789abcdef0123456789abcdef01234567";

  @Override
  public Integer call() throws IOException {
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
      int torch = compile(repo.resolve("train.yaml"), out);
      int mpi = compile(repo.resolve("mpi/train.yaml"), out);
      return torch == 0 && mpi == 0 ? 0 : 1;
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static int compile(Path trainYaml, String out) {
    PrintWriter sink = new PrintWriter(Writer.nullWriter());
    return Main.run(
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
