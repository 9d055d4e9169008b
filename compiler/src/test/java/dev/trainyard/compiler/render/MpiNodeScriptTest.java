package dev.trainyard.compiler.render;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The end of an MPI node pod's script with {@code checkpoint:} ({@link
 * CheckpointParts#sshdUntilRanksEnd}) run by real bash, with stand-ins for sshd, its session, Open
 * MPI's daemon and a rank, each a copy of bash under the real program's name (the name the script
 * reads from {@code /proc/<pid>/stat}). MpiCheckpointHostsIT runs it with the real sshd and mpirun.
 */
class MpiNodeScriptTest {
  @TempDir Path dir;

  /** A program named {@code name} (a copy of bash, so the process's name is {@code name}). */
  private Path named(String name) throws IOException {
    Path copy = dir.resolve("bin").resolve(name);
    Files.createDirectories(copy.getParent());
    Files.copy(Path.of("/bin/bash"), copy);
    assertTrue(copy.toFile().setExecutable(true));
    return copy;
  }

  @Test
  @DisplayName(
      "node script on SIGTERM: passes it to the rank under sshd's session daemon, waits while the session runs (the rank's 1 s save), then stops sshd and exits 143")
  void nodeScriptKeepsRanksThroughSigterm() throws Exception {
    Path sshd = named("sshd");
    Path orted = named("orted");
    Path rank = named("rank");
    Path w = dir.resolve("w");
    Files.createDirectories(w);
    Files.writeString(
        w.resolve("rank.sh"),
        "trap 'echo term >> "
            + w
            + "/rank.log; sleep 1; echo saved >> "
            + w
            + "/rank.log; exit 143' TERM\n"
            + "echo started >> "
            + w
            + "/rank.log\n"
            + "while :; do sleep 0.1; done\n");
    Files.writeString(w.resolve("daemon.sh"), rank + " " + w + "/rank.sh &\nwait\n");
    Files.writeString(w.resolve("session.sh"), "exec " + orted + " " + w + "/daemon.sh\n");
    // The listener idles on a builtin (read -t from a FIFO nobody writes), not on `sleep`: a real
    // sshd's only children are its sessions, and the script waits while sshd has any child.
    Path fifo = w.resolve("idle");
    assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
    Files.writeString(
        w.resolve("listener.sh"),
        "trap 'echo listener-term >> "
            + w
            + "/rank.log; exit 0' TERM\n"
            + sshd
            + " "
            + w
            + "/session.sh &\nexec 9<> "
            + fifo
            + "\nwhile :; do read -r -t 0.1 -u 9 || true; done\n");
    String script =
        "set -eo pipefail\n"
            + CheckpointParts.sshdUntilRanksEnd(
                sshd + " " + w + "/listener.sh", MpiCheckpointTest.checkpoint(20));
    Path output = w.resolve("script.out");
    // Process.destroy closes the pipes, so the script writes to a file.
    Process p =
        new ProcessBuilder("bash", "-c", script)
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    Path log = w.resolve("rank.log");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!(Files.exists(log) && Files.readString(log).contains("started"))) {
      assertTrue(System.nanoTime() < deadline, "the rank starts");
      Thread.sleep(50);
    }
    Thread.sleep(300);
    long terminated = System.nanoTime();
    p.destroy();
    assertTrue(p.waitFor(40, TimeUnit.SECONDS), "the script ends");
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - terminated);
    assertTrue(
        tookMillis < 15_000,
        "the script ends when the session does (the 1 s save), not at saveSeconds (20 s): took "
            + tookMillis
            + " ms");
    String out = Files.readString(output, StandardCharsets.UTF_8);
    assertEquals(143, p.exitValue(), out);
    assertTrue(
        Files.readString(log).startsWith("started\nterm\nsaved\n"),
        "the save first, then sshd: " + Files.readString(log) + out);
    // sshd is stopped once the session ended; the stand-in notices within its 0.1 s read.
    long stopped = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!Files.readString(log).endsWith("listener-term\n")) {
      assertTrue(System.nanoTime() < stopped, "sshd gets SIGTERM: " + Files.readString(log));
      Thread.sleep(50);
    }
    assertTrue(
        out.matches(
            "(?s)trainyard: SIGTERM: passed on to the ranks here \\(pids \\d+ ?\\); waiting up to 20s while they run \\(their save\\)\n"),
        out);
  }
}
