package dev.trainyard.cluster.netns;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The compiled launch.sh's check after a failed mpirun, for real: Debian's Open MPI and OpenSSH on
 * namespace hosts ({@link NamespaceCluster}). A node pod that vanishes mid-run makes the real
 * mpirun fail; launch.sh then probes each node pod's sshd (render {@code ExitGrace}): a lost
 * machine (its processes killed and its link down: nothing answers) makes it wait its long wait
 * (600 s) for the disruption to restart the run; a pod the kubelet stopped (its processes gone, its
 * network still up: the port refuses) the short one (45 s); a failure with every node answering
 * ends it at once (MpiHostsIT).
 */
class MpiNodeLossHostsIT {
  static final Duration NOTICED = Duration.ofSeconds(120);

  @Test
  @DisplayName(
      "a node lost mid-run (killed, link down): the real mpirun fails, and launch.sh names that node's silent sshd and waits 600 s")
  void lostNodeMakesTheLauncherWaitLong() throws Exception {
    String output = afterNodeLoss(true);
    assertTrue(
        output.contains(":2222 does not answer (its node may be lost); waiting 600s"), output);
  }

  @Test
  @DisplayName(
      "a node pod stopped mid-run (killed, its network up, as the kubelet stops an evicted pod): launch.sh finds its sshd refusing and waits 45 s")
  void stoppedNodeMakesTheLauncherWaitShort() throws Exception {
    String output = afterNodeLoss(false);
    assertTrue(
        output.contains(":2222 refuses or has no address (its pod is gone or ending); waiting 45s"),
        output);
  }

  /**
   * Runs a 2-node MPI job, kills node 1 (taking its link down when {@code linkDown}), returns
   * launch.sh's output once it waits.
   */
  private static String afterNodeLoss(boolean linkDown) throws Exception {
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
      if (linkDown) {
        HostCommand.check("ip", "-n", nodes.get(1).host().netns(), "link", "set", "eth0", "down");
      }
      await(
          "launch.sh's wait after the failed mpirun",
          () -> launcher.output().contains("; waiting "),
          launcher);
      String output = launcher.output();
      assertTrue(output.contains(lost + "." + cluster.run().jobSetName() + ":2222"), output);
      assertTrue(launcher.process().isAlive(), "the launcher must still wait: " + output);
      launcher.kill();
      return output;
    }
  }

  private static void await(String what, BooleanSupplier condition, RunningPod launcher)
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
