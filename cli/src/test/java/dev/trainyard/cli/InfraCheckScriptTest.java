package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * examples/infra-check/check.sh under real bash, on 127.0.0.1: a listening socket stands in for
 * each peer's sshd, a temp hostfile and sshd_config for the ConfigMap Trainyard mounts. The verdict
 * line and exit code of each case; the run on real namespace hosts with mpirun is {@code
 * InfraCheckIT} (cluster-it).
 */
class InfraCheckScriptTest {
  private static final Path SCRIPT = BenchScriptsTest.ROOT.resolve("examples/infra-check/check.sh");
  @TempDir Path temp;
  private ServerSocket peer;
  private Path hostfile;

  @BeforeEach
  void peer() throws IOException {
    peer = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    hostfile = temp.resolve("hostfile");
    // Our own line (skipped by name), a comment, two peers, the last one without a line break.
    Files.writeString(hostfile, "me.run slots=2\n# the nodes\n127.0.0.1 slots=2\n127.0.0.1:2");
    Files.writeString(
        temp.resolve("sshd_config"), "HostKey /etc/mpi/key\nPort " + peer.getLocalPort() + "\n");
  }

  @AfterEach
  void close() throws IOException {
    peer.close();
  }

  private record Result(int exit, String out) {}

  private Result check(Map<String, String> env) throws Exception {
    ProcessBuilder pb = new ProcessBuilder("bash", SCRIPT.toString()).redirectErrorStream(true);
    pb.environment().put("HOSTNAME", "me");
    pb.environment().put("HOSTFILE", hostfile.toString());
    pb.environment().remove("OMPI_COMM_WORLD_LOCAL_RANK");
    pb.environment().put("CHECK_SETTLE_SECONDS", "0");
    pb.environment().putAll(env);
    Process p = pb.start();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "check.sh did not finish");
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return new Result(
        p.exitValue(),
        out.lines().filter(l -> l.startsWith("infra-check: ")).reduce((a, b) -> b).orElse(out));
  }

  @Test
  @DisplayName(
      "a passing command and two reachable peers: PASS with the command's last line; comments and our own line are no peers")
  void passes() throws Exception {
    Result r = check(Map.of("CHECK_COMMAND", "echo first; echo last"));
    assertEquals(
        new Result(
            0,
            "infra-check: me PASS (command exit 0, reaches 2/2 peers on port "
                + peer.getLocalPort()
                + ") last"),
        r);
  }

  @Test
  @DisplayName(
      "a peer port nothing listens on fails the node though its command passed; a failing command fails it with its exit code")
  void failures() throws Exception {
    int closed = peer.getLocalPort();
    peer.close();
    assertEquals(
        new Result(
            1, "infra-check: me FAIL (command exit 0, reaches 0/2 peers on port " + closed + ") "),
        check(Map.of()));
    assertEquals(
        new Result(1, "infra-check: me FAIL (command exit 3, reaches 0/2 peers on port 7) x"),
        check(Map.of("CHECK_COMMAND", "echo x; exit 3", "CHECK_PEER_PORT", "7")));
  }

  @Test
  @DisplayName(
      "a command over its limit reads timed out (124); one that ignores SIGTERM is killed 5 s later (137); a background process does not hold the check")
  void timeouts() throws Exception {
    String port = " on port " + peer.getLocalPort() + ") ";
    assertEquals(
        new Result(
            1,
            "infra-check: me FAIL (command exit 124, reaches 2/2 peers"
                + port
                + "timed out after 1s"),
        check(Map.of("CHECK_COMMAND", "sleep 30", "CHECK_TIMEOUT_SECONDS", "1")));
    assertEquals(
        new Result(
            1,
            "infra-check: me FAIL (command exit 137, reaches 2/2 peers"
                + port
                + "timed out after 1s"),
        check(Map.of("CHECK_COMMAND", "trap '' TERM; sleep 30", "CHECK_TIMEOUT_SECONDS", "1")));
    long start = System.nanoTime();
    Result background =
        check(Map.of("CHECK_COMMAND", "sleep 30 & echo started", "CHECK_TIMEOUT_SECONDS", "20"));
    assertEquals(
        new Result(0, "infra-check: me PASS (command exit 0, reaches 2/2 peers" + port + "started"),
        background);
    assertTrue(
        System.nanoTime() - start < TimeUnit.SECONDS.toNanos(15),
        "the check waited for the command's background sleep");
  }

  @Test
  @DisplayName(
      "a failing node waits CHECK_SETTLE_SECONDS before it exits, so mpirun does not cut off the other nodes' lines at once")
  void failingNodeSettles() throws Exception {
    long start = System.nanoTime();
    assertEquals(1, check(Map.of("CHECK_COMMAND", "false", "CHECK_SETTLE_SECONDS", "2")).exit());
    assertTrue(
        System.nanoTime() - start >= TimeUnit.SECONDS.toNanos(2), "exited before its settle time");
  }

  @Test
  @DisplayName(
      "no hostfile, no sshd port, or a time limit that is not a number above 0: FAIL with the reason and exit 1; a node's second rank exits 0 silently")
  void setupProblems() throws Exception {
    assertEquals(
        new Result(1, "infra-check: me FAIL (no readable hostfile at '' (HOSTFILE))"),
        check(Map.of("HOSTFILE", "")));
    assertEquals(
        new Result(
            1,
            "infra-check: me FAIL (CHECK_TIMEOUT_SECONDS must be a whole number of seconds above 0, got '0')"),
        check(Map.of("CHECK_TIMEOUT_SECONDS", "0")));
    Files.writeString(temp.resolve("sshd_config"), "port 22\n");
    assertEquals(1, check(Map.of()).exit());
    assertTrue(
        check(Map.of())
            .out()
            .startsWith("infra-check: me FAIL (no sshd port: no 'Port N' line in " + temp),
        check(Map.of()).out());
    assertEquals(new Result(0, ""), check(Map.of("OMPI_COMM_WORLD_LOCAL_RANK", "1")));
  }
}
