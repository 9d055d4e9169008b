package dev.trainyard.compiler.cases;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.testing.TrainProject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MPI race (issue #10): an evicted node pod makes mpirun fail at once, before the node's Job is Failed
 * with its {@code DisruptionTarget}. launch.sh, run here by real bash with stand-ins for {@code getent} and
 * {@code mpirun}, waits 45 s after a failed mpirun so the node's Job fails first and JobSet restarts the run;
 * the exit status stays mpirun's, and a SIGTERM (the pod deleted by that restart) ends the wait.
 */
class LauncherGraceTest {
  @TempDir Path dir;
  private Path script;
  private Path bin;

  @BeforeEach
  void compile() throws IOException {
    ToolRun.require("bash", "bash");
    CompileResult r = TrainProject.create(dir.resolve("repo"), "runtime: mpi\nnodes: 2\nrun: python train.py\n").compile();
    script = CaseCompile.launchScript(r, dir);
    bin = Files.createDirectories(dir.resolve("bin"));
    executable("getent", "#!/bin/bash\nexit 0\n");
  }

  private void executable(String name, String text) {
    ToolRun.executable(bin, name, text);
  }

  /** Runs launch.sh with {@code sleep} replaced by a function that records its argument and returns at once. */
  private ToolRun launchRecordingSleeps() {
    return ToolRun.run(List.of("bash", script.toString()), dir, Map.of(
        "PATH", bin + ":" + System.getenv("PATH"),
        "BASH_FUNC_sleep%%", "() { echo \"$1\" >> " + dir.resolve("slept") + "; }",
        "TRAINYARD_RUN", "true"));
  }

  private List<String> sleeps() throws IOException {
    Path slept = dir.resolve("slept");
    return Files.exists(slept) ? Files.readAllLines(slept) : List.of();
  }

  @Test
  @DisplayName("a failed mpirun waits 45 s before the launcher exits, with mpirun's exit status and a line saying why")
  void failedMpirunWaitsThenExitsWithItsStatus() throws IOException {
    executable("mpirun", "#!/bin/bash\nexit 3\n");
    ToolRun run = launchRecordingSleeps();
    assertEquals(3, run.exitCode(), run.output());
    assertEquals(List.of("45"), sleeps());
    assertTrue(run.output().contains("trainyard: mpirun exited with status 3; waiting 45s so that a disrupted node"
        + " restarts the run before this exit fails it"), run.output());
  }

  @Test
  @DisplayName("a successful mpirun ends the launcher at once with status 0")
  void successEndsAtOnce() throws IOException {
    executable("mpirun", "#!/bin/bash\necho \"$@\" > " + dir.resolve("mpirun-args") + "\n");
    ToolRun run = launchRecordingSleeps();
    assertEquals(0, run.exitCode(), run.output());
    assertEquals(List.of(), sleeps());
    assertFalse(run.output().contains("waiting 45s"), run.output());
    assertTrue(Files.readString(dir.resolve("mpirun-args")).endsWith("/bin/bash -eo pipefail -c true\n"));
  }

  @Test
  @DisplayName("SIGTERM during the wait (the pod deleted by the restart) ends the launcher within seconds, not 45")
  void sigtermEndsTheWait() throws Exception {
    executable("mpirun", "#!/bin/bash\nexit 1\n");
    Process p = start();
    awaitLine(p, "waiting 45s");
    long t0 = System.nanoTime();
    p.destroy();
    assertTrue(p.waitFor(10, TimeUnit.SECONDS), "launch.sh still waits after SIGTERM");
    assertTrue(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0) < 10);
    assertEquals(1, p.exitValue());
  }

  @Test
  @DisplayName("SIGTERM while mpirun runs is passed on to mpirun, and its non-zero exit then skips the wait")
  void sigtermIsForwardedToMpirunAndSkipsTheWait() throws Exception {
    Path termed = dir.resolve("termed");
    executable("mpirun", "#!/bin/bash\ntrap 'echo TERM > " + termed + "; exit 143' TERM\necho started\n"
        + "for i in $(seq 1 300); do sleep 0.1; done\nexit 0\n");
    Process p = start();
    awaitLine(p, "started");
    p.destroy();
    assertTrue(p.waitFor(10, TimeUnit.SECONDS), "launch.sh did not end after SIGTERM");
    assertEquals(143, p.exitValue());
    assertEquals("TERM", Files.readString(termed).strip());
  }

  private Process start() throws IOException {
    ProcessBuilder pb = new ProcessBuilder("bash", script.toString()).directory(dir.toFile()).redirectErrorStream(true);
    pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
    pb.environment().put("TRAINYARD_RUN", "true");
    return pb.start();
  }

  /** Reads the merged output until a line contains {@code text}; fails after 20 s or at end of output. */
  private static void awaitLine(Process p, String text) throws Exception {
    BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    StringBuilder seen = new StringBuilder();
    while (System.nanoTime() < deadline) {
      String line = out.readLine();
      if (line == null) {
        break;
      }
      seen.append(line).append('\n');
      if (line.contains(text)) {
        return;
      }
    }
    p.destroyForcibly();
    throw new AssertionError("no line with \"" + text + "\" in:\n" + seen);
  }
}
