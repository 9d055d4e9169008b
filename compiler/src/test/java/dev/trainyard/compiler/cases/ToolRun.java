package dev.trainyard.compiler.cases;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a real command-line tool (Open MPI's {@code mpirun}, {@code ssh-keygen}, {@code bash}) for a
 * test and captures its merged output. A missing tool is a test failure that says which package to
 * install, never a skip.
 *
 * @param exitCode the process exit code
 * @param output stdout and stderr, merged, UTF-8
 */
record ToolRun(int exitCode, String output) {
  /** Runs {@code argv} in {@code workdir} with extra {@code env}, waiting at most 60 seconds. */
  static ToolRun run(List<String> argv, Path workdir, Map<String, String> env) {
    ProcessBuilder pb =
        new ProcessBuilder(argv).directory(workdir.toFile()).redirectErrorStream(true);
    pb.environment().putAll(env);
    try {
      Process p = pb.start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError(argv.get(0) + " did not finish within 60s");
      }
      return new ToolRun(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new AssertionError("cannot run " + argv.get(0) + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /**
   * Fails (never skips) when {@code tool} is not on PATH, naming the Debian package that provides
   * it.
   */
  static void require(String tool, String debianPackage) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
        return;
      }
    }
    throw new AssertionError(
        tool
            + " is not installed: run `apt-get install -y "
            + debianPackage
            + "` to run this test");
  }

  /**
   * Writes an executable stand-in {@code bin/name} (mode rwxr-xr-x) holding {@code text}, e.g. a
   * fake mpirun.
   */
  static Path executable(Path bin, String name, String text) {
    try {
      Files.createDirectories(bin);
      Path file = Files.writeString(bin.resolve(name), text);
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
      return file;
    } catch (IOException e) {
      throw new AssertionError("cannot write " + bin.resolve(name) + ": " + e.getMessage(), e);
    }
  }

  /** Whether the tests run as root (Open MPI then needs {@code --allow-run-as-root}). */
  static boolean asRoot() {
    return "root".equals(System.getProperty("user.name"));
  }
}
