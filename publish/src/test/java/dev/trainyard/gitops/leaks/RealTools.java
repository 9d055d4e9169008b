package dev.trainyard.gitops.leaks;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * kubeseal, sops and age-keygen as {@code scripts/secrets-tools} builds them, and openssl from
 * PATH. A missing tool makes the test NOT RUN (a JUnit assumption naming the command that builds
 * it), never passed.
 */
final class RealTools {
  private RealTools() {}

  static Path built(String name) {
    Path bin = toolsDir().resolve("bin").resolve(name);
    assumeTrue(
        Files.isExecutable(bin),
        "NOT RUN: "
            + name
            + " not found at "
            + bin
            + "; run scripts/secrets-tools (builds kubeseal, sops, age)");
    return bin;
  }

  static Path system(String name) {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
      if (Files.isExecutable(Path.of(dir, name))) {
        return Path.of(dir, name);
      }
    }
    assumeTrue(false, "NOT RUN: " + name + " not on PATH");
    return null;
  }

  /**
   * Runs {@code command} in {@code dir} with {@code stdin}; returns stdout; a non-zero exit throws
   * with stderr.
   */
  static String run(Path dir, String stdin, String... command)
      throws IOException, InterruptedException {
    Path in = Files.writeString(dir.resolve(".in"), stdin);
    Path out = dir.resolve(".out");
    Path err = dir.resolve(".err");
    Process p =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectInput(in.toFile())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException(String.join(" ", command) + " did not finish in 120 s");
    }
    if (p.exitValue() != 0) {
      throw new IOException(
          String.join(" ", command)
              + " exited "
              + p.exitValue()
              + ": "
              + Files.readString(err, StandardCharsets.UTF_8));
    }
    return Files.readString(out, StandardCharsets.UTF_8);
  }

  private static Path toolsDir() {
    String configured = System.getProperty("trainyard.tools.dir", "");
    if (!configured.isBlank()) {
      return Path.of(configured);
    }
    Path root =
        Path.of(System.getProperty("trainyard.repo.root", "..")).toAbsolutePath().normalize();
    Path script = root.resolve("scripts/secrets-tools");
    assumeTrue(Files.isExecutable(script), "NOT RUN: " + script + " not found");
    try {
      List<String> command = new ArrayList<>(List.of(script.toString(), "--print-dir"));
      return Path.of(
          run(Files.createTempDirectory("tools"), "", command.toArray(String[]::new)).strip());
    } catch (IOException | InterruptedException e) {
      assumeTrue(false, "NOT RUN: " + script + " --print-dir failed: " + e.getMessage());
      return null;
    }
  }
}
