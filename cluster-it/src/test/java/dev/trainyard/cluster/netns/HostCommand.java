package dev.trainyard.cluster.netns;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One short command of the host (ip, mount, git, chown), run as this JVM's user (root) with a
 * bounded wait and stdout+stderr merged.
 *
 * @param exit the exit code; -1 when it did not finish in time (it is then killed)
 * @param output stdout and stderr, UTF-8
 */
record HostCommand(int exit, String output) {
  /** Upper bound of one host command: a netns operation or a local clone takes milliseconds. */
  static final long TIMEOUT_SECONDS = 60;

  static HostCommand run(List<String> argv) {
    ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true);
    try {
      Process p = pb.start();
      p.getOutputStream().close();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return new HostCommand(-1, new String(out, StandardCharsets.UTF_8));
      }
      return new HostCommand(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    } catch (IOException e) {
      return new HostCommand(127, argv.get(0) + ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running " + argv, e);
    }
  }

  static HostCommand run(String... argv) {
    return run(List.of(argv));
  }

  /** Runs and fails with the command and its output unless it exits 0. */
  static String check(String... argv) {
    HostCommand result = run(argv);
    if (result.exit() != 0) {
      throw new IllegalStateException(
          String.join(" ", argv) + " exited " + result.exit() + ": " + result.output());
    }
    return result.output();
  }

  /** Whether {@code tool} is an executable on this JVM's PATH (or an absolute executable path). */
  static boolean onPath(String tool) {
    return run("sh", "-c", "command -v \"$0\" >/dev/null", tool).exit() == 0;
  }
}
