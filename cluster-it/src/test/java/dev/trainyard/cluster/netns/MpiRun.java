package dev.trainyard.cluster.netns;

import dev.trainyard.cluster.netns.CompiledRun.PodPlan;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * An MPI run on namespace hosts in JobSet order: the node pods first (sshd), then, once each
 * listens on the sshd port (the compiled readiness probe, which the launcher's {@code dependsOn:
 * Ready} waits for), the launcher, whose output is the run's.
 */
final class MpiRun {
  static final int SSH_PORT = 2222;
  static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
  static final Duration RUN_TIMEOUT = Duration.ofSeconds(120);

  private MpiRun() {}

  /** The launcher's exit code and output. */
  record Outcome(int exit, String output) {}

  /** Starts every node pod, waits for sshd on each, runs the launcher to its end. */
  static Outcome run(NamespaceCluster cluster) {
    startNodes(cluster, cluster.run().podsOf("node"));
    RunningPod launcher = cluster.start(cluster.pod("launcher", 0));
    int exit = launcher.requireExit(RUN_TIMEOUT);
    return new Outcome(exit, launcher.output());
  }

  static List<RunningPod> startNodes(NamespaceCluster cluster, List<PodPlan> nodes) {
    List<RunningPod> started = new ArrayList<>();
    for (PodPlan node : nodes) {
      started.add(cluster.start(node));
    }
    started.forEach(p -> p.awaitListening(SSH_PORT, READY_TIMEOUT));
    return started;
  }
}
