package dev.trainyard.compiler.fuzz;

import com.sun.management.ThreadMXBean;
import dev.trainyard.compiler.CompileRequest;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.testing.TrainProject;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * Compiles fuzz inputs one by one on one worker thread and checks each: no exception escapes, every
 * diagnostic has a location (a file, and a line for anything but a whole-file problem), a compile
 * without errors has an output tree, and no input takes more than {@link #MAX_MILLIS} or allocates
 * more than {@link #MAX_BYTES} (the JVM's per-thread allocation counter: an upper bound of what the
 * compile needed). A compile that does not end in {@link #HANG_SECONDS} is reported, never waited
 * for.
 */
public final class FuzzRunner implements AutoCloseable {
  /** Per-input wall-time limit (issue #9). */
  public static final long MAX_MILLIS = 2_000;

  /** Per-input memory limit (issue #9): 256 MiB. */
  public static final long MAX_BYTES = 256L << 20;

  private static final long HANG_SECONDS = 30;
  private static final String REPO = "https://github.com/acme/fuzz.git";
  private static final String COMMIT = "0123456789abcdef0123456789abcdef01234567";
  private final Path work;
  private final Compiler compiler =
      new Compiler(
          new SshSecretProvider(
              TrainProject.seeded(),
              Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC)));
  private final ExecutorService worker =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "fuzz-compile");
            t.setDaemon(true);
            return t;
          });

  /**
   * One compile's measurements.
   *
   * @param input what was compiled
   * @param millis wall time
   * @param bytes bytes the compiling thread allocated
   * @param diagnostics what the compile reported
   * @param violation what broke the contract, if anything
   */
  public record Outcome(
      FuzzInput input,
      double millis,
      long bytes,
      List<Diagnostic> diagnostics,
      Optional<String> violation) {}

  /**
   * @param work a private folder for the input files
   */
  public FuzzRunner(Path work) {
    this.work = work;
    try {
      Files.createDirectories(work.resolve("src/.git"));
      Files.writeString(work.resolve("src/.git/HEAD"), "ref: refs/heads/main\n");
      Files.createDirectories(work.resolve("src/jobs/fuzz"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Compiles {@code input} once, unmeasured: the first compile of a JVM loads the schemas, the
   * built-in runtimes and a few thousand classes (about 1 s on 2 cores), which is no property of
   * any input.
   */
  public void warmUp(FuzzInput input) {
    run(input);
  }

  /** Compiles {@code input} and checks the contract. */
  public Outcome run(FuzzInput input) {
    CompileRequest request = write(input);
    Future<Object[]> future =
        worker.submit(
            () -> {
              ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
              long before = threads.getCurrentThreadAllocatedBytes();
              long start = System.nanoTime();
              try {
                CompileResult result = compiler.compile(request);
                return new Object[] {
                  result,
                  System.nanoTime() - start,
                  threads.getCurrentThreadAllocatedBytes() - before
                };
              } catch (Throwable t) {
                return new Object[] {
                  t, System.nanoTime() - start, threads.getCurrentThreadAllocatedBytes() - before
                };
              }
            });
    try {
      Object[] r = future.get(HANG_SECONDS, TimeUnit.SECONDS);
      return judge(input, r[0], (Long) r[1] / 1e6, (Long) r[2]);
    } catch (TimeoutException e) {
      future.cancel(true);
      return new Outcome(
          input,
          HANG_SECONDS * 1e3,
          0,
          List.of(),
          Optional.of("did not finish in " + HANG_SECONDS + " s"));
    } catch (Exception e) {
      return new Outcome(input, 0, 0, List.of(), Optional.of("the worker failed: " + e));
    }
  }

  static Outcome judge(FuzzInput input, Object result, double millis, long bytes) {
    if (result instanceof Throwable t) {
      StringWriter trace = new StringWriter();
      t.printStackTrace(new PrintWriter(trace));
      String top = trace.toString().lines().limit(12).reduce((a, b) -> a + "\n" + b).orElse("");
      return new Outcome(input, millis, bytes, List.of(), Optional.of("exception escaped: " + top));
    }
    CompileResult compiled = (CompileResult) result;
    Optional<String> violation = DiagnosticContract.violation(compiled);
    if (violation.isEmpty() && millis > MAX_MILLIS) {
      violation = Optional.of(String.format("took %.0f ms (limit %d ms)", millis, MAX_MILLIS));
    }
    if (violation.isEmpty() && bytes > MAX_BYTES) {
      violation =
          Optional.of("allocated " + (bytes >> 20) + " MiB (limit " + (MAX_BYTES >> 20) + " MiB)");
    }
    return new Outcome(input, millis, bytes, compiled.diagnostics(), violation);
  }

  private CompileRequest write(FuzzInput input) {
    try {
      Path trainYaml =
          Files.writeString(
              work.resolve("src/jobs/fuzz/train.yaml"), input.trainYaml(), StandardCharsets.UTF_8);
      Optional<Path> platform = Optional.empty();
      if (input.platform().isPresent()) {
        platform =
            Optional.of(
                Files.writeString(
                    work.resolve("platform.yaml"), input.platform().get(), StandardCharsets.UTF_8));
      }
      Optional<Path> runtimes = Optional.empty();
      if (input.runtime().isPresent()) {
        Path dir = work.resolve("runtimes");
        delete(dir);
        Path file = dir.resolve(input.runtime().get().folder()).resolve("runtime.yaml");
        Files.createDirectories(file.getParent());
        Files.writeString(file, input.runtime().get().text(), StandardCharsets.UTF_8);
        runtimes = Optional.of(dir);
      }
      return CompileRequest.builder(trainYaml)
          .displayPath("jobs/fuzz/train.yaml")
          .platformFile(platform)
          .runtimesDir(runtimes)
          .sourceRepo(REPO)
          .sourceCommit(COMMIT)
          .createdAt(Instant.parse("2026-01-01T00:00:00Z"))
          .build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void delete(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  @Override
  public void close() {
    worker.shutdownNow();
  }
}
