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
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node pod of a one-node torch, JAX or plain run, stopped as the kubelet stops it: the compiled
 * container command runs as the first process of its own PID namespace ({@code unshare --pid
 * --fork}, as in a container), and SIGTERM comes from outside it, as the container runtime sends
 * it. The kernel gives PID 1 only the signals it has a handler for (pid_namespaces(7)): a program
 * exec'd as PID 1 without a SIGTERM handler of its own (Python's default) ignored the signal, could
 * not save, and was killed after the grace period with 137, which the node container's {@code
 * FailJob} rule takes for the user's failure. Real bash and a real Python program here; no
 * stand-ins.
 */
class OneNodeSignalTest {
  @TempDir Path dir;
  private String script;

  @BeforeEach
  void compile() throws IOException {
    ToolRun.require("bash", "bash");
    ToolRun.require("unshare", "util-linux");
    ToolRun.require("python3", "python3");
    Assumptions.assumeTrue(
        ToolRun.asRoot(), "NOT RUN: a new PID namespace (unshare --pid) needs root");
    JsonNode jobSet =
        TrainProject.object(
            TrainProject.create(dir.resolve("repo"), "nodes: 1\nrun: python3 train.py\n").compile(),
            "JobSet");
    JsonNode c =
        jobSet.at("/spec/replicatedJobs/0/template/spec/template/spec/containers/0/command");
    assertEquals("/bin/bash", c.get(0).asText());
    assertEquals("-c", c.get(1).asText());
    script = c.get(2).asText();
  }

  @Test
  @DisplayName(
      "SIGTERM to the pod's first process reaches a Python program without a handler: the pod ends with 143 at once, not 137 after the grace period")
  void sigtermReachesAProgramWithoutAHandler() throws Exception {
    Pod pod =
        start("", "python3 -c 'import time; print(\"started\", flush=True); time.sleep(120)'");
    pod.awaitLine("started");
    pod.terminate();
    assertEquals(143, pod.exitWithin(10), pod.output());
  }

  @Test
  @DisplayName(
      "a program that saves on SIGTERM and exits 0 (HF's enable_jit_checkpoint) gets the signal and the pod ends with 0")
  void programThatSavesOnSigtermKeepsZero() throws Exception {
    Pod pod =
        start(
            "",
            "python3 -c 'import signal, sys, time\n"
                + "def save(*_):\n"
                + "    print(\"saved\", flush=True); sys.exit(0)\n"
                + "signal.signal(signal.SIGTERM, save)\n"
                + "print(\"started\", flush=True)\n"
                + "time.sleep(120)'");
    pod.awaitLine("started");
    pod.terminate();
    assertEquals(0, pod.exitWithin(10), pod.output());
    assertTrue(pod.output().contains("saved"), pod.output());
  }

  @Test
  @DisplayName(
      "a program that SIGTERM stops and that exits 1 (torchrun re-raises the signal) ends the pod with 143, which no FailJob rule matches")
  void stoppedProgramThatExitsOneGives143() throws Exception {
    Pod pod = start("", "trap 'exit 1' TERM; echo started; while :; do sleep 0.05; done");
    pod.awaitLine("started");
    pod.terminate();
    assertEquals(143, pod.exitWithin(10), pod.output());
  }

  @Test
  @DisplayName("without a signal the command's own exit code is the pod's: 0, 3")
  void ownExitCodeKept() throws Exception {
    assertEquals(0, start("", "echo done").exitWithin(20));
    Pod failed = start("", "echo failing; exit 3");
    assertEquals(3, failed.exitWithin(20));
    assertTrue(failed.output().contains("failing"), failed.output());
  }

  @Test
  @DisplayName(
      "SIGTERM during setup: setup ends, run never starts, the pod ends with 143; a failed setup keeps its code")
  void sigtermDuringSetup() throws Exception {
    Pod pod =
        start(
            "echo setting-up; for i in $(seq 20); do sleep 0.05; done; echo setup-done",
            "echo run-started");
    pod.awaitLine("setting-up");
    pod.terminate();
    assertEquals(143, pod.exitWithin(10), pod.output());
    assertFalse(pod.output().contains("run-started"), pod.output());

    Pod failed = start("exit 4", "echo run-started");
    assertEquals(4, failed.exitWithin(20));
    assertTrue(
        failed.output().contains("trainyard: setup failed with exit 4; run does not start"),
        failed.output());
    assertFalse(failed.output().contains("run-started"), failed.output());
  }

  private Pod start(String setup, String run) throws IOException {
    ProcessBuilder pb =
        new ProcessBuilder("unshare", "--pid", "--fork", "--kill-child", "bash", "-c", script)
            .directory(dir.toFile())
            .redirectErrorStream(true);
    pb.environment().put("TRAINYARD_RUN", run);
    if (!setup.isEmpty()) {
      pb.environment().put("TRAINYARD_SETUP", setup);
    }
    return new Pod(pb.start());
  }

  /** A started pod: {@code unshare}, whose one child is the script as PID 1 of its namespace. */
  private static final class Pod {
    private final Process process;
    private final StringBuilder output = new StringBuilder();
    private final BufferedReader reader;

    Pod(Process process) {
      this.process = process;
      this.reader =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    /** Reads lines until one contains {@code text}; fails after 20 s or at end of output. */
    void awaitLine(String text) throws Exception {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (System.nanoTime() < deadline) {
        String line = reader.readLine();
        if (line == null) {
          break;
        }
        output.append(line).append('\n');
        if (line.contains(text)) {
          return;
        }
      }
      process.destroyForcibly();
      throw new AssertionError("no line with \"" + text + "\" in:\n" + output);
    }

    /**
     * Sends SIGTERM to the namespace's PID 1 from outside the namespace, as the container runtime
     * does (found as unshare's one child within 5 s).
     */
    void terminate() throws Exception {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      List<ProcessHandle> children = List.of();
      while (children.isEmpty() && System.nanoTime() < deadline) {
        children = process.toHandle().children().toList();
        if (children.isEmpty()) {
          Thread.sleep(20);
        }
      }
      assertEquals(1, children.size(), "unshare's children: " + children);
      Process kill =
          new ProcessBuilder("kill", "-TERM", Long.toString(children.get(0).pid())).start();
      assertTrue(kill.waitFor(5, TimeUnit.SECONDS));
      assertEquals(0, kill.exitValue(), "kill -TERM failed");
    }

    /** The pod's exit code once it ended within {@code seconds}; kills it and fails otherwise. */
    int exitWithin(long seconds) throws Exception {
      if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(5, TimeUnit.SECONDS);
        throw new AssertionError(
            "the pod did not end within " + seconds + " s of SIGTERM:\n" + output());
      }
      return process.exitValue();
    }

    /** Everything the pod printed (stdout and stderr); reads the rest once it has ended. */
    String output() {
      if (!process.isAlive()) {
        try {
          for (String line; (line = reader.readLine()) != null; ) {
            output.append(line).append('\n');
          }
        } catch (IOException e) {
          output.append("(output unreadable: ").append(e.getMessage()).append(")\n");
        }
      }
      return output.toString();
    }
  }
}
