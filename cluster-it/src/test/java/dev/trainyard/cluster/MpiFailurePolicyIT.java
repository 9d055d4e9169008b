package dev.trainyard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compiled failure policy of an MPI run (the shipped {@code examples/infra-check}: 3 node pods
 * serving sshd and a launcher Job of its own that runs mpirun) through the real JobSet and Job
 * controllers and kwok. Containers do not run here, so the test plays the processes' part as {@link
 * FailurePolicyIT} does: kwok ends a pod relabelled {@code kwok-outcome=fail} with exit code 1 (the
 * launcher's mpirun failing), and a pod deleted through the Eviction API (condition {@code
 * DisruptionTarget}) with 143, as the kubelet does.
 *
 * <p>The compiled {@code launch.sh} waits its grace ({@code sleep N &} after a failed mpirun)
 * before it exits, so that a disrupted node pod fails its own Job first: JobSet evaluates its rules
 * in order over every failed Job (jobset v0.12 {@code findFirstFailedPolicyRuleAndJob}), so {@code
 * RestartOnDisruption} wins once the node Job has failed, whatever the launcher does after. One
 * test proves that ordering deterministically by stopping the harness's JobSet controller (SIGSTOP,
 * {@link PausedController}) until both Jobs have failed.
 */
@ExtendWith(KubeClusterExtension.class)
class MpiFailurePolicyIT {

  static final String EXAMPLE = "infra-check";
  static final int NODE_PODS = 3;

  /**
   * launch.sh's waits after a failed mpirun: {@code grace=N} (every node answers), then {@code
   * grace=N; why=} (one does not).
   */
  private static final Pattern GRACE = Pattern.compile("\\n\\s*grace=(\\d+)\\n");

  private static final Pattern DISRUPTED_WAIT = Pattern.compile("grace=(\\d+); why=");

  @Test
  @DisplayName(
      "MPI: an evicted node pod restarts the run well within the launcher's grace (so its exit 1, due at the grace's end, finds its pod gone), counted against retries")
  void evictedNodePodRestartsWithinTheGrace(KubeCluster cluster, @TempDir Path temp) {
    String namespace = cluster.newNamespace();
    CompiledExample example = CompiledExample.compile(EXAMPLE, temp);
    Duration grace = launcherGrace(example);
    var stored = RunPods.apply(cluster, namespace, example, RunPods.held(example));
    String name = stored.get().getMetadata().getName();
    List<Pod> nodes = RunPods.running(cluster, namespace, name, "node", 0, NODE_PODS);
    Pod launcher = RunPods.running(cluster, namespace, name, "launcher", 0, 1).get(0);
    FailurePolicyIT.evict(cluster, namespace, nodes.get(1));
    Instant evicted = Instant.now();
    Eventually.await(
        "node Job of " + name + " Failed (or already replaced by the restart)",
        RunPods.TIMEOUT,
        () ->
            RunPods.jobFailed(cluster, namespace, name + "-node-0")
                || JobSets.restarts(stored.get()) > 0,
        () -> JobSets.describe(stored.get()));
    // mpirun fails as soon as the evicted pod's sshd goes, and launch.sh exits at the end of its
    // grace.
    // Exiting as soon as the node Job has failed is the harder case: the launcher's Job may fail
    // before
    // JobSet has acted on the node's.
    boolean exited = RunPods.exit1UnlessGone(cluster, namespace, launcher);
    RunPods.awaitRestarts(stored, 1);
    Duration sinceEviction = Duration.between(evicted, Instant.now());
    System.out.println(
        "MpiFailurePolicyIT: launcher exit 1 recorded before the restart: "
            + exited
            + "; restart "
            + sinceEviction.toMillis()
            + " ms after the eviction (grace "
            + grace.toSeconds()
            + " s)");
    GenericKubernetesResource restarted = stored.get();
    assertEquals(1, JobSets.restartsCountTowardsMax(restarted), JobSets.describe(restarted));
    assertFalse(
        JobSets.hasCondition(restarted, "Failed"),
        "the eviction must restart the run; " + JobSets.describe(restarted));
    assertTrue(
        sinceEviction.compareTo(grace) < 0,
        "the restart must come within the launcher's grace ("
            + grace.toSeconds()
            + " s), it came "
            + sinceEviction.toMillis()
            + " ms after the eviction");
    RunPods.running(cluster, namespace, name, "node", 1, NODE_PODS);
  }

  @Test
  @DisplayName(
      "MPI: when JobSet first looks after both the evicted node pod's Job and then the launcher's (exit 1) have failed, it restarts the run, counted against retries")
  void launcherExitAfterNodeJobFailedStillRestarts(KubeCluster cluster, @TempDir Path temp) {
    String namespace = cluster.newNamespace();
    CompiledExample example = CompiledExample.compile(EXAMPLE, temp);
    var stored = RunPods.apply(cluster, namespace, example, RunPods.held(example));
    String name = stored.get().getMetadata().getName();
    List<Pod> nodes = RunPods.running(cluster, namespace, name, "node", 0, NODE_PODS);
    Pod launcher = RunPods.running(cluster, namespace, name, "launcher", 0, 1).get(0);
    try (PausedController jobSetController = PausedController.pause(cluster, "jobset")) {
      FailurePolicyIT.evict(cluster, namespace, nodes.get(1));
      Eventually.await(
          "node Job Failed",
          RunPods.TIMEOUT,
          () -> RunPods.jobFailed(cluster, namespace, name + "-node-0"));
      assertTrue(
          RunPods.exit1UnlessGone(cluster, namespace, launcher),
          "the launcher pod is gone before its exit");
      Eventually.await(
          "launcher Job Failed",
          RunPods.TIMEOUT,
          () -> RunPods.jobFailed(cluster, namespace, name + "-launcher-0"));
    }
    RunPods.awaitRestarts(stored, 1);
    GenericKubernetesResource restarted = stored.get();
    assertEquals(1, JobSets.restartsCountTowardsMax(restarted), JobSets.describe(restarted));
    assertFalse(
        JobSets.hasCondition(restarted, "Failed"),
        "RestartOnDisruption is the first rule; " + JobSets.describe(restarted));
  }

  @Test
  @DisplayName(
      "MPI: the launcher's exit 1 with every node pod alive fails the run at once, with retries left")
  void launcherExitWithoutDisruptionFailsAtOnce(KubeCluster cluster, @TempDir Path temp) {
    String namespace = cluster.newNamespace();
    CompiledExample example = CompiledExample.compile(EXAMPLE, temp);
    var stored = RunPods.apply(cluster, namespace, example, RunPods.held(example));
    String name = stored.get().getMetadata().getName();
    RunPods.running(cluster, namespace, name, "node", 0, NODE_PODS);
    Pod launcher = RunPods.running(cluster, namespace, name, "launcher", 0, 1).get(0);
    assertTrue(
        RunPods.exit1UnlessGone(cluster, namespace, launcher),
        "the launcher pod is gone before its exit");
    FailurePolicyIT.awaitFailed(stored);
    GenericKubernetesResource failed = stored.get();
    assertTrue(
        JobSets.restarts(failed) == 0 && FailurePolicyIT.maxRestarts(failed) > 0,
        "restarts 0 of " + FailurePolicyIT.maxRestarts(failed) + "; " + JobSets.describe(failed));
    assertEquals(
        "FailJobSetFailurePolicyAction",
        JobSets.conditionReason(failed, "Failed"),
        JobSets.describe(failed));
    assertEquals("FailedIndexes", FailurePolicyIT.jobFailureReason(cluster, namespace, failed));
    assertFalse(
        RunPods.jobFailed(cluster, namespace, name + "-node-0"), "only the launcher's Job failed");
  }

  /**
   * The wait of the compiled launch.sh after a failed mpirun while every node pod's sshd answers.
   */
  static Duration launcherGrace(CompiledExample example) {
    return seconds(example, GRACE);
  }

  /**
   * The wait of the compiled launch.sh after a failed mpirun when a node pod's sshd does not
   * answer.
   */
  static Duration launcherDisruptedWait(CompiledExample example) {
    return seconds(example, DISRUPTED_WAIT);
  }

  private static Duration seconds(CompiledExample example, Pattern pattern) {
    String script = example.configMapValue("-mpi", "launch.sh");
    Matcher matcher = pattern.matcher(script);
    assertTrue(matcher.find(), "no " + pattern + " in the compiled launch.sh:\n" + script);
    return Duration.ofSeconds(Long.parseLong(matcher.group(1)));
  }
}
