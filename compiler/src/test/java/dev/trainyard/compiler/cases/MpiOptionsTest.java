package dev.trainyard.compiler.cases;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.Severity;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * train.yaml's {@code mpi} field (issue #10: MPI tuning needs a way to be expressed): validated by
 * the schema and the policy stage, rendered into the launcher's mpirun with the values as env only,
 * and accepted by the real Open MPI 4.1 {@code mpirun} (Debian {@code openmpi-bin}), which hands
 * {@code --mca} values to its ranks as {@code OMPI_MCA_*} variables.
 */
class MpiOptionsTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  private static final String TUNED =
      "runtime: mpi\nnodes: 2\nrun: ./pi\n"
          + "mpi:\n  bindTo: none\n  mapBy: slot\n  mca:\n    btl_tcp_if_include: lo\n    btl: ^openib\n";

  @TempDir Path dir;

  @Test
  @DisplayName(
      "mpi options become --bind-to, --map-by and --mca words whose values are launcher env, never -x forwarded")
  void rendered() {
    CompileResult r = TrainProject.create(dir, TUNED).compile();
    List<String> argv = CaseCompile.mpirunArgv(r);
    String tail = String.join(" ", argv.subList(argv.indexOf("--bind-to"), argv.size()));
    assertEquals(
        "--bind-to \"$TRAINYARD_MPI_BIND_TO\" --map-by \"$TRAINYARD_MPI_MAP_BY\" --mca btl \"$TRAINYARD_MCA_btl\""
            + " --mca btl_tcp_if_include \"$TRAINYARD_MCA_btl_tcp_if_include\" \"${forward[@]}\"",
        tail);
    assertFalse(argv.contains("TRAINYARD_MPI_BIND_TO"), "values must not be -x forwarded: " + argv);
    JsonNode jobSet = TrainProject.object(r, "JobSet");
    assertEquals(
        "none",
        TrainProject.env(jobSet, "launcher", "TRAINYARD_MPI_BIND_TO").path("value").asText());
    assertEquals(
        "slot",
        TrainProject.env(jobSet, "launcher", "TRAINYARD_MPI_MAP_BY").path("value").asText());
    assertEquals(
        "^openib",
        TrainProject.env(jobSet, "launcher", "TRAINYARD_MCA_btl").path("value").asText());
    assertTrue(TrainProject.env(jobSet, "node", "TRAINYARD_MPI_BIND_TO").isMissingNode());
  }

  @Test
  @DisplayName(
      "a train.yaml folder and workdir holding a space, $( ) and a quote reach mpirun's --wdir as one single-quoted word")
  void workdirIsOneShellWord() {
    CompileResult r =
        TrainProject.create(
                dir,
                "jobs/a b$(id)",
                "runtime: mpi\nnodes: 2\nworkdir: \"it's\"\nrun: ./pi\n",
                Map.of("it's/pi", "#!/bin/sh\n"))
            .compile();
    assertTrue(
        r.diagnostics().stream().noneMatch(d -> d.severity() == Severity.ERROR),
        r.diagnostics().toString());
    String launch = CaseCompile.mpiFile(r, "launch.sh");
    assertTrue(launch.contains(" --wdir '/workspace/src/jobs/a b$(id)/it'\\''s' "), launch);
  }

  @Test
  @DisplayName("without an mpi field the mpirun line is unchanged (no tuning words)")
  void absent() {
    CompileResult r = TrainProject.create(dir, "runtime: mpi\nnodes: 2\nrun: ./pi\n").compile();
    List<String> argv = CaseCompile.mpirunArgv(r);
    assertFalse(
        argv.contains("--bind-to") || argv.contains("--map-by") || argv.contains("--mca"),
        argv.toString());
  }

  @Test
  @DisplayName(
      "the real mpirun accepts the rendered tuning words with the launcher's env and passes --mca values to the rank")
  void realMpirunAcceptsThem() throws Exception {
    ToolRun.require("mpirun", "openmpi-bin");
    CompileResult r = TrainProject.create(dir.resolve("repo"), TUNED).compile();
    List<String> argv = CaseCompile.mpirunArgv(r);
    String tuning = String.join(" ", argv.subList(argv.indexOf("--bind-to"), argv.size()));
    JsonNode jobSet = TrainProject.object(r, "JobSet");
    Map<String, String> env = new HashMap<>();
    for (String name :
        List.of(
            "TRAINYARD_MPI_BIND_TO",
            "TRAINYARD_MPI_MAP_BY",
            "TRAINYARD_MCA_btl",
            "TRAINYARD_MCA_btl_tcp_if_include")) {
      env.put(name, TrainProject.env(jobSet, "launcher", name).path("value").asText());
    }
    Path marker = dir.resolve("ran");
    String script =
        "mpirun "
            + (ToolRun.asRoot() ? "--allow-run-as-root " : "")
            + "--oversubscribe -np 1 "
            + tuning
            + " bash -c 'echo \"include=$OMPI_MCA_btl_tcp_if_include btl=$OMPI_MCA_btl\" > "
            + marker
            + "'";
    ToolRun run = ToolRun.run(List.of("bash", "-c", script), dir, env);
    assertEquals(0, run.exitCode(), run.output());
    assertEquals("include=lo btl=^openib", Files.readString(marker).strip());
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "bindTo: 'none; touch /tmp/x'",
        "mapBy: '$(id)'",
        "mca: {btl: 'eth0 --mca x'}",
        "mca: {'bad-name': x}",
        "mca: {btl: '`id`'}",
        "bindTo: sideways"
      })
  @DisplayName(
      "an mpi option with blanks, shell characters or an unknown mode is a schema error at its line, nothing rendered")
  void unsafeRefused(String option) {
    CompileResult r =
        TrainProject.create(dir, "runtime: mpi\nnodes: 2\nrun: ./pi\nmpi: {" + option + "}\n")
            .compile();
    assertTrue(r.tree().isEmpty());
    List<Diagnostic> errors = r.diagnostics().stream().filter(Diagnostic::isError).toList();
    assertFalse(errors.isEmpty());
    errors.forEach(d -> assertTrue(d.pointer().startsWith("/mpi"), d.toString()));
    errors.forEach(d -> assertEquals(4, d.location().line(), d.toString()));
  }

  @Test
  @DisplayName(
      "an MCA parameter Trainyard sets (the hostfile, slots, ssh args) is refused at its key, naming the ones Trainyard sets")
  void trainyardsOwnRefused() {
    CompileResult r =
        TrainProject.create(
                dir, "runtime: mpi\nnodes: 2\nrun: ./pi\nmpi:\n  mca:\n    plm_rsh_args: x\n")
            .compile();
    List<Diagnostic> d =
        r.diagnostics().stream()
            .filter(x -> x.code() == DiagnosticCode.INVALID_MPI_SETTINGS)
            .toList();
    assertEquals(1, d.size(), r.diagnostics().toString());
    assertEquals("/mpi/mca/plm_rsh_args", d.get(0).pointer());
    assertEquals(6, d.get(0).location().line());
    WORDING.approve(d.get(0).hint());
  }

  @Test
  @DisplayName(
      "an MCA parameter in mpi.mca and as OMPI_MCA_<name> in env is set twice: reported at both lines")
  void mcaAndEnvTwice() {
    CompileResult r =
        TrainProject.create(
                dir,
                "runtime: mpi\nnodes: 2\nrun: ./pi\nenv:\n  OMPI_MCA_btl: self\nmpi:\n  mca:\n    btl: tcp\n")
            .compile();
    List<Diagnostic> d =
        r.diagnostics().stream().filter(x -> x.code() == DiagnosticCode.ENV_SET_TWICE).toList();
    assertEquals(
        List.of("/env/OMPI_MCA_btl", "/mpi/mca/btl"),
        d.stream().map(Diagnostic::pointer).sorted().toList());
    assertEquals(List.of(5, 8), d.stream().map(x -> x.location().line()).sorted().toList());
    assertTrue(r.tree().isEmpty());
  }

  @Test
  @DisplayName("mpi options on a runtime without mpirun, or without Open MPI, are refused at `mpi`")
  void needsOpenMpi() {
    CompileResult torch =
        TrainProject.create(
                dir.resolve("t"), "nodes: 2\nrun: torchrun train.py\nmpi: {bindTo: none}\n")
            .compile();
    List<Diagnostic> d =
        torch.diagnostics().stream()
            .filter(x -> x.code() == DiagnosticCode.INVALID_MPI_SETTINGS)
            .toList();
    assertEquals(1, d.size(), torch.diagnostics().toString());
    assertEquals(3, d.get(0).location().line());
    WORDING.approve(d.get(0).message());

    String intel =
        new CaseCompile.RuntimeText("intel-mpi", "mpi", 1000, "/home/mpiuser", 0, true)
            .yaml()
            .replace("OpenMPI", "Intel");
    Path runtimes =
        CaseCompile.runtime(
            dir, new CaseCompile.RuntimeText("intel-mpi", "mpi", 1000, "/home/mpiuser", 0, true));
    CaseCompile.file(runtimes.resolve("intel-mpi/1.0.0-1"), "runtime.yaml", intel);
    TrainProject p =
        TrainProject.create(
            dir.resolve("i"), "runtime: intel-mpi\nnodes: 2\nrun: ./pi\nmpi: {mapBy: slot}\n");
    CompileResult r = CaseCompile.compile(p, Optional.of(runtimes));
    List<Diagnostic> i =
        r.diagnostics().stream()
            .filter(x -> x.code() == DiagnosticCode.INVALID_MPI_SETTINGS)
            .toList();
    assertEquals(1, i.size(), r.diagnostics().toString());
    assertTrue(i.get(0).message().contains("Intel"), i.get(0).message());
    assertEquals(
        new ArrayList<>(),
        r.diagnostics().stream().filter(x -> x.code() == DiagnosticCode.INVALID_RUNTIME).toList());
  }
}
