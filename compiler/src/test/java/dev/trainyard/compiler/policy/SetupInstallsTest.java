package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link SetupInstalls}: an unquoted {@code <}/{@code >} in a pip requirement (E439), a missing
 * {@code -r} file (W440) and {@code pip install -U} of a package the image has (W433), each at its
 * word of {@code setup} (issue #19: requirement problems that fail pip must not pass silently).
 */
class SetupInstallsTest {
  @TempDir Path dir;

  private CompileResult compile(String setup, Map<String, String> files) {
    String yaml =
        "runtime: torch\nnodes: 2\nsetup: '"
            + setup.replace("'", "''")
            + "'\nrun: torchrun train.py\n";
    return TrainProject.create(dir, "jobs/a", yaml, files).compile();
  }

  private List<Diagnostic> found(CompileResult r, DiagnosticCode code) {
    return r.diagnostics().stream().filter(d -> d.code() == code).toList();
  }

  @Test
  @DisplayName(
      "pip install torch<2.10 unquoted: E439 at the word, bash's input redirection named, the hint quotes it; no W433 for it")
  void unquotedLess() {
    CompileResult r = compile("pip install numpy torch<2.10", Map.of());
    List<Diagnostic> e = found(r, DiagnosticCode.UNQUOTED_REQUIREMENT);
    assertEquals(1, e.size(), r.diagnostics().toString());
    Diagnostic d = e.get(0);
    assertTrue(d.isError());
    assertEquals("/setup", d.pointer());
    assertEquals(List.of(3, 27), List.of(d.location().line(), d.location().column()));
    assertEquals(
        "`setup` writes `torch<2.10` without quotes: bash reads `<2.10` as input from a file named"
            + " `2.10`, which does not exist, so `pip install` fails on every node before it starts",
        d.message());
    assertEquals("quote the requirement, e.g. `pip install numpy 'torch<2.10'`", d.hint());
    assertEquals(List.of(), found(r, DiagnosticCode.REQUIREMENT_REPLACES_RUNTIME_PACKAGE));
  }

  @Test
  @DisplayName(
      "pip install transformers>=4.40 unquoted: E439, pip's output goes to a file named =4.40 and the limit is lost")
  void unquotedGreater() {
    CompileResult r = compile("pip install transformers>=4.40", Map.of());
    Diagnostic d = found(r, DiagnosticCode.UNQUOTED_REQUIREMENT).get(0);
    assertEquals(
        "`setup` writes `transformers>=4.40` without quotes: bash writes pip's output to a file named"
            + " `=4.40` and pip installs `transformers` with no version limit",
        d.message());
    assertEquals("quote the requirement, e.g. `pip install 'transformers>=4.40'`", d.hint());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "pip install \"torch<2.10\" | 0",
        "pip install 'torch>=2.1' | 0",
        "pip install torch'<3' | 0",
        "pip install torch\\<3 | 0",
        "pip install torch < constraints.txt | 0",
        "pip install torch > log.txt 2>&1 | 0",
        "pip install torch 2> err.txt >>log | 0",
        "pip install torch==2.13.0 | 0",
        "pip install a>b c<d | 2",
        "python -m pip install x>=1 | 1",
      })
  @DisplayName(
      "only a < or > outside quotes inside a pip argument is E439: quoted, escaped, a separate redirection word or == are not")
  void unquotedShapes(String setup, int count) {
    assertEquals(
        count, found(compile(setup, Map.of()), DiagnosticCode.UNQUOTED_REQUIREMENT).size(), setup);
  }

  @Test
  @DisplayName(
      "pip install -r requirements/train.txt that the folder lacks: W440 at the file word; a committed file, one setup writes first, or one with $ are quiet")
  void missingRequirementsFile() {
    CompileResult r = compile("pip install -r requirements/train.txt", Map.of());
    List<Diagnostic> w = found(r, DiagnosticCode.REQUIREMENTS_FILE_MISSING);
    assertEquals(1, w.size(), r.diagnostics().toString());
    assertEquals(
        "`setup` installs -r requirements/train.txt, but the working directory has no such file at"
            + " this commit: pip stops with \"Could not open requirements file\" on every node",
        w.get(0).message());
    assertEquals(List.of(3, 24), List.of(w.get(0).location().line(), w.get(0).location().column()));
    assertEquals(
        "commit requirements/train.txt next to train.yaml (a path is relative to the working"
            + " directory), or fix the name",
        w.get(0).hint());
    assertTrue(r.tree().isPresent(), "a warning does not stop the compile");
    assertEquals(
        1,
        found(
                compile("pip install --requirement=r.txt", Map.of()),
                DiagnosticCode.REQUIREMENTS_FILE_MISSING)
            .size());
    assertEquals(
        1,
        found(compile("pip install -rr.txt", Map.of()), DiagnosticCode.REQUIREMENTS_FILE_MISSING)
            .size());
    for (String quiet :
        List.of(
            "pip install -r r.txt",
            "poetry export -o gen.txt && pip install -r gen.txt",
            "pip install -r $REQS",
            "pip install -r /opt/r.txt",
            "pip install -r https://example.org/r.txt")) {
      assertEquals(
          List.of(),
          found(
              compile(quiet, Map.of("r.txt", "numpy\n")), DiagnosticCode.REQUIREMENTS_FILE_MISSING),
          quiet);
    }
  }

  @Test
  @DisplayName(
      "pip install -U torch (and --upgrade torch>=2.1): W433, the upgrade replaces the image's 2.13.0; numpy (not recorded) and a plain install are quiet")
  void upgrade() {
    CompileResult r = compile("pip install -U torch numpy", Map.of());
    List<Diagnostic> w = found(r, DiagnosticCode.REQUIREMENT_REPLACES_RUNTIME_PACKAGE);
    assertEquals(1, w.size(), r.diagnostics().toString());
    assertEquals(
        "`pip install -U torch numpy` upgrades torch past 2.13.0, which runtime torch@2.13.0-2's"
            + " image has, whenever a newer release exists: every node replaces the image's torch"
            + " with the newest one pip finds",
        w.get(0).message());
    assertEquals(
        "drop -U/--upgrade for torch (without it pip keeps the image's 2.13.0, which meets"
            + " `torch`), or pin the version the code needs",
        w.get(0).hint());
    assertEquals(List.of(3, 24), List.of(w.get(0).location().line(), w.get(0).location().column()));
    assertEquals(
        1,
        found(
                compile("pip install --upgrade 'torch[cpu]>=2.1'", Map.of()),
                DiagnosticCode.REQUIREMENT_REPLACES_RUNTIME_PACKAGE)
            .size());
    assertEquals(
        List.of(),
        found(
            compile("pip install torch numpy", Map.of()),
            DiagnosticCode.REQUIREMENT_REPLACES_RUNTIME_PACKAGE));
    assertEquals(
        List.of(),
        found(
            compile("pip install -U numpy", Map.of()),
            DiagnosticCode.REQUIREMENT_REPLACES_RUNTIME_PACKAGE));
    // The target of a redirection of the user's own is no requirement: `> torch` names a file.
    assertEquals(
        List.of(),
        found(
            compile("pip install -U numpy > torch 2>&1", Map.of()),
            DiagnosticCode.REQUIREMENT_REPLACES_RUNTIME_PACKAGE));
    assertEquals(
        1,
        found(
                compile("pip install -U numpy >log torch", Map.of()),
                DiagnosticCode.REQUIREMENT_REPLACES_RUNTIME_PACKAGE)
            .size());
    // A limit the image does not meet is the plain W433, reported once.
    assertEquals(
        1,
        found(
                    compile("pip install -U torch<2.10", Map.of()),
                    DiagnosticCode.REQUIREMENT_REPLACES_RUNTIME_PACKAGE)
                .size()
            + found(
                    compile("pip install -U 'torch<2.10'", Map.of()),
                    DiagnosticCode.REQUIREMENT_REPLACES_RUNTIME_PACKAGE)
                .size());
  }

  @Test
  @DisplayName("unquoted(): the first < or > outside quotes and escapes, else -1")
  void unquotedIndex() {
    assertEquals(5, SetupInstalls.unquoted("torch<2"));
    assertEquals(-1, SetupInstalls.unquoted("'torch<2'"));
    assertEquals(-1, SetupInstalls.unquoted("\"a>b\""));
    assertEquals(-1, SetupInstalls.unquoted("a\\>b"));
    assertEquals(4, SetupInstalls.unquoted("'a'b>c"));
    assertEquals(-1, SetupInstalls.unquoted("torch"));
  }
}
