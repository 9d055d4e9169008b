package dev.trainyard.gitops.integration;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Checks a CI script with the real {@code bash -n} (parse only, nothing runs). Both GitHub's ubuntu
 * runners and the GitLab job image run {@code run:} / {@code script:} blocks with bash.
 */
final class BashSyntax {
  private BashSyntax() {}

  /** bash's complaint about the script, or the empty string when it parses. */
  static String errors(String script) throws IOException, InterruptedException {
    Path file = Files.createTempFile("ci-script", ".sh");
    try {
      Files.writeString(file, script, StandardCharsets.UTF_8);
      Process bash =
          new ProcessBuilder("bash", "-n", file.toString()).redirectErrorStream(true).start();
      if (!bash.waitFor(30, TimeUnit.SECONDS)) {
        bash.destroyForcibly();
        return "bash -n timed out";
      }
      String out = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      return bash.exitValue() == 0 ? "" : out.isEmpty() ? "bash -n exit " + bash.exitValue() : out;
    } finally {
      Files.delete(file);
    }
  }
}
