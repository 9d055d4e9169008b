package dev.trainyard.cluster.netns;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

/**
 * A pod's main container running as a process tree in its host's namespaces; stdout and stderr go
 * to {@code log}.
 *
 * @param hostname the pod's hostname
 * @param host its network namespace and address
 * @param process {@code ip netns exec ... unshare ... setpriv ... <command>}
 * @param log the container's output
 */
record RunningPod(String hostname, HostNetwork.Host host, Process process, Path log) {

  /** Waits at most {@code timeout} for the container to exit; empty when it still runs. */
  OptionalInt awaitExit(Duration timeout) {
    try {
      return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)
          ? OptionalInt.of(process.exitValue())
          : OptionalInt.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Like {@link #awaitExit}, failing with the log when it does not exit in time. */
  int requireExit(Duration timeout) {
    return awaitExit(timeout)
        .orElseThrow(
            () ->
                new AssertionError(
                    hostname
                        + " still runs after "
                        + timeout.toSeconds()
                        + "s; its output:\n"
                        + output()));
  }

  /** Everything the container printed so far. */
  String output() {
    try {
      return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Whether something listens on TCP {@code port} in the pod's namespace (the readiness probe's
   * check).
   */
  boolean listens(int port) {
    return HostCommand.run("ip", "netns", "exec", host.netns(), "ss", "-Hltn", "sport = :" + port)
        .output()
        .contains(":" + port);
  }

  /**
   * Waits at most {@code timeout} until the pod listens on {@code port}; fails with its output
   * otherwise.
   */
  void awaitListening(int port, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (listens(port)) {
        return;
      }
      if (!process.isAlive()) {
        throw new AssertionError(
            hostname
                + " exited "
                + process.exitValue()
                + " before listening on "
                + port
                + ":\n"
                + output());
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    throw new AssertionError(
        hostname
            + " does not listen on "
            + port
            + " after "
            + timeout.toSeconds()
            + "s:\n"
            + output());
  }

  /**
   * Waits at most {@code timeout} until the container has printed {@code text}; fails with its
   * output when it has not by then, or has exited without it.
   */
  void awaitOutput(String text, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!output().contains(text)) {
      if (System.nanoTime() > deadline || !process.isAlive()) {
        throw new AssertionError(
            hostname + ": no \"" + text + "\" within " + timeout.toSeconds() + " s:\n" + output());
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  /**
   * Sends SIGTERM to the container's command, as the kubelet does when it stops a pod (an eviction,
   * a deletion); the process chain {@code ip netns exec}, {@code unshare}, {@code setpriv}, {@code
   * env} execs into it.
   */
  void terminate() {
    process.destroy();
  }

  /**
   * Kills the process tree (the namespace's remaining processes go with {@link
   * HostNetwork#close()}).
   */
  void kill() {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
  }
}
