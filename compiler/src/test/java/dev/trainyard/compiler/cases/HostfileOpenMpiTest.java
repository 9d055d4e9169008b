package dev.trainyard.compiler.cases;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.testing.TrainProject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The emitted hostfile read by the real Open MPI 4.1 {@code mpirun} (Debian {@code openmpi-bin}):
 * with {@code --display-allocation --do-not-launch} it parses the hostfile, maps {@code -np} ranks
 * onto the slots and prints one "Data for node: HOST Num slots: N" block per host without starting
 * anything. Open MPI cuts names at the first dot (mpi-operator#733), so the short names must still
 * be distinct.
 */
class HostfileOpenMpiTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "runtime {0}, nodes {1}, gpus {2}")
  @CsvSource({"mpi,3,2", "deepspeed,2,4", "mlx,4,0"})
  @DisplayName(
      "Open MPI's mpirun parses the emitted hostfile: every host with the emitted slots, and -np fits them exactly")
  void hostfileParsesWithOpenMpi(String runtime, int nodes, int gpus) throws IOException {
    ToolRun.require("mpirun", "openmpi-bin");
    CompileResult r =
        TrainProject.create(
                dir.resolve("repo"),
                "runtime: "
                    + runtime
                    + "\nnodes: "
                    + nodes
                    + "\nresources:\n  gpus: "
                    + gpus
                    + "\nrun: python train.py\n")
            .compile();
    List<String> lines = CaseCompile.hostfileLines(r);
    Path hostfile = Files.writeString(dir.resolve("hostfile"), CaseCompile.mpiFile(r, "hostfile"));
    String np = CaseCompile.flagValue(CaseCompile.mpirunArgv(r), "-np");
    List<String> argv = new ArrayList<>(List.of("mpirun"));
    if (ToolRun.asRoot()) {
      argv.add("--allow-run-as-root");
    }
    argv.addAll(
        List.of(
            "--hostfile",
            hostfile.toString(),
            "--display-allocation",
            "--do-not-launch",
            "-np",
            np,
            "true"));
    ToolRun run = ToolRun.run(argv, dir, Map.of());

    assertEquals(0, run.exitCode(), run.output());
    assertFalse(run.output().contains("not enough slots"), run.output());
    assertEquals(nodes, lines.size());
    int total = 0;
    for (String line : lines) {
      String[] parts = line.split(" slots=");
      String shortName = parts[0].substring(0, parts[0].indexOf('.'));
      assertTrue(
          run.output().contains("Data for node: " + shortName + "\tNum slots: " + parts[1]),
          "mpirun did not allocate " + parts[1] + " slots on " + shortName + ":\n" + run.output());
      total += Integer.parseInt(parts[1]);
    }
    assertEquals(Integer.toString(total), np);
    assertTrue(run.output().contains("Total slots allocated " + total), run.output());
    assertEquals(
        nodes,
        new HashSet<>(lines.stream().map(l -> l.substring(0, l.indexOf('.'))).toList()).size());
  }
}
