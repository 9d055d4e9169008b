package dev.trainyard.cluster;

import static dev.trainyard.cluster.KueuePreemptionFixture.TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.controller.state.Phase;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Kueue preemption of a compiled run through the real Kueue, JobSet and Job controllers: the
 * compiled {@code torch-minimal} JobSet (2 pods of 4 cpu, 16Gi) fills a ClusterQueue with {@code
 * preemption.withinClusterQueue: LowerPriority}; a run of a higher WorkloadPriorityClass ({@code
 * kueue.x-k8s.io/priority-class} on the JobSet) makes Kueue evict the first one's Workload
 * (condition Evicted, reason Preempted) and suspend its JobSet, whose Jobs are suspended and pods
 * deleted (kwok ends them as the kubelet would after SIGTERM, exit code 143). The runs are in two
 * namespaces, so the same compiled name serves both ({@link KueuePreemptionFixture}). The run's
 * state is read the way {@code trainyard status} reads it.
 */
@ExtendWith(KubeClusterExtension.class)
class KueuePreemptionIT {

  static final String PREFIX = "preempt";

  /**
   * Long enough to be seen running before the higher run arrives; short enough to finish after
   * resuming.
   */
  static final String LOW_RUNS_FOR = "30s";

  static final String HIGH_RUNS_FOR = "10s";

  @Test
  @DisplayName(
      "Kueue preemption: a higher-priority run evicts a running run, which is requeued (not failed, no restart counted against retries), then resumes and succeeds")
  void preemptedRunIsRequeuedThenSucceeds(KubeCluster cluster) {
    var scene = KueuePreemptionFixture.start(cluster, PREFIX);
    var low = scene.submitLow(KueuePreemptionFixture.slowRun(LOW_RUNS_FOR));
    String name = low.get().getMetadata().getName();
    FailurePolicyIT.runningPods(cluster, scene.lowNs, name, 0);
    var states = scene.lowStates(name);
    states.record();
    var high = scene.submitHigh(KueuePreemptionFixture.slowRun(HIGH_RUNS_FOR));
    Eventually.await(
        "low run's Workload Evicted (Preempted)",
        TIMEOUT,
        () -> states.record() && scene.lowEvictedReason().equals(Optional.of("Preempted")),
        states::last);
    Eventually.await(
        "low run suspended",
        TIMEOUT,
        () -> states.record() && JobSets.suspended(low.get()),
        states::last);
    Eventually.await(
        "high run Completed",
        TIMEOUT,
        () -> states.record() && JobSets.hasCondition(high.get(), "Completed"),
        () -> JobSets.describe(high.get()));
    Eventually.await(
        "low run Completed",
        TIMEOUT,
        () -> states.record() && JobSets.hasCondition(low.get(), "Completed"),
        () -> JobSets.describe(low.get()) + "; states " + states.seen);
    GenericKubernetesResource done = low.get();
    System.out.println(
        "KueuePreemptionIT: low run states " + states.seen + "; " + JobSets.describe(done));
    assertTrue(!JobSets.hasCondition(done, "Failed"), JobSets.describe(done));
    assertEquals(
        0,
        JobSets.restartsCountTowardsMax(done),
        "preemption must not use up retries; " + JobSets.describe(done));
    assertTrue(
        states.seen.stream()
            .anyMatch(s -> s.startsWith(Phase.QUEUED + " ") && s.contains("Preempted")),
        "trainyard status shows the preempted run as queued, saying why: " + states.seen);
    assertTrue(
        states.seen.stream().noneMatch(s -> s.startsWith(Phase.FAILED + " ")),
        "never shown failed: " + states.seen);
  }
}
