package dev.trainyard.compiler.cases;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What the tests of the compiled peer probe (render {@code ExitGrace}: launch.sh's node pods, the
 * multi-node wrapper's peers) share: a {@code timeout} stand-in that answers, refuses or times out
 * per host, the hosts it was asked about, and the probe as compiled run by the real {@code timeout}
 * and bash against real sockets.
 */
final class PeerProbeStandIn {
  private PeerProbeStandIn() {}

  /**
   * A {@code timeout} stand-in that appends its arguments to {@code probed}; the probe of a host
   * containing one of {@code answering} succeeds, of one containing one of {@code refusing} prints
   * bash's error for a closed port and fails, and of any other host fails with 124 and no output,
   * as {@code timeout} does when the time ran out.
   */
  static String timeout(Path probed, List<String> answering, List<String> refusing) {
    return timeout(probed, answering, refusing, List.of());
  }

  /**
   * As {@link #timeout(Path, List, List)}, and the watch's probes (within 2 s, render {@code
   * ExitGrace.watch}) answer for the hosts containing one of {@code seen} and refuse for the
   * others: the peers up while the command ran.
   */
  static String timeout(
      Path probed, List<String> answering, List<String> refusing, List<String> seen) {
    StringBuilder watch = new StringBuilder("if [ \"$1\" = 2 ]; then\n  case \"$*\" in\n");
    seen.forEach(h -> watch.append("    *").append(h).append("*) exit 0 ;;\n"));
    watch.append("  esac\n  exit 1\nfi\n");
    StringBuilder cases = new StringBuilder();
    answering.forEach(h -> cases.append("  *").append(h).append("*) exit 0 ;;\n"));
    refusing.forEach(
        h ->
            cases
                .append("  *")
                .append(h)
                .append("*) echo \"bash: connect: Connection refused\" >&2; exit 1 ;;\n"));
    return "#!/bin/bash\n"
        + watch
        + "echo \"$*\" >> "
        + probed
        + "\ncase \"$*\" in\n"
        + cases
        + "esac\nexit 124\n";
  }

  /**
   * The arguments the stand-in was called with for the probes after a failure, one call a line;
   * none when it never ran.
   */
  static List<String> probed(Path probed) throws IOException {
    return Files.exists(probed) ? Files.readAllLines(probed) : List.of();
  }

  /**
   * Runs the probe of {@code script} (the command inside {@code probe=$(...)}) with the real {@code
   * timeout} and bash against 127.0.0.1: a listening port answers; a closed one fails with the text
   * the script reads as "refuses".
   */
  static void assertProbeWithRealSockets(String script, int compiledPort, Path dir)
      throws IOException {
    ToolRun.require("timeout", "coreutils");
    String line = script.lines().filter(l -> l.contains("probe=$(")).findFirst().orElseThrow();
    String probe = line.substring(line.indexOf("$(") + 2, line.indexOf(" 2>&1)"));
    try (ServerSocket listening = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int closedPort = closed.getLocalPort();
      closed.close();
      assertEquals(
          0,
          run(probe, compiledPort, listening.getLocalPort(), dir).exitCode(),
          "a listening port answers: " + probe);
      ToolRun refused = run(probe, compiledPort, closedPort, dir);
      assertTrue(refused.exitCode() != 0 && refused.output().contains("refused"), refused.output());
    }
  }

  private static ToolRun run(String probe, int compiledPort, int port, Path dir) {
    String command =
        probe
            .replace("\"$host\"", "127.0.0.1")
            .replace("/" + compiledPort + "\"", "/" + port + "\"");
    return ToolRun.run(List.of("bash", "-c", command), dir, Map.of("PATH", System.getenv("PATH")));
  }
}
