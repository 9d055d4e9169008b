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

/**
 * W431 beyond {@code run} ({@link ImagePython}): {@code setup} and the {@code pip install -r
 * requirements.txt} a requirements.txt adds run on every node first, so on the mpi runtime's image
 * (no Python) they fail before {@code run} starts. The {@code run} rows are in {@link RunLintTest}.
 */
class ImagePythonTest {
  private static final String LACKS =
      "runtime mpi@0.6.0-2 records no Python in its image docker.io/mpioperator/openmpi:v0.6.0:"
          + " the command would not be found (exit 127) on any node";
  @TempDir Path dir;

  private List<Diagnostic> w431(TrainProject project) {
    CompileResult result = project.compile();
    assertTrue(
        result.tree().isPresent(), "a warning does not stop the compile: " + result.diagnostics());
    return result.diagnostics().stream()
        .filter(d -> d.code() == DiagnosticCode.NO_PYTHON_IN_IMAGE)
        .toList();
  }

  @Test
  @DisplayName(
      "setup that starts pip on the mpi image: W431 at pip in /setup, and run's own python is reported too")
  void setupStartsPip() {
    List<Diagnostic> found =
        w431(
            TrainProject.create(
                dir,
                "runtime: mpi\nnodes: 2\nsetup: 'mkdir -p out && pip3 install x'\nrun: python3 a.py\n"));
    assertEquals(2, found.size(), found.toString());
    Diagnostic setup = found.get(0);
    assertEquals("/setup", setup.pointer());
    assertEquals(3, setup.location().line());
    assertEquals(
        9 + "mkdir -p out && ".length(),
        setup.location().column(),
        "column of pip3, after the quote");
    assertEquals("`setup` starts pip3, but " + LACKS, setup.message());
    assertEquals("/run", found.get(1).pointer());
    assertEquals(4, found.get(1).location().line());
  }

  @Test
  @DisplayName(
      "a requirements.txt next to an mpi train.yaml: W431 says the pip install it adds fails, at run's start")
  void requirementsTxt() {
    List<Diagnostic> found =
        w431(
            TrainProject.create(
                dir,
                "jobs/a",
                "runtime: mpi\nnodes: 2\nrun: ./pi\n",
                Map.of("requirements.txt", "numpy\n")));
    assertEquals(1, found.size(), found.toString());
    assertEquals(
        "the requirements.txt in the working directory makes every node run `pip install -r requirements.txt` first, but "
            + LACKS,
        found.get(0).message());
    assertEquals("/run", found.get(0).pointer());
    assertEquals(3, found.get(0).location().line());
    assertEquals(6, found.get(0).location().column());
  }

  @Test
  @DisplayName("setup without python or pip, and an image train.yaml names, stay quiet")
  void quiet() {
    assertEquals(
        List.of(),
        w431(
            TrainProject.create(
                dir.resolve("a"), "runtime: mpi\nnodes: 2\nsetup: echo python3\nrun: ./pi\n")));
    assertEquals(
        List.of(),
        w431(
            TrainProject.create(
                dir.resolve("b"),
                "jobs/b",
                "runtime: mpi\nnodes: 2\nimage: "
                    + RunLintCases.MPI_PYTHON_IMAGE
                    + "\nsetup: pip install x\nrun: python a.py\n",
                Map.of("requirements.txt", "numpy\n"))));
    assertEquals(
        List.of(),
        w431(
            TrainProject.create(
                dir.resolve("c"),
                "jobs/c",
                "runtime: torch\nnodes: 2\nrun: torchrun a.py\n",
                Map.of("requirements.txt", "numpy\n"))));
  }

  @Test
  @DisplayName(
      "mpirun in run on the mpi image: E409 for mpirun and W431 for the python it starts, so the E409 hint's python command is not taken for a fix")
  void pythonUnderMpirun() {
    CompileResult result =
        TrainProject.create(
                dir,
                "runtime: mpi\nnodes: 2\nrun: mpirun -np 4 -x A=1 --mca btl tcp python3 train.py\n")
            .compile();
    List<String> codes =
        result.diagnostics().stream()
            .map(d -> d.code().id())
            .filter(c -> !c.equals("W410"))
            .toList();
    assertEquals(List.of("E409", "W431"), codes, result.diagnostics().toString());
    Diagnostic w431 =
        result.diagnostics().stream()
            .filter(d -> d.code() == DiagnosticCode.NO_PYTHON_IN_IMAGE)
            .findFirst()
            .orElseThrow();
    assertEquals(6 + "mpirun -np 4 -x A=1 --mca btl tcp ".length(), w431.location().column());
    assertEquals(
        List.of(),
        TrainProject.create(
                dir.resolve("b"), "runtime: mpi\nnodes: 2\nrun: mpirun -np 4 -x python3 ./pi\n")
            .compile()
            .diagnostics()
            .stream()
            .filter(d -> d.code() == DiagnosticCode.NO_PYTHON_IN_IMAGE)
            .toList(),
        "python3 is -x's value here, not the program");
  }
}
