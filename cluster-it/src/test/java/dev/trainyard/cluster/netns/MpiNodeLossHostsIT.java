package dev.trainyard.cluster.netns;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The compiled launch.sh's check after a failed mpirun, for real: Debian's Open MPI and OpenSSH on
 * namespace hosts ({@link NamespaceCluster}). A node pod that vanishes mid-run (its process tree
 * killed, as a lost machine's) makes the real mpirun fail; launch.sh must then find that node's
 * sshd silent and wait its long wait (600 s) for the disruption to restart the run, not the 45 s
 * after which a user's error fails it.
 */
class MpiNodeLossHostsIT {
  static final Duration NOTICED = Duration.ofSeconds(60);

  @Test
  @DisplayName(
      "a node pod killed mid-run: the real mpirun fails, and launch.sh names that node's silent sshd and waits 600 s, not 45")
  void killedNodeMakesTheLauncherWaitLong() throws Exception {
    HostTools.requireMpi();
    Path work = Files.createDirectories(NetnsWork.dir()).resolve("mpi-loss-" + System.nanoTime());
    CompiledProject project =
        CompiledProject.compile(
            work.resolve("repo"),
            "job",
            Map.of("train.yaml", "runtime: mpi\nnodes: 2\nrun: hostname && sleep 300\n"),
            Optional.empty());
    try (NamespaceCluster cluster =
        new NamespaceCluster(
            project.run(), ImageStandIn.openMpi(), work.resolve("pods"), project.repo())) {
      List<RunningPod> nodes = MpiRun.startNodes(cluster, cluster.run().podsOf("node"));
      RunningPod launcher = cluster.start(cluster.pod("launcher", 0));
      String lost = nodes.get(1).hostname();
      await(
          "both ranks started",
          () ->
              launcher.output().contains(nodes.get(0).hostname() + "\n")
                  && launcher.output().contains(lost + "\n"),
          launcher);
      nodes.get(1).kill();
      await(
          "launch.sh's wait after the failed mpirun",
          () -> launcher.output().contains("; waiting "),
          launcher);
      String output = launcher.output();
      assertTrue(
          output.contains(
              lost + "." + cluster.run().jobSetName() + ":2222 does not answer; waiting 600s"),
          output);
      assertTrue(launcher.process().isAlive(), "the launcher must still wait: " + output);
      launcher.kill();
    }
  }

  private static void await(
      String what, java.util.function.BooleanSupplier condition, RunningPod launcher)
      throws InterruptedException {
    long deadline = System.nanoTime() + NOTICED.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline || !launcher.process().isAlive()) {
        throw new AssertionError(
            "no "
                + what
                + " within "
                + NOTICED.toSeconds()
                + " s; launcher output:\n"
                + launcher.output());
      }
      Thread.sleep(200);
    }
  }
}
