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
 * The MPI race (issue #10): an evicted node pod makes mpirun fail at once, before the node's Job is
 * Failed with its {@code DisruptionTarget}. launch.sh, run here by real bash with stand-ins for
 * {@code getent}, {@code mpirun} and {@code timeout} (which runs the probe of each node pod's sshd
 * port: the stand-in says which answer), waits 45 s after a failed mpirun so the node's Job fails
 * first and JobSet restarts the run, and 600 s when a node pod's sshd does not answer (a node lost
 * without an eviction: PodGC fails its pods only 40 to 80 s after its Node is deleted, NodeLossIT);
 * the exit status stays mpirun's, and a SIGTERM (the pod deleted by that restart) ends the wait.
 */
class LauncherGraceTest {
  @TempDir Path dir;
  private Path script;

  /** The node pods' hostnames, in hostfile order. */
  private String host0;

  private String host1;
  private Path bin;

  @BeforeEach
  void compile() throws IOException {
    ToolRun.require("bash", "bash");
    CompileResult r =
        TrainProject.create(dir.resolve("repo"), "runtime: mpi\nnodes: 2\nrun: python train.py\n")
            .compile();
    script = CaseCompile.launchScript(r, dir);
    List<String> hosts = CaseCompile.hostfileLines(r).stream().map(l -> l.split(" ")[0]).toList();
    host0 = hosts.get(0);
    host1 = hosts.get(1);
    bin = Files.createDirectories(dir.resolve("bin"));
    executable("getent", "#!/bin/bash\nexit 0\n");
    answering("node-0-0", "node-0-1");
  }

  /**
   * The {@code timeout} stand-in: records its arguments; the probe succeeds for hosts containing
   * one of {@code hosts}.
   */
  private void answering(String... hosts) {
    StringBuilder cases = new StringBuilder();
    for (String host : hosts) {
      cases.append("  *").append(host).append("*) exit 0 ;;\n");
    }
    executable(
        "timeout",
        "#!/bin/bash\necho \"$*\" >> "
            + dir.resolve("probed")
            + "\ncase \"$*\" in\n"
            + cases
            + "esac\nexit 1\n");
  }

  private List<String> probed() throws IOException {
    Path probed = dir.resolve("probed");
    return Files.exists(probed) ? Files.readAllLines(probed) : List.of();
  }

  private void executable(String name, String text) {
    ToolRun.executable(bin, name, text);
  }

  /**
   * Runs launch.sh with {@code sleep} replaced by a function that records its argument and returns
   * at once.
   */
  private ToolRun launchRecordingSleeps() {
    return ToolRun.run(
        List.of("bash", script.toString()),
        dir,
        Map.of(
            "PATH", bin + ":" + System.getenv("PATH"),
            "BASH_FUNC_sleep%%", "() { echo \"$1\" >> " + dir.resolve("slept") + "; }",
            "TRAINYARD_RUN", "true"));
  }

  private List<String> sleeps() throws IOException {
    Path slept = dir.resolve("slept");
    return Files.exists(slept) ? Files.readAllLines(slept) : List.of();
  }

  @Test
  @DisplayName(
      "a failed mpirun waits 45 s before the launcher exits, with mpirun's exit status and a line saying why")
  void failedMpirunWaitsThenExitsWithItsStatus() throws IOException {
    executable("mpirun", "#!/bin/bash\nexit 3\n");
    ToolRun run = launchRecordingSleeps();
    assertEquals(3, run.exitCode(), run.output());
    assertEquals(List.of("45"), sleeps());
    assertTrue(
        run.output()
            .contains(
                "trainyard: mpirun exited with status 3; every node pod's sshd answers; waiting 45s"
                    + " so that a disrupted node restarts the run before this exit fails it"),
        run.output());
    String probe = "5 bash -c exec 3<>\"/dev/tcp/$0/2222\" ";
    assertEquals(
        List.of(probe + host0, probe + host1), probed(), "each node pod's sshd port, within 5 s");
  }

  @Test
  @DisplayName(
      "a failed mpirun with a node pod whose sshd does not answer (its node lost) waits 600 s, naming that node, probing no further")
  void unansweringNodeWaitsLonger() throws IOException {
    answering("no-such-host");
    executable("mpirun", "#!/bin/bash\nexit 5\n");
    ToolRun run = launchRecordingSleeps();
    assertEquals(5, run.exitCode(), run.output());
    assertEquals(List.of("600"), sleeps());
    assertEquals(1, probed().size(), "the first node that does not answer settles it: " + probed());
    assertTrue(
        run.output()
            .contains(
                "trainyard: mpirun exited with status 5; "
                    + host0
                    + ":2222 does not answer; waiting 600s"),
        run.output());
  }

  @Test
  @DisplayName(
      "when only a later node pod does not answer, the earlier ones are probed first and the wait is 600 s")
  void laterUnansweringNodeWaitsLonger() throws IOException {
    answering("node-0-0");
    executable("mpirun", "#!/bin/bash\nexit 1\n");
    ToolRun run = launchRecordingSleeps();
    assertEquals(List.of("600"), sleeps(), run.output());
    assertEquals(2, probed().size(), probed().toString());
    assertTrue(run.output().contains(host1 + ":2222 does not answer"), run.output());
  }

  @Test
  @DisplayName(
      "a launcher that runs ranks itself (deepspeed) probes only the node pods' sshd, never its own host")
  void launcherRunningRanksProbesOnlyNodePods() throws IOException {
    CompileResult r =
        TrainProject.create(
                dir.resolve("ds"),
                "runtime: deepspeed\nnodes: 3\nresources: {gpus: 1}\nrun: python train.py\n")
            .compile();
    List<String> hosts = CaseCompile.hostfileLines(r).stream().map(l -> l.split(" ")[0]).toList();
    String probed =
        CaseCompile.mpiFile(r, "launch.sh")
            .lines()
            .filter(l -> l.strip().startsWith("for host in ") && !l.contains("$("))
            .findFirst()
            .orElseThrow()
            .strip();
    assertEquals(3, hosts.size(), hosts.toString());
    assertTrue(hosts.get(0).contains("-launcher-"), hosts.toString());
    assertEquals("for host in " + hosts.get(1) + " " + hosts.get(2) + "; do", probed);
  }

  @Test
  @DisplayName(
      "a one-node deepspeed run (the launcher is the only rank host) probes nothing and waits the short grace")
  void launcherAloneProbesNothing() throws IOException {
    CompileResult r =
        TrainProject.create(
                dir.resolve("ds1"),
                "runtime: deepspeed\nnodes: 1\nresources: {gpus: 1}\nrun: python train.py\n")
            .compile();
    String launch = CaseCompile.mpiFile(r, "launch.sh");
    assertFalse(launch.contains("/dev/tcp/"), launch);
    assertTrue(
        launch.contains("  grace=45\n  why=\"no node pods\"\n  sleep \"$grace\" &\n"), launch);
  }

  @Test
  @DisplayName(
      "the compiled sshd probe, run by the real timeout and bash, passes for a listening port and fails for a closed one")
  void probeWithRealSockets() throws IOException {
    ToolRun.require("timeout", "coreutils");
    String line =
        Files.readAllLines(script).stream()
            .filter(l -> l.contains("/dev/tcp/"))
            .findFirst()
            .orElseThrow();
    String probe = line.substring(line.indexOf("timeout "), line.indexOf(" 2>/dev/null"));
    try (java.net.ServerSocket listening =
            new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
        java.net.ServerSocket closed =
            new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      int closedPort = closed.getLocalPort();
      closed.close();
      assertEquals(
          0, probe(probe, listening.getLocalPort()).exitCode(), "a listening sshd port answers");
      assertTrue(probe(probe, closedPort).exitCode() != 0, "a closed port does not answer");
    }
  }

  /**
   * The probe with host 127.0.0.1 and {@code port} for the compiled ones, under bash and the real
   * timeout.
   */
  private ToolRun probe(String probe, int port) {
    String command = probe.replace("\"$host\"", "127.0.0.1").replace("/2222\"", "/" + port + "\"");
    return ToolRun.run(List.of("bash", "-c", command), dir, Map.of("PATH", System.getenv("PATH")));
  }

  @Test
  @DisplayName("a successful mpirun ends the launcher at once with status 0")
  void successEndsAtOnce() throws IOException {
    executable("mpirun", "#!/bin/bash\necho \"$@\" > " + dir.resolve("mpirun-args") + "\n");
    ToolRun run = launchRecordingSleeps();
    assertEquals(0, run.exitCode(), run.output());
    assertEquals(List.of(), sleeps());
    assertEquals(List.of(), probed(), "a successful run probes nothing");
    assertFalse(run.output().contains("waiting 45s"), run.output());
    assertTrue(
        Files.readString(dir.resolve("mpirun-args")).endsWith("/bin/bash -eo pipefail -c true\n"));
  }

  @Test
  @DisplayName(
      "SIGTERM during the wait (the pod deleted by the restart) ends the launcher within seconds, not 45")
  void sigtermEndsTheWait() throws Exception {
    assertSigtermEndsWait("waiting 45s");
  }

  @Test
  @DisplayName("SIGTERM during the 600 s wait for a lost node ends the launcher within seconds")
  void sigtermEndsTheLongWait() throws Exception {
    answering("no-such-host");
    assertSigtermEndsWait("waiting 600s");
  }

  /**
   * mpirun exits 1; once launch.sh prints {@code waitLine}, SIGTERM ends it within 10 s with
   * mpirun's status.
   */
  private void assertSigtermEndsWait(String waitLine) throws Exception {
    executable("mpirun", "#!/bin/bash\nexit 1\n");
    Process p = start();
    awaitLine(p, waitLine);
    long t0 = System.nanoTime();
    p.destroy();
    assertTrue(p.waitFor(10, TimeUnit.SECONDS), "launch.sh still waits after SIGTERM");
    assertTrue(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0) < 10);
    assertEquals(1, p.exitValue());
  }

  @Test
  @DisplayName(
      "SIGTERM while mpirun runs is passed on to mpirun, and its non-zero exit then skips the wait")
  void sigtermIsForwardedToMpirunAndSkipsTheWait() throws Exception {
    Path termed = dir.resolve("termed");
    executable(
        "mpirun",
        "#!/bin/bash\ntrap 'echo TERM > "
            + termed
            + "; exit 143' TERM\necho started\n"
            + "for i in $(seq 1 300); do sleep 0.1; done\nexit 0\n");
    Process p = start();
    awaitLine(p, "started");
    p.destroy();
    assertTrue(p.waitFor(10, TimeUnit.SECONDS), "launch.sh did not end after SIGTERM");
    assertEquals(143, p.exitValue());
    assertEquals("TERM", Files.readString(termed).strip());
  }

  private Process start() throws IOException {
    ProcessBuilder pb =
        new ProcessBuilder("bash", script.toString())
            .directory(dir.toFile())
            .redirectErrorStream(true);
    pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
    pb.environment().put("TRAINYARD_RUN", "true");
    return pb.start();
  }

  /**
   * Reads the merged output until a line contains {@code text}; fails after 20 s or at end of
   * output.
   */
  private static void awaitLine(Process p, String text) throws Exception {
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
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
