package dev.trainyard.compiler.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.source.SourceFile;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import dev.trainyard.compiler.testing.Wording;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fuzz harness itself: it catches what it must, and the limits it found are diagnostics with
 * lines.
 */
class FuzzContractTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path temp;

  @Test
  @DisplayName(
      "the contract: an error without a line, a blank file, an error with a tree, or none without one is a violation")
  void contract() {
    Diagnostic lineless =
        Diagnostic.error(DiagnosticCode.WRONG_TYPE, SourceLocation.ofFile("t.yaml"), "", "x");
    assertTrue(
        DiagnosticContract.violation(
                new CompileResult(Optional.empty(), Optional.empty(), List.of(lineless)))
            .isPresent());
    Diagnostic fileless =
        Diagnostic.error(DiagnosticCode.WRONG_TYPE, new SourceLocation("", 1, 1), "", "x");
    assertTrue(
        DiagnosticContract.violation(
                new CompileResult(Optional.empty(), Optional.empty(), List.of(fileless)))
            .isPresent());
    assertTrue(
        DiagnosticContract.violation(
                new CompileResult(Optional.empty(), Optional.empty(), List.of()))
            .isPresent());
    Diagnostic whole =
        Diagnostic.error(
            DiagnosticCode.EMPTY_FILE, SourceLocation.ofFile("t.yaml"), "", "the file is empty");
    assertEquals(
        Optional.empty(),
        DiagnosticContract.violation(
            new CompileResult(Optional.empty(), Optional.empty(), List.of(whole))));
  }

  @Test
  @DisplayName(
      "the runner reports an input over the time or memory limit, and an escaped exception, with the input")
  void runnerCatches() {
    try (FuzzRunner runner = new FuzzRunner(temp)) {
      FuzzRunner.Outcome ok =
          runner.run(
              new FuzzInput(
                  0,
                  "train.yaml",
                  "t",
                  List.of(),
                  "run: python train.py\n",
                  Optional.empty(),
                  Optional.empty()));
      assertEquals(Optional.empty(), ok.violation());
      assertTrue(ok.millis() > 0 && ok.bytes() > 0);
      FuzzInput input = ok.input();
      assertTrue(
          FuzzRunner.judge(input, new IllegalStateException("boom"), 1, 1)
              .violation()
              .orElseThrow()
              .startsWith("exception escaped: java.lang.IllegalStateException: boom"));
      CompileResult fine =
          new CompileResult(
              Optional.empty(),
              Optional.empty(),
              List.of(
                  Diagnostic.error(
                      DiagnosticCode.WRONG_TYPE, new SourceLocation("t", 1, 1), "", "x")));
      assertEquals(
          "took 2001 ms (limit 2000 ms)",
          FuzzRunner.judge(input, fine, 2_001, 1).violation().orElseThrow());
      assertEquals(
          "allocated 257 MiB (limit 256 MiB)",
          FuzzRunner.judge(input, fine, 1, 257L << 20).violation().orElseThrow());
      assertEquals(Optional.empty(), FuzzRunner.judge(input, fine, 2_000, 256L << 20).violation());
    }
  }

  @Test
  @DisplayName("the same seed gives the same inputs; another seed others")
  void deterministic() {
    FuzzSeeds seeds = FuzzSeeds.read(CompilerFuzzTest.ROOT);
    FuzzGenerator a = new FuzzGenerator(seeds, 7);
    FuzzGenerator b = new FuzzGenerator(seeds, 7);
    FuzzGenerator c = new FuzzGenerator(seeds, 8);
    boolean differs = false;
    for (int i = 0; i < 20; i++) {
      FuzzInput x = a.next();
      assertEquals(x, b.next());
      differs |= !x.equals(c.next());
    }
    assertTrue(differs);
    assertTrue(new YamlMutator(new Random(1)).mutate("a: 1\nb: 2\n").steps().size() >= 1);
  }

  @Test
  @DisplayName(
      "found by fuzzing: a line over 16,384 characters is E111 at its line (not 800 MiB of SnakeYAML copies); too deep nesting has a line")
  void loaderLimits() {
    YamlDocumentLoader loader = new YamlDocumentLoader();
    StageResult<?> longLine =
        loader.load(new SourceFile("t.yaml", "run: x\nname: \"" + "z".repeat(500_000) + "\"\n"));
    Diagnostic d = longLine.diagnostics().get(0);
    assertEquals(DiagnosticCode.LINE_TOO_LONG, d.code());
    assertEquals("t.yaml:2:1", d.location().toString());
    WORDING.approve(d.message());
    assertTrue(
        loader
            .load(new SourceFile("t.yaml", "run: \"" + "z".repeat(16_376) + "\"\n"))
            .value()
            .isPresent());
    Diagnostic deep =
        loader
            .load(new SourceFile("t.yaml", "run: x\nv: " + "[".repeat(500) + "\n"))
            .diagnostics()
            .get(0);
    assertEquals(2, deep.location().line(), deep.toString());
  }
}
