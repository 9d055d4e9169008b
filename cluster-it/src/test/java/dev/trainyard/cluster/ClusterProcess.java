package dev.trainyard.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One server process of the test cluster (etcd, kube-apiserver, a controller), with its output in
 * {@code <logDir>/<name>.log}. {@link #stop()} ends the whole process tree: first SIGTERM to the
 * descendants and the process, then SIGKILL after {@value #GRACE_SECONDS} seconds.
 */
final class ClusterProcess {

  static final int GRACE_SECONDS = 10;

  private final String name;
  private final Process process;
  private final Path log;

  private ClusterProcess(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
  }

  /** Starts {@code command} with extra {@code env}, stdout and stderr appended to the log file. */
  static ClusterProcess start(
      String name, List<String> command, Map<String, String> env, Path logDir) {
    Path log = logDir.resolve(name + ".log");
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .directory(logDir.toFile());
    builder.environment().putAll(env);
    try {
      return new ClusterProcess(name, builder.start(), log);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name + " (" + command.get(0) + ")", e);
    }
  }

  String name() {
    return name;
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Resident set size in bytes from {@code /proc/<pid>/status} (VmRSS), if the process still runs.
   */
  Optional<Long> residentBytes() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid()), "status"))) {
        if (line.startsWith("VmRSS:")) {
          return Optional.of(Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024);
        }
      }
    } catch (IOException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }

  /** Fails with the log's tail if the process has exited; used while waiting for readiness. */
  void requireAlive() {
    if (!process.isAlive()) {
      throw new Exited(
          name
              + " exited with code "
              + process.exitValue()
              + "; last lines of "
              + log
              + ":\n"
              + tail(25));
    }
  }

  /** A cluster process died; waiting any longer is pointless. */
  static final class Exited extends IllegalStateException {
    Exited(String message) {
      super(message);
    }
  }

  String tail(int lines) {
    try {
      List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(log unreadable: " + e.getMessage() + ")";
    }
  }

  /** SIGKILL, no grace: the process gets no chance to clean up (crash tests). */
  void kill() {
    try {
      process.destroyForcibly().waitFor(GRACE_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Ends the process and every descendant; waits until they are gone. */
  void stop() {
    List<ProcessHandle> tree = process.descendants().toList();
    tree.forEach(ProcessHandle::destroy);
    process.destroy();
    try {
      if (!process.waitFor(GRACE_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(GRACE_SECONDS, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
    tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
  }
}
