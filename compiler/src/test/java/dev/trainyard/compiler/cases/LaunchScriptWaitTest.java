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
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * C05 (trainer#3783, mpi-operator#482): the emitted launch.sh run by real bash with stand-ins for
 * {@code getent} and {@code mpirun} on PATH. {@code sleep} is replaced by an exported bash function
 * that advances bash's {@code SECONDS} by 100, so the deadline is reached in a few loop turns
 * instead of minutes. The script's hostfile path is pointed at a copy of the emitted hostfile.
 */
class LaunchScriptWaitTest {
  @TempDir Path dir;
  private Path script;
  private Path bin;
  private List<String> hosts;
  private String launcherHost;

  @BeforeEach
  void compile() throws IOException {
    ToolRun.require("bash", "bash");
    CompileResult r =
        TrainProject.create(dir.resolve("repo"), "runtime: mlx\nnodes: 3\nrun: python train.py\n")
            .compile();
    script = CaseCompile.launchScript(r, dir);
    hosts = CaseCompile.hostfileLines(r).stream().map(l -> l.substring(0, l.indexOf(' '))).toList();
    String js = TrainProject.object(r, "JobSet").path("metadata").path("name").asText();
    launcherHost = js + "-launcher-0-0." + js;
    bin = Files.createDirectories(dir.resolve("bin"));
    executable(
        "getent",
        "#!/bin/bash\necho \"$2\" >> "
            + dir.resolve("asked")
            + "\ngrep -qxF \"$2\" "
            + dir.resolve("resolvable")
            + "\n");
    executable("mpirun", "#!/bin/bash\necho \"$@\" > " + dir.resolve("mpirun-args") + "\n");
  }

  private void executable(String name, String text) {
    ToolRun.executable(bin, name, text);
  }

  private ToolRun launch(List<String> resolvable) throws IOException {
    Files.write(dir.resolve("resolvable"), resolvable);
    return ToolRun.run(
        List.of("bash", script.toString()),
        dir,
        Map.of(
            "PATH", bin + ":" + System.getenv("PATH"),
            "BASH_FUNC_sleep%%", "() { SECONDS=$((SECONDS + 100)); }",
            "TRAINYARD_RUN", "true"));
  }

  @Test
  @DisplayName(
      "C05: launch.sh waits for its own name and every hostfile name to resolve, then starts mpirun")
  void waitsForEveryHostThenLaunches() throws IOException {
    List<String> all = new ArrayList<>(hosts);
    all.add(launcherHost);
    ToolRun run = launch(all);
    assertEquals(0, run.exitCode(), run.output());
    List<String> asked = Files.readAllLines(dir.resolve("asked"));
    assertTrue(asked.containsAll(all), "resolved " + asked + ", expected every one of " + all);
    assertTrue(Files.readString(dir.resolve("mpirun-args")).startsWith("--hostfile "));
  }

  @Test
  @DisplayName(
      "C05: the wait is bounded: a name that never resolves fails the launcher at the deadline, without mpirun")
  void waitIsBounded() throws IOException {
    String node = hosts.stream().filter(h -> !h.equals(launcherHost)).findFirst().orElseThrow();
    ToolRun run = launch(List.of(launcherHost));
    assertEquals(1, run.exitCode(), run.output());
    assertTrue(run.output().contains(node + " did not resolve within 300s"), run.output());
    assertFalse(
        Files.exists(dir.resolve("mpirun-args")), "mpirun ran although a host never resolved");
    long tries = Files.readAllLines(dir.resolve("asked")).stream().filter(node::equals).count();
    assertTrue(tries >= 2 && tries <= 5, "the unresolved host was tried " + tries + " times");
  }
}
