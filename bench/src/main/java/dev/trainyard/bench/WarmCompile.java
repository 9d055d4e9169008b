package dev.trainyard.bench;

import dev.trainyard.compiler.CompileRequest;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Warm compile cost measured in this thread's CPU time, the figure {@code bench/compile-bench}
 * reports and guards. On the shared 2-core machine, wall-clock throughput (JMH's) swings by more
 * than its value with the other processes' load (issue #24: {@code 157 ± 81} jobs/s); the CPU time
 * one compile takes on this thread is what Trainyard controls and stays within a few per cent
 * between rounds up to load ~5 (it still grows somewhat with load, as caches and hyper-threads are
 * shared).
 *
 * <p>Usage: {@code WarmCompile SECONDS ROUNDS SOURCE EXAMPLE...}: per example, a warm-up of three
 * rounds' length (so the JIT has compiled the hot paths), then ROUNDS rounds of at least SECONDS of
 * this thread's CPU time each, compiling {@code examples/EXAMPLE/train.yaml} (run from the
 * repository root) with one {@link Compiler}, as a preview or submit of many train.yaml files does.
 * SOURCE is {@code flags} (repo and commit as {@code --source-repo}/{@code --source-commit}, the CI
 * path; train.yaml in this checkout, so the commit check opens its repository) or {@code git} (a
 * committed copy of the examples, read through JGit). Prints one line per example: {@code example
 * source cpu_ms_per_job spread_percent jobs_per_cpu_second wall_jobs_per_second rounds}, where
 * spread is (max − min) / median of the rounds' CPU time per job. Exit code 2 when an example does
 * not compile.
 */
public final class WarmCompile {
  private WarmCompile() {}

  /** See the class comment for the arguments. */
  public static void main(String[] args) throws IOException, InterruptedException {
    if (args.length < 4) {
      System.err.println("usage: WarmCompile SECONDS ROUNDS flags|git EXAMPLE...");
      System.exit(2);
    }
    double seconds = Double.parseDouble(args[0]);
    int rounds = Integer.parseInt(args[1]);
    boolean git = args[2].equals("git");
    Path examples = Path.of("examples").toAbsolutePath();
    Path scratch = null;
    if (git) {
      scratch = Files.createTempDirectory("trainyard-bench-");
      examples = CompileBenchmark.committedCopy(examples, scratch.resolve("examples"));
    }
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    try (Compiler compiler = new Compiler(SshSecretProvider.system())) {
      for (String example : Arrays.asList(args).subList(3, args.length)) {
        CompileRequest request = CompileBenchmark.request(examples, example, git);
        CompileResult first = compiler.compile(request);
        if (first.hasErrors() || first.tree().isEmpty()) {
          System.err.println(example + " does not compile: " + first.diagnostics());
          System.exit(2);
        }
        // Warm-up: three rounds' worth, so that the JIT has compiled the hot paths before
        // measuring.
        round(compiler, request, threads, 3 * seconds);
        List<double[]> measured = new ArrayList<>();
        for (int i = 0; i < rounds; i++) {
          measured.add(round(compiler, request, threads, seconds));
        }
        double[] cpu = measured.stream().mapToDouble(r -> r[0]).sorted().toArray();
        double median = cpu[cpu.length / 2];
        double spread = (cpu[cpu.length - 1] - cpu[0]) / median * 100;
        double wall = measured.stream().mapToDouble(r -> r[1]).sorted().toArray()[cpu.length / 2];
        System.out.printf(
            Locale.ROOT,
            "%s %s %.3f %.1f %.0f %.0f %d%n",
            example,
            args[2],
            median,
            spread,
            1000 / median,
            wall,
            rounds);
      }
    } finally {
      if (scratch != null) {
        CompileBenchmark.delete(scratch);
      }
    }
  }

  /** One round: {CPU ms per compile, compiles per wall second}. */
  private static double[] round(
      Compiler compiler, CompileRequest request, ThreadMXBean threads, double seconds) {
    long cpu0 = threads.getCurrentThreadCpuTime();
    long wall0 = System.nanoTime();
    long budget = (long) (seconds * 1e9);
    int n = 0;
    long used;
    do {
      compiler.compile(request);
      n++;
      used = threads.getCurrentThreadCpuTime() - cpu0;
    } while (used < budget);
    return new double[] {used / 1e6 / n, n / ((System.nanoTime() - wall0) / 1e9)};
  }
}
