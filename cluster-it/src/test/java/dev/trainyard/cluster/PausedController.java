package dev.trainyard.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * One of this harness's controller processes stopped with SIGSTOP until {@link #close()} sends
 * SIGCONT: the cluster's state moves on without that controller, which then sees it all at once, as
 * after a slow reconcile. Only on a {@link LocalCluster} (an existing cluster's controllers are not
 * ours): elsewhere the test is reported as not run.
 */
final class PausedController implements AutoCloseable {

  private final ClusterProcess process;

  private PausedController(ClusterProcess process) {
    this.process = process;
  }

  /**
   * Stops the harness process named {@code name} (e.g. {@code jobset}); fails when it is not
   * running.
   */
  static PausedController pause(KubeCluster cluster, String name) {
    Assumptions.assumeTrue(
        cluster instanceof LocalCluster, "NOT RUN: needs the harness's own " + name + " process");
    ClusterProcess process =
        ((LocalCluster) cluster)
            .processes().stream()
                .filter(p -> name.equals(p.name()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no harness process " + name));
    process.requireAlive();
    signal(process, "-STOP");
    return new PausedController(process);
  }

  /** Lets the process run again. */
  @Override
  public void close() {
    signal(process, "-CONT");
  }

  private static void signal(ClusterProcess process, String signal) {
    try {
      Process kill =
          new ProcessBuilder(List.of("kill", signal, Long.toString(process.pid())))
              .inheritIO()
              .start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new AssertionError("kill " + signal + " " + process.name() + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
