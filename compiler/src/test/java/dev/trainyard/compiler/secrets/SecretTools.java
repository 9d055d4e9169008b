package dev.trainyard.compiler.secrets;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Finds and runs the real kubeseal, sops, age and ssh-keygen for round-trip tests. The tools dir is
 * the system property {@code trainyard.tools.dir}, else what {@code scripts/secrets-tools
 * --print-dir} prints; a missing binary FAILS the test (never skips) with the command that builds
 * it.
 */
final class SecretTools {
  private SecretTools() {}

  /** A SHA1PRNG seeded only with {@code seed}: the same seed gives the same bytes. */
  static SecureRandom seeded(long seed) {
    try {
      SecureRandom random = SecureRandom.getInstance("SHA1PRNG");
      random.setSeed(ByteBuffer.allocate(8).putLong(seed).array());
      return random;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The path of a tool built by scripts/secrets-tools (kubeseal, sops, age, age-keygen). */
  static Path built(String name) {
    Path binary = toolsDir().resolve("bin").resolve(name);
    if (!Files.isExecutable(binary)) {
      fail(
          name
              + " not found at "
              + binary
              + ": run `scripts/secrets-tools` from the repository root"
              + " (builds kubeseal, sops and age from the Go module proxy, about 10 minutes cold)");
    }
    return binary;
  }

  /** The path of a system tool such as ssh-keygen or openssl. */
  static Path system(String name, String debianPackage) {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
      Path candidate = Path.of(dir, name);
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    return fail(name + " not found on PATH: run `apt-get install -y " + debianPackage + "`");
  }

  /** Runs a command in {@code workDir}; returns stdout, or fails the test showing stderr. */
  static String run(Path workDir, Map<String, String> env, String stdin, List<String> command) {
    ToolResult result = attempt(workDir, env, stdin, command);
    if (result.exitCode() != 0) {
      fail(String.join(" ", command) + " exited " + result.exitCode() + ":\n" + result.stderr());
    }
    return result.stdout();
  }

  /** Runs a command and returns its exit code and output, whatever the exit code. */
  static ToolResult attempt(
      Path workDir, Map<String, String> env, String stdin, List<String> command) {
    try {
      Path in = Files.writeString(workDir.resolve(".stdin"), stdin);
      Path out = workDir.resolve(".stdout");
      Path err = workDir.resolve(".stderr");
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .directory(workDir.toFile())
              .redirectInput(in.toFile())
              .redirectOutput(out.toFile())
              .redirectError(err.toFile());
      builder.environment().putAll(env);
      Process process = builder.start();
      if (!process.waitFor(120, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        fail(String.join(" ", command) + " did not finish in 120 s");
      }
      return new ToolResult(
          process.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + command, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Exit code and captured output of one tool run. */
  record ToolResult(int exitCode, String stdout, String stderr) {}

  private static Path toolsDir() {
    String configured = System.getProperty("trainyard.tools.dir", "");
    if (!configured.isBlank()) {
      return Path.of(configured);
    }
    Path script = repoRoot().resolve("scripts/secrets-tools");
    if (!Files.isExecutable(script)) {
      return fail("scripts/secrets-tools not found or not executable at " + script);
    }
    Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
    return Path.of(run(tmp, Map.of(), "", List.of(script.toString(), "--print-dir")).strip());
  }

  private static Path repoRoot() {
    String configured = System.getProperty("trainyard.repo.root", "");
    Path dir =
        configured.isBlank() ? Path.of("").toAbsolutePath() : Path.of(configured).toAbsolutePath();
    for (Path at = dir; at != null; at = at.getParent()) {
      if (Files.exists(at.resolve("scripts/secrets-tools"))) {
        return at.normalize();
      }
    }
    return dir.normalize();
  }
}
