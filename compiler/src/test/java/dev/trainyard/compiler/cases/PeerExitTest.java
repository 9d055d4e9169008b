package dev.trainyard.compiler.cases;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.testing.TrainProject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node pods of a multi-node torch, JAX or plain run (issue #19): one rank's failure must end
 * the run in seconds, while a survivor that lost a disrupted peer must not fail the Job before that
 * peer's {@code DisruptionTarget} does. The compiled container command, run here by real bash with
 * stand-ins for {@code python3} (the listener on the alive port) and {@code timeout} (the probe of
 * each peer: answers, refuses, or times out), exits at once with the command's status when every
 * peer answers, waits 45 s when a peer refuses and 600 s when one does not answer; SIGTERM closes
 * the listener before the command gets it.
 */
class PeerExitTest {
  @TempDir Path dir;
  private Path bin;
  private String script;
  private String run;

  @BeforeEach
  void compile() throws IOException {
    ToolRun.require("bash", "bash");
    JsonNode jobSet =
        TrainProject.object(
            TrainProject.create(dir.resolve("repo"), "nodes: 3\nrun: torchrun train.py\n")
                .compile(),
            "JobSet");
    run = jobSet.at("/metadata/name").asText();
    script = command(jobSet);
    bin = Files.createDirectories(dir.resolve("bin"));
    ToolRun.executable(
        bin,
        "python3",
        "#!/bin/bash\ntrap 'echo closed >> "
            + dir.resolve("events")
            + "; exit 0' TERM\n"
            + "echo started >> "
            + dir.resolve("listener")
            + "\nwhile :; do command sleep 0.05; done\n");
    probes(List.of("-node-0-0.", "-node-0-1.", "-node-0-2."), List.of());
  }

  private static String command(JsonNode jobSet) {
    JsonNode c =
        jobSet.at("/spec/replicatedJobs/0/template/spec/template/spec/containers/0/command");
    assertEquals("/bin/bash", c.get(0).asText());
    return c.get(2).asText();
  }

  /**
   * Every peer was seen while the command ran; after its failure the peers answer or refuse as
   * given, the others are silent.
   */
  private void probes(List<String> answering, List<String> refusing) {
    probes(answering, refusing, List.of("-node-0-0.", "-node-0-1.", "-node-0-2."));
  }

  private void probes(List<String> answering, List<String> refusing, List<String> seen) {
    ToolRun.executable(
        bin, "timeout", PeerProbeStandIn.timeout(dir.resolve("probed"), answering, refusing, seen));
  }

  /** A command that fails with {@code status} once the watch has had its first round (1 s). */
  private static String failsAfterASecond(int status) {
    return "command sleep 1; exit " + status;
  }

  /**
   * Runs the wrapper with {@code TRAINYARD_RUN=command}, {@code sleep} recording its argument and
   * returning at once.
   */
  private ToolRun runRecordingSleeps(String command) {
    Map<String, String> env =
        new HashMap<>(
            Map.of(
                "PATH",
                bin + ":" + System.getenv("PATH"),
                "TRAINYARD_RUN",
                command,
                "NNODES",
                "3",
                "BASH_FUNC_sleep%%",
                "() { echo \"$1\" >> " + dir.resolve("slept") + "; }"));
    return ToolRun.run(List.of("bash", "-c", script), dir, env);
  }

  private List<String> lines(String file) throws IOException {
    Path p = dir.resolve(file);
    return Files.exists(p) ? Files.readAllLines(p) : List.of();
  }

  @Test
  @DisplayName(
      "a rank's own failure (every peer answers) ends the pod at once with the command's status: the Job's FailJob then fails the run")
  void ownFailureExitsAtOnce() throws IOException {
    ToolRun r = runRecordingSleeps("echo training; " + failsAfterASecond(3));
    assertEquals(3, r.exitCode(), r.output());
    assertEquals(List.of(), lines("slept"), "no wait");
    assertTrue(
        r.output()
            .contains(
                "trainyard: the command exited with status 3; every peer pod seen so far answers on port 29499, so the"
                    + " failure is this pod's own: the run fails now"),
        r.output());
    String probe = "5 bash -c exec 3<>\"/dev/tcp/$0/29499\" " + run + "-node-0-";
    assertEquals(
        List.of(probe + "0." + run, probe + "1." + run, probe + "2." + run),
        lines("probed"),
        "every node ($NNODES), within 5 s");
    assertEquals(List.of("started"), lines("listener"), "the listener runs while the command does");
  }

  @Test
  @DisplayName(
      "a survivor whose peer refuses (an evicted pod, its port closed before its processes died) waits 45 s, naming the peer")
  void refusingPeerWaits45() throws IOException {
    probes(List.of("-node-0-0.", "-node-0-2."), List.of("-node-0-1."));
    ToolRun r = runRecordingSleeps(failsAfterASecond(1));
    assertEquals(1, r.exitCode(), r.output());
    assertEquals(List.of("45"), lines("slept"));
    assertTrue(
        r.output()
            .contains(
                "trainyard: the command exited with status 1; "
                    + run
                    + "-node-0-1."
                    + run
                    + ":29499 refuses or has no"
                    + " address (its pod is gone or ending); waiting 45s so that a disrupted pod restarts the run before this exit fails it"),
        r.output());
  }

  @Test
  @DisplayName(
      "a survivor whose peer does not answer (a lost node) waits 600 s and probes no further")
  void silentPeerWaits600() throws IOException {
    probes(List.of("-node-0-0."), List.of());
    ToolRun r = runRecordingSleeps(failsAfterASecond(1));
    assertEquals(List.of("600"), lines("slept"), r.output());
    assertEquals(2, lines("probed").size(), lines("probed").toString());
    assertTrue(
        r.output()
            .contains(
                run
                    + "-node-0-1."
                    + run
                    + ":29499 does not answer (its node may be lost); waiting 600s"),
        r.output());
  }

  @Test
  @DisplayName(
      "a rank that crashes at start, before its peers were seen up (their ports closed or not there yet), ends at once: a peer never seen was in no group this rank lost")
  void crashAtStartEndsAtOnce() throws IOException {
    probes(List.of(), List.of("-node-0-0.", "-node-0-1.", "-node-0-2."), List.of());
    ToolRun r = runRecordingSleeps("exit 1");
    assertEquals(1, r.exitCode(), r.output());
    assertEquals(List.of(), lines("slept"), "no wait");
    assertEquals(List.of(), lines("probed"), "no peer to judge");
    assertTrue(r.output().contains("the run fails now"), r.output());
  }

  @Test
  @DisplayName("a successful command ends the pod with 0, probing nothing; setup runs before it")
  void successProbesNothing() throws IOException {
    Map<String, String> env =
        new HashMap<>(
            Map.of(
                "PATH",
                bin + ":" + System.getenv("PATH"),
                "TRAINYARD_RUN",
                "echo run",
                "TRAINYARD_SETUP",
                "echo setup",
                "NNODES",
                "3"));
    ToolRun r = ToolRun.run(List.of("bash", "-c", script), dir, env);
    assertEquals(0, r.exitCode(), r.output());
    assertTrue(
        r.output().indexOf("setup") < r.output().indexOf("run") && r.output().contains("run"),
        r.output());
    assertEquals(List.of(), lines("probed"));
    assertFalse(r.output().contains("trainyard:"), r.output());
  }

  @Test
  @DisplayName(
      "SIGTERM (the kubelet stopping the pod) closes the listener before the command gets it, and skips the probe")
  void sigtermClosesTheListenerFirst() throws Exception {
    Process p =
        start(
            "trap 'echo command >> "
                + dir.resolve("events")
                + "; exit 143' TERM; echo started; while :; do sleep 0.05; done");
    awaitLine(p, "started");
    awaitListener();
    p.destroy();
    assertTrue(p.waitFor(10, TimeUnit.SECONDS), "the wrapper did not end after SIGTERM");
    assertEquals(143, p.exitValue());
    assertEquals(List.of("closed", "command"), lines("events"), "listener first, then the command");
    assertEquals(List.of(), lines("probed"), "a terminated pod probes nobody");
  }

  @Test
  @DisplayName(
      "a command that SIGTERM stops and that exits 1 (torchrun re-raises the signal) ends the pod with 143, which no FailJob rule matches")
  void sigtermStoppedCommandExits143() throws Exception {
    Process p = start("trap 'exit 1' TERM; echo started; while :; do sleep 0.05; done");
    awaitLine(p, "started");
    awaitListener();
    p.destroy();
    assertTrue(p.waitFor(10, TimeUnit.SECONDS), "the wrapper did not end after SIGTERM");
    assertEquals(143, p.exitValue());
    assertEquals(List.of(), lines("probed"), "a terminated pod probes nobody");
  }

  @Test
  @DisplayName(
      "a command that saves and exits 0 on SIGTERM ends the pod with 0: only a failure becomes 143")
  void sigtermStoppedCommandThatSucceedsKeepsZero() throws Exception {
    Process p = start("trap 'exit 0' TERM; echo started; while :; do sleep 0.05; done");
    awaitLine(p, "started");
    awaitListener();
    p.destroy();
    assertTrue(p.waitFor(10, TimeUnit.SECONDS), "the wrapper did not end after SIGTERM");
    assertEquals(0, p.exitValue());
  }

  @Test
  @DisplayName(
      "SIGTERM during the wait (the run restarting, or failing on the peer's exit) ends it within seconds")
  void sigtermEndsTheWait() throws Exception {
    probes(List.of("-node-0-1.", "-node-0-2."), List.of("-node-0-0."));
    Process p = start(failsAfterASecond(2));
    awaitLine(p, "waiting 45s");
    p.destroy();
    assertTrue(p.waitFor(10, TimeUnit.SECONDS), "the wrapper still waits after SIGTERM");
    assertEquals(2, p.exitValue());
  }

  @Test
  @DisplayName(
      "one node has no peers: no listener and no probe; the command runs as a child (OneNodeSignalTest)")
  void oneNodeHasNoPeerParts() throws IOException {
    JsonNode one =
        TrainProject.object(
            TrainProject.create(dir.resolve("one"), "nodes: 1\nrun: torchrun train.py\n").compile(),
            "JobSet");
    String single = command(one);
    assertFalse(single.contains("29499") || single.contains("python"), single);
    assertFalse(single.contains("exec "), single);
    assertTrue(single.contains("bash -eo pipefail -c \"$TRAINYARD_RUN\" &\n"), single);
  }

  @Test
  @DisplayName(
      "the compiled peer probe, run by the real timeout and bash, answers for a listening port and says `refused` for a closed one")
  void probeWithRealSockets() throws IOException {
    PeerProbeStandIn.assertProbeWithRealSockets(script, 29499, dir);
  }

  /** Waits until the listener stand-in has started (and set its trap): at most 10 s. */
  private void awaitListener() throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (lines("listener").isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    Thread.sleep(200);
  }

  private Process start(String command) throws IOException {
    ProcessBuilder pb =
        new ProcessBuilder("bash", "-c", script).directory(dir.toFile()).redirectErrorStream(true);
    pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
    pb.environment().put("TRAINYARD_RUN", command);
    pb.environment().put("NNODES", "3");
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
