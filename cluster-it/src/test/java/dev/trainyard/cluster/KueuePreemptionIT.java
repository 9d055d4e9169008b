package dev.trainyard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.trainyard.controller.RunReader;
import dev.trainyard.controller.state.Phase;
import dev.trainyard.controller.state.RunState;
import dev.trainyard.controller.state.RunStateMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * namespaces, so the same compiled name serves both. The run's state is read the way {@code
 * trainyard status} reads it ({@link RunReader}, {@link RunStateMapper}).
 */
@ExtendWith(KubeClusterExtension.class)
class KueuePreemptionIT {

  static final Duration TIMEOUT = Duration.ofSeconds(180);
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
    assumeTrue(
        cluster.runs(Component.KUEUE_CONTROLLER),
        "NOT RUN: Kueue controller not built (see VERSIONS)");
    Manifests manifests = new Manifests(cluster.client());
    String lowNs = cluster.newNamespace();
    String highNs = cluster.newNamespace();
    queues().forEach(o -> manifests.apply(manifests.placed(o, lowNs)));
    var low = submit(cluster, lowNs, "low", LOW_RUNS_FOR);
    String name = low.get().getMetadata().getName();
    FailurePolicyIT.runningPods(cluster, lowNs, name, 0);
    var states = new StateLog(cluster, lowNs, name);
    states.record();
    var high = submit(cluster, highNs, "high", HIGH_RUNS_FOR);
    Eventually.await(
        "low run's Workload Evicted (Preempted)",
        TIMEOUT,
        () -> states.record() && evictedReason(cluster, lowNs).equals(Optional.of("Preempted")),
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

  /**
   * The compiled run in {@code namespace}, queued to this test's LocalQueue with priority {@code
   * priority}.
   */
  static Resource<GenericKubernetesResource> submit(
      KubeCluster cluster, String namespace, String priority, String runFor) {
    GenericKubernetesResource jobSet = FailurePolicyIT.compiledJobSet("slow");
    JobSets.annotatePods(jobSet, "trainyard.dev/kwok-run-for", runFor);
    return submit(cluster, namespace, PREFIX, priority, jobSet);
  }

  /**
   * {@code jobSet} in {@code namespace}, queued to the LocalQueue of the queues named {@code
   * prefix} with priority {@code priority}.
   */
  static Resource<GenericKubernetesResource> submit(
      KubeCluster cluster,
      String namespace,
      String prefix,
      String priority,
      GenericKubernetesResource jobSet) {
    Manifests manifests = new Manifests(cluster.client());
    manifests.apply(manifests.placed(localQueue(prefix), namespace));
    Map<String, String> labels = jobSet.getMetadata().getLabels();
    labels.put("kueue.x-k8s.io/queue-name", prefix + "-lq");
    labels.put("kueue.x-k8s.io/priority-class", prefix + "-" + priority);
    manifests.apply(manifests.placed(jobSet, namespace));
    return JobSets.api(cluster.client())
        .inNamespace(namespace)
        .withName(jobSet.getMetadata().getName());
  }

  /** The reason of the Evicted=True condition of the (only) Workload in {@code namespace}. */
  @SuppressWarnings("unchecked")
  static Optional<String> evictedReason(KubeCluster cluster, String namespace) {
    for (GenericKubernetesResource w :
        cluster
            .client()
            .genericKubernetesResources("kueue.x-k8s.io/v1beta2", "Workload")
            .inNamespace(namespace)
            .list()
            .getItems()) {
      Object status = w.getAdditionalProperties().get("status");
      Object conditions = status instanceof Map<?, ?> s ? s.get("conditions") : null;
      for (Object c : conditions instanceof List<?> l ? l : List.of()) {
        Map<String, Object> condition = (Map<String, Object>) c;
        if ("Evicted".equals(condition.get("type")) && "True".equals(condition.get("status"))) {
          return Optional.of(String.valueOf(condition.get("reason")));
        }
      }
    }
    return Optional.empty();
  }

  static List<GenericKubernetesResource> queues() {
    return queues(PREFIX);
  }

  /** The ClusterQueue, ResourceFlavor and WorkloadPriorityClasses named {@code prefix}. */
  static List<GenericKubernetesResource> queues(String prefix) {
    return Manifests.parse(
        ClusterBootstrap.resource("manifests/preemption-queues.yaml").replace("PREFIX", prefix));
  }

  static GenericKubernetesResource localQueue(String prefix) {
    return Manifests.parse(
            String.join(
                "\n",
                "apiVersion: kueue.x-k8s.io/v1beta2",
                "kind: LocalQueue",
                "metadata: {name: " + prefix + "-lq}",
                "spec: {clusterQueue: " + prefix + "-cq}",
                ""))
        .get(0);
  }

  /**
   * The distinct "PHASE description" lines {@code trainyard status} showed for one run, in order.
   */
  static final class StateLog {
    private final RunReader reader;
    private final RunStateMapper mapper = new RunStateMapper(Duration.ofMinutes(10));
    private final String namespace;
    private final String run;
    final List<String> seen = new ArrayList<>();

    StateLog(KubeCluster cluster, String namespace, String run) {
      // Not closed: closing the reader would close the cluster's shared client.
      this.reader = new RunReader(cluster.client(), Clock.systemUTC());
      this.namespace = namespace;
      this.run = run;
    }

    /**
     * Reads the run's state once and keeps it if it changed; always true, to sit inside a wait
     * condition.
     */
    boolean record() {
      Optional<RunState> state = reader.get(namespace, run).map(r -> mapper.map(r.observation()));
      String line = state.map(s -> s.phase() + " " + s.description()).orElse("(no run)");
      if (seen.isEmpty() || !seen.get(seen.size() - 1).equals(line)) {
        seen.add(line);
      }
      return true;
    }

    String last() {
      return seen.isEmpty() ? "(none)" : seen.get(seen.size() - 1);
    }
  }
}
