package dev.trainyard.bench;

import dev.trainyard.compiler.CompileRequest;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * Warm throughput of the whole pipeline, {@link Compiler#compile} (read train.yaml, platform.yaml
 * and the built-in runtimes from disk/classpath, schema, resolve, policy, render incl. a fresh SSH
 * key and its sealing for MPI runtimes, check, emit to an in-memory tree; writing the files is the
 * CLI's job and not included), in jobs per second on one thread. Run from the repository root
 * (examples are read from {@code examples/}).
 *
 * <p>{@code source=flags}: repo and commit passed as {@code --source-repo}/{@code --source-commit}
 * do (CI); the git repository is not opened. {@code source=git}: the examples are committed to a
 * temporary git repo with a remote and read through JGit (remote URL, HEAD, status of train.yaml's
 * folder) on every compile.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(1)
public class CompileBenchmark {
  private static final String REPO = "https://github.com/acme/x.git";
  private static final String COMMIT = "0123456789abcdef0123456789abcdef01234567";

  @Param({"deepspeed-t5", "hf-trainer", "jax", "mlx-mnist", "pytorch-ddp"})
  public String example;

  @Param({"flags", "git"})
  public String source;

  private final Compiler compiler = new Compiler(SshSecretProvider.system());
  private Path scratch;
  private CompileRequest request;

  /**
   * Builds the request and checks that it compiles without errors: a failing compile stops early
   * and would flatter the number.
   */
  @Setup(Level.Trial)
  public void setUp() throws IOException, InterruptedException {
    Path examples = Path.of("examples").toAbsolutePath();
    boolean git = source.equals("git");
    if (git) {
      scratch = Files.createTempDirectory("trainyard-bench-");
      examples = committedCopy(examples, scratch.resolve("examples"));
    }
    request = request(examples, example, git);
    CompileResult first = compiler.compile(request);
    if (first.hasErrors() || first.tree().isEmpty()) {
      throw new IllegalStateException(example + " does not compile: " + first.diagnostics());
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    compiler.close();
    if (scratch != null) {
      delete(scratch);
    }
  }

  /** The request the bench compiles: repo and commit as flags, or read from git. */
  static CompileRequest request(Path examples, String example, boolean git) {
    return CompileRequest.builder(examples.resolve(example).resolve("train.yaml"))
        .platformFile(examples.resolve("platform.yaml"))
        .sourceRepo(git ? Optional.empty() : Optional.of(REPO))
        .sourceCommit(git ? Optional.empty() : Optional.of(COMMIT))
        .build();
  }

  static void delete(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  /** One job, train.yaml to in-memory output tree. */
  @Benchmark
  public CompileResult compile() {
    return compiler.compile(request);
  }

  static Path committedCopy(Path examples, Path target) throws IOException, InterruptedException {
    try (Stream<Path> files = Files.walk(examples)) {
      for (Path from : (Iterable<Path>) files::iterator) {
        Path to = target.resolve(examples.relativize(from).toString());
        if (Files.isDirectory(from)) {
          Files.createDirectories(to);
        } else {
          Files.copy(from, to);
        }
      }
    }
    git(target, "init", "-q", ".");
    git(target, "remote", "add", "origin", REPO);
    git(target, "add", ".");
    git(
        target,
        "-c",
        "user.name=bench",
        "-c",
        "user.email=bench@localhost",
        "commit",
        "-q",
        "-m",
        "bench");
    return target;
  }

  private static void git(Path dir, String... args) throws IOException, InterruptedException {
    List<String> command = Stream.concat(Stream.of("git"), Stream.of(args)).toList();
    Process process = new ProcessBuilder(command).directory(dir.toFile()).inheritIO().start();
    if (process.waitFor() != 0) {
      throw new IOException("failed: " + String.join(" ", command));
    }
  }
}
