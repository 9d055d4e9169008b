package dev.trainyard.distribution;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Starts a program directly (no shell) with exactly the environment given, waits at most two
 * minutes and returns its exit code and output. stdout and stderr go to files, so a chatty program
 * cannot block on a full pipe.
 */
final class Launch {
  /** A finished process: exit code and UTF-8 output. */
  record Result(int exit, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exit + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
    }
  }

  private static final long TIMEOUT_SECONDS = 120;

  private Launch() {}

  static Result run(Path workDir, Map<String, String> env, List<String> command) {
    try {
      Path out = Files.createTempFile("launch", ".out");
      Path err = Files.createTempFile("launch", ".err");
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .directory(workDir.toFile())
              .redirectOutput(out.toFile())
              .redirectError(err.toFile());
      builder.environment().clear();
      builder.environment().putAll(env);
      Process process = builder.start();
      if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        throw new IllegalStateException("timed out after " + TIMEOUT_SECONDS + " s: " + command);
      }
      Result result =
          new Result(
              process.exitValue(),
              Files.readString(out, StandardCharsets.UTF_8),
              Files.readString(err, StandardCharsets.UTF_8));
      Files.delete(out);
      Files.delete(err);
      return result;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
