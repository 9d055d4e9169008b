package dev.trainyard.cluster;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.trainyard.controller.RunReader;
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

/**
 * The set-up the Kueue preemption ITs share ({@link KueuePreemptionIT}, {@link KueueLateExitIT}):
 * the ClusterQueue, ResourceFlavor and WorkloadPriorityClasses {@code PREFIX-low} and {@code
 * PREFIX-high} of {@code manifests/preemption-queues.yaml} under one prefix, two fresh namespaces
 * (the low run's and the high run's, so one compiled name serves both runs), and compiled JobSets
 * submitted to a LocalQueue {@code PREFIX-lq} in either with that priority class.
 *
 * <pre>{@code
 * var scene = KueuePreemptionFixture.start(cluster, "preempt");
 * var low = scene.submitLow(KueuePreemptionFixture.slowRun("30s"));
 * }</pre>
 */
final class KueuePreemptionFixture {

  /** The bound of every wait of these ITs. */
  static final Duration TIMEOUT = Duration.ofSeconds(180);

  final KubeCluster cluster;
  final String prefix;

  /** The low-priority run's namespace; the cluster-scoped queue objects are applied through it. */
  final String lowNs;

  final String highNs;

  private KueuePreemptionFixture(KubeCluster cluster, String prefix, String lowNs, String highNs) {
    this.cluster = cluster;
    this.prefix = prefix;
    this.lowNs = lowNs;
    this.highNs = highNs;
  }

  /**
   * Skips the calling test unless the Kueue controller runs; otherwise makes the two namespaces and
   * applies the queue objects named {@code prefix}.
   */
  static KueuePreemptionFixture start(KubeCluster cluster, String prefix) {
    assumeTrue(
        cluster.runs(Component.KUEUE_CONTROLLER),
        "NOT RUN: Kueue controller not built (see VERSIONS)");
    Manifests manifests = new Manifests(cluster.client());
    String lowNs = cluster.newNamespace();
    String highNs = cluster.newNamespace();
    queues(prefix).forEach(o -> manifests.apply(manifests.placed(o, lowNs)));
    return new KueuePreemptionFixture(cluster, prefix, lowNs, highNs);
  }

  /**
   * The compiled {@code slow} run (2 pods of 4 cpu, 16Gi) whose pods kwok runs for {@code runFor}
   * (e.g. {@code "30s"}) once started.
   */
  static GenericKubernetesResource slowRun(String runFor) {
    GenericKubernetesResource jobSet = FailurePolicyIT.compiledJobSet("slow");
    JobSets.annotatePods(jobSet, "trainyard.dev/kwok-run-for", runFor);
    return jobSet;
  }

  /** {@code jobSet} in the low namespace with the {@code low} priority class. */
  Resource<GenericKubernetesResource> submitLow(GenericKubernetesResource jobSet) {
    return submit(lowNs, "low", jobSet);
  }

  /** {@code jobSet} in the high namespace with the {@code high} priority class. */
  Resource<GenericKubernetesResource> submitHigh(GenericKubernetesResource jobSet) {
    return submit(highNs, "high", jobSet);
  }

  private Resource<GenericKubernetesResource> submit(
      String namespace, String priority, GenericKubernetesResource jobSet) {
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

  /** The reason of the Evicted=True condition of the (only) Workload in the low namespace. */
  @SuppressWarnings("unchecked")
  Optional<String> lowEvictedReason() {
    for (GenericKubernetesResource w :
        cluster
            .client()
            .genericKubernetesResources("kueue.x-k8s.io/v1beta2", "Workload")
            .inNamespace(lowNs)
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

  /** The states {@code trainyard status} shows for the low namespace's run {@code run}. */
  StateLog lowStates(String run) {
    return new StateLog(cluster, lowNs, run);
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
   * The distinct "PHASE description" lines {@code trainyard status} showed for one run, in order,
   * read the way {@code trainyard status} reads them ({@link RunReader}, {@link RunStateMapper}).
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
