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

/**
 * W433 ({@link ReplacedPackages}): a requirement setup installs that the runtime image's recorded
 * version does not meet, reported at the requirement in its own file with the pip command that
 * replaces the image's package.
 */
class ReplacedPackagesTest {
  private static final String TORCH = "runtime: torch\nnodes: 2\nrun: torchrun train.py\n";
  @TempDir Path dir;

  private List<Diagnostic> w433(String trainYaml, Map<String, String> files) {
    CompileResult result = TrainProject.create(dir, "jobs/a", trainYaml, files).compile();
    assertTrue(
        result.tree().isPresent(), "a warning does not stop the compile: " + result.diagnostics());
    return result.diagnostics().stream()
        .filter(d -> d.code() == DiagnosticCode.REQUIREMENT_REPLACES_RUNTIME_PACKAGE)
        .toList();
  }

  @Test
  @DisplayName(
      "torch<2.10 in requirements.txt on the torch runtime (2.13.0): W433 at requirements.txt:line:col, names the pip command, says the pin wins")
  void pinBelowTheImage() {
    List<Diagnostic> found =
        w433(TORCH, Map.of("requirements.txt", "# deps\nnumpy>=1.20\n  torch<2.10  # old\n"));
    assertEquals(1, found.size(), found.toString());
    Diagnostic d = found.get(0);
    assertEquals(Severity.WARNING, d.severity());
    assertEquals("requirements.txt:3:3", d.location().toString());
    assertEquals("/setup", d.pointer());
    assertEquals(
        "`torch<2.10` (requirements.txt) does not admit torch 2.13.0, which runtime torch@2.13.0-2's"
            + " image has: `pip install -r requirements.txt` in setup replaces it on every node, and"
            + " the run trains with the torch pip picks for `<2.10`, not the image's",
        d.message());
    assertEquals(
        "drop the limit (`torch` alone keeps the image's 2.13.0) or widen it to admit 2.13.0; to"
            + " train with another torch, choose a runtime whose image has it (`trainyard runtimes"
            + " show NAME` gives its Python and packages), as a torch pip downloads may not be built"
            + " for the image's CUDA or libraries",
        d.hint());
  }

  @Test
  @DisplayName(
      "limits the image's version meets (>=2.1, ~=2.13, ==2.13.*, unpinned) are not reported")
  void admitted() {
    assertEquals(
        List.of(),
        w433(
            TORCH,
            Map.of(
                "requirements.txt",
                "torch>=2.1,<3\nTorch~=2.13\ntorch==2.13.*\ntorch\ntorchvision==0.1\n")));
  }

  @Test
  @DisplayName(
      "an included file (-r) and a wildcard pin: reported in the included file, at its line")
  void included() {
    List<Diagnostic> found =
        w433(
            TORCH,
            Map.of(
                "requirements.txt", "-r reqs/base.txt\n",
                "reqs/base.txt", "numpy\ntorch==2.9.*\n"));
    assertEquals(1, found.size(), found.toString());
    assertEquals("reqs/base.txt:2:1", found.get(0).location().toString());
    assertTrue(found.get(0).message().startsWith("`torch==2.9.*` (base.txt) does not admit"));
  }

  @Test
  @DisplayName(
      "setup `pip install -e .` reads pyproject.toml's dependencies; setup's own pip arguments are checked at their column")
  void projectAndArguments() {
    List<Diagnostic> found =
        w433(
            "runtime: torch\nnodes: 2\nsetup: pip install -q -e . 'torch!=2.13.0'\nrun: torchrun train.py\n",
            Map.of(
                "pyproject.toml",
                "[project]\nname = \"x\"\ndependencies = [\n  \"numpy\",\n  \"torch>=2.14\",  # new\n]\n[tool.x]\ndependencies = [\"torch<1\"]\n"));
    assertEquals(2, found.size(), found.toString());
    assertEquals("pyproject.toml:5:4", found.get(0).location().toString());
    assertTrue(
        found.get(0).message().startsWith("`torch>=2.14` (pyproject.toml's dependencies)"),
        found.get(0).message());
    assertTrue(found.get(0).message().contains("`pip install -q -e . 'torch!=2.13.0'` in setup"));
    assertEquals(3, found.get(1).location().line());
    assertEquals(8 + "pip install -q -e . ".length(), found.get(1).location().column());
    assertTrue(found.get(1).message().startsWith("`torch!=2.13.0` (setup) does not admit"));
  }

  @Test
  @DisplayName(
      "no report when pip installs elsewhere (--target), when image: replaces the runtime's, or when markers make it depend on the node")
  void notReported() {
    Map<String, String> pin = Map.of("requirements.txt", "torch<2.10\n");
    assertEquals(
        List.of(),
        w433(
            "runtime: torch\nsetup: pip install --target /tmp/x -r requirements.txt\nrun: python t.py\n",
            pin));
    assertEquals(
        List.of(),
        w433(
            "runtime: torch\nimage: docker.io/library/python:3.12@sha256:"
                + "a".repeat(64)
                + "\nrun: python t.py\n",
            pin));
    assertEquals(
        List.of(), w433(TORCH, Map.of("requirements.txt", "torch<2.10; python_version < '3.8'\n")));
  }

  @Test
  @DisplayName(
      "deepspeed's runtime records deepspeed 0.19.2 and torch 2.13.0 (pip --user): a pin of either is checked")
  void deepspeedRuntime() {
    List<Diagnostic> found =
        w433(
            "runtime: deepspeed\nnodes: 2\nsetup: python3 -m pip install --requirement=r.txt\nrun: python train.py\n",
            Map.of("r.txt", "deepspeed==0.14.0\ntorch==2.13.0\n"));
    assertEquals(1, found.size(), found.toString());
    assertEquals("r.txt:1:1", found.get(0).location().toString());
    assertTrue(
        found.get(0).message().contains("deepspeed 0.19.2, which runtime deepspeed@2.3.0-2"));
  }

  @Test
  @DisplayName(
      "pip's argument forms: -rFILE and -r FILE (the next word is the file, then requirements again), an option's value (-i URL) is no requirement, `.` and ./sub[extra] read the project")
  void argumentForms() {
    Map<String, String> files =
        Map.of(
            "r.txt",
            "torch<2.10\n",
            "sub/pyproject.toml",
            "[project]\nname = \"s\"\ndependencies = [\"torch<2.9\"]\n",
            "pyproject.toml",
            "[project]\nname = \"x\"\ndependencies = [\"torch<2.8\"]\n");
    List<Diagnostic> found =
        w433(
            "runtime: torch\nnodes: 2\nsetup: pip install -rr.txt -r r.txt 'torch==2.0' -i https://pypi.org/simple/torch==1 . './sub[x]'\nrun: torchrun train.py\n",
            files);
    assertEquals(
        // Sorted by file and line; r.txt's line is reported once though -r names it twice.
        List.of(
            "`torch<2.8` (pyproject.toml's dependencies)",
            "`torch<2.10` (r.txt)",
            "`torch<2.9` (pyproject.toml's dependencies)",
            "`torch==2.0` (setup)"),
        found.stream().map(d -> d.message().substring(0, d.message().indexOf(')') + 1)).toList());
    List<Diagnostic> editable =
        w433(
            "runtime: torch\nnodes: 2\nsetup: pip install --editable ./sub 'torch<2'\nrun: torchrun train.py\n",
            files);
    assertEquals(2, editable.size(), editable.toString());
  }
}
