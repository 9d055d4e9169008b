package dev.trainyard.compiler.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fuzz test of the suite: {@link #COUNT} inputs from the fixed seed {@link #SEED}, mutated from
 * the golden and example inputs ({@link FuzzGenerator}); every one must keep {@link FuzzRunner}'s
 * contract. The failing inputs are printed whole. {@code bench/fuzz-bench} runs the same generator
 * longer ({@code -Dfuzz.inputs=N -Dfuzz.seed=S}) and prints inputs per second and the slowest
 * input.
 */
class CompilerFuzzTest {
  static final long SEED = Long.getLong("fuzz.seed", 20261201L);
  static final int COUNT = Integer.getInteger("fuzz.inputs", 400);
  static final Path ROOT =
      Path.of(System.getProperty("trainyard.repo.root", "..")).toAbsolutePath().normalize();
  @TempDir Path temp;

  @Test
  @DisplayName(
      "fuzzed train.yaml, platform.yaml and runtimes: no exception escapes, every failure is a located diagnostic, each input ≤ 2 s and ≤ 256 MiB")
  void fuzz() {
    FuzzSeeds seeds = FuzzSeeds.read(ROOT);
    assertTrue(
        seeds.trainYamls().size() > 20
            && seeds.platforms().size() > 5
            && seeds.runtimes().size() >= 6,
        seeds.toString().length() + " seeds");
    FuzzGenerator generator = new FuzzGenerator(seeds, SEED);
    List<FuzzRunner.Outcome> outcomes = new ArrayList<>();
    try (FuzzRunner runner = new FuzzRunner(temp)) {
      runner.warmUp(
          new FuzzInput(
              -1,
              "train.yaml",
              "warm-up",
              List.of(),
              "run: python train.py\nnodes: 2\n",
              Optional.empty(),
              Optional.empty()));
      long start = System.nanoTime();
      for (int i = 0; i < COUNT; i++) {
        outcomes.add(runner.run(generator.next()));
      }
      report(outcomes, (System.nanoTime() - start) / 1e9);
    }
  }

  private static void report(List<FuzzRunner.Outcome> outcomes, double seconds) {
    FuzzRunner.Outcome slowest =
        outcomes.stream().max(Comparator.comparingDouble(FuzzRunner.Outcome::millis)).orElseThrow();
    long failed =
        outcomes.stream()
            .filter(
                o ->
                    !o.diagnostics().isEmpty()
                        && o.diagnostics().stream().anyMatch(d -> d.isError()))
            .count();
    System.out.printf(
        "fuzz: %d inputs (seed %d) in %.1f s: %.0f inputs/s; %d refused with diagnostics; slowest %.0f ms, most allocated %d MiB%n%s%n",
        COUNT,
        SEED,
        seconds,
        COUNT / seconds,
        failed,
        slowest.millis(),
        outcomes.stream().mapToLong(FuzzRunner.Outcome::bytes).max().orElse(0) >> 20,
        slowest.input().describe());
    List<String> violations =
        outcomes.stream()
            .filter(o -> o.violation().isPresent())
            .map(o -> o.violation().get() + "\n" + o.input().describe())
            .toList();
    assertEquals(
        List.of(),
        violations.stream().limit(5).toList(),
        violations.size() + " of " + COUNT + " inputs broke the contract");
  }
}
