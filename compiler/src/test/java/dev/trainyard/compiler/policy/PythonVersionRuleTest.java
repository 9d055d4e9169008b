package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.Severity;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** W434 ({@link PythonVersionRule}): the repository's declared Python against the image's. */
class PythonVersionRuleTest {
  @TempDir Path dir;

  private List<Diagnostic> w434(String trainYaml, Map<String, String> files) {
    CompileResult result = TrainProject.create(dir, "jobs/a", trainYaml, files).compile();
    assertTrue(result.tree().isPresent(), result.diagnostics().toString());
    return result.diagnostics().stream()
        .filter(d -> d.code() == DiagnosticCode.PYTHON_VERSION_MISMATCH)
        .toList();
  }

  @Test
  @DisplayName(
      ".python-version 3.13 on the plain runtime (Python 3.12): W434 at .python-version:line:col, pointer /runtime, with a hint")
  void pyenvNewer() {
    List<Diagnostic> found =
        w434(
            "runtime: plain\nrun: python t.py\n",
            Map.of(".python-version", "# pyenv\n  3.13.1\n3.9\n"));
    assertEquals(1, found.size(), found.toString());
    Diagnostic d = found.get(0);
    assertEquals(Severity.WARNING, d.severity());
    assertEquals(".python-version:2:3", d.location().toString());
    assertEquals("/runtime", d.pointer());
    assertEquals(
        ".python-version asks for Python 3.13.1, but runtime plain@3.12-3's image has Python 3.12:"
            + " code written for 3.13 (e.g. syntax newer than 3.12) fails on every rank",
        d.message());
    assertEquals(
        "choose a runtime whose image has Python 3.13 or newer (`trainyard runtimes show NAME` gives its Python and packages) or set"
            + " `image:` to one; if the code runs on 3.12, write 3.12 in .python-version",
        d.hint());
  }

  @Test
  @DisplayName(
      ".python-version the same, older, of another major, or no CPython version: not reported")
  void pyenvNotReported() {
    for (String v :
        List.of("3.12\n", "3.12.7", "3.9", "2.7", "system\n3.14", "pypy3.13-7.3", "", "#x\n")) {
      assertEquals(
          List.of(), w434("runtime: plain\nrun: python t.py\n", Map.of(".python-version", v)), v);
    }
    assertEquals(
        1, w434("runtime: plain\nrun: python t.py\n", Map.of(".python-version", "4.0")).size());
    assertEquals(
        1,
        w434("runtime: plain\nrun: python t.py\n", Map.of(".python-version", "cpython-3.14-dev"))
            .size());
  }

  @Test
  @DisplayName(
      "requires-python '>=3.13' on torch@2.13.0-1 (python only in packages: 'python 3.12'): W434 inside the quotes")
  void requiresPython() {
    List<Diagnostic> found =
        w434(
            "runtime: torch@2.13.0-1\nrun: python t.py\n",
            Map.of("pyproject.toml", "[project]\nname = \"t\"\nrequires-python = \">=3.13\"\n"));
    assertEquals(1, found.size(), found.toString());
    assertEquals("pyproject.toml:3:20", found.get(0).location().toString());
    assertEquals(
        "pyproject.toml requires Python `>=3.13`, but runtime torch@2.13.0-1's image has Python 3.12:"
            + " `pip install .` refuses the project there, and code written for the Python it names"
            + " may fail on every rank",
        found.get(0).message());
    assertEquals(
        "choose a runtime whose Python meets `>=3.13` (`trainyard runtimes show NAME` gives its Python and packages) or set `image:` to"
            + " one; if the code runs on 3.12, widen requires-python to admit it",
        found.get(0).hint());
  }

  @Test
  @DisplayName(
      "requires-python met by some 3.12 release (>=3.12.4, <3.13, ~=3.10), malformed, or image: set: not reported; <3.12 is")
  void requiresPythonMet() {
    for (String spec : List.of(">=3.12.4", "<3.13", "~=3.10", ">=3.8,!=3.11.*", "three")) {
      assertEquals(
          List.of(),
          w434(
              "runtime: plain\nrun: python t.py\n",
              Map.of("pyproject.toml", "[project]\nrequires-python = '" + spec + "'\n")),
          spec);
    }
    assertEquals(
        1,
        w434(
                "runtime: plain\nrun: python t.py\n",
                Map.of("pyproject.toml", "[project]\nrequires-python = '<3.12'\n"))
            .size());
    assertEquals(
        List.of(),
        w434(
            "runtime: plain\nimage: docker.io/library/python:3.14@sha256:"
                + "a".repeat(64)
                + "\nrun: python t.py\n",
            Map.of(".python-version", "3.14\n")));
  }
}
