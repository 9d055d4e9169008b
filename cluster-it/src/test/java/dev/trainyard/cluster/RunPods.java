package dev.trainyard.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;

/**
 * A compiled run on the kwok cluster, as the failure-handling ITs drive it: applied unqueued with
 * its companions (SSH Secret, MPI ConfigMap), its pods held Running by kwok ({@code
 * trainyard.dev/kwok-outcome=slow} for {@link FailurePolicyIT#RUN_FOR}) and ended as a kubelet ends
 * them when deleted; then pods of one replicated job and restart attempt, and the child Jobs'
 * failure conditions.
 */
final class RunPods {

  static final Duration TIMEOUT = FailurePolicyIT.FAIL_TIMEOUT;

  private RunPods() {}

  /**
   * The compiled JobSet, unqueued, with the kwok labels of {@link FailurePolicyIT#compiledJobSet}.
   */
  static GenericKubernetesResource held(CompiledExample example) {
    GenericKubernetesResource jobSet = heldWithoutKubelet(example);
    JobSets.labelPods(jobSet, "trainyard.dev/kwok-on-delete", "fail");
    return jobSet;
  }

  /**
   * Like {@link #held}, but a deleted pod is not ended as a kubelet ends it (kwok removes it, or a
   * stage holds it).
   */
  static GenericKubernetesResource heldWithoutKubelet(CompiledExample example) {
    GenericKubernetesResource jobSet = example.jobSet();
    JobSets.unqueue(jobSet);
    JobSets.labelPods(jobSet, "trainyard.dev/kwok-outcome", "slow");
    JobSets.annotatePods(jobSet, "trainyard.dev/kwok-run-for", FailurePolicyIT.RUN_FOR);
    return jobSet;
  }

  /**
   * Applies the companions, then the JobSet, in {@code namespace}; returns the stored JobSet's
   * handle.
   */
  static Resource<GenericKubernetesResource> apply(
      KubeCluster cluster,
      String namespace,
      CompiledExample example,
      GenericKubernetesResource jobSet) {
    Manifests manifests = new Manifests(cluster.client());
    example.companions().forEach(o -> manifests.apply(manifests.placed(o, namespace)));
    return FailurePolicyIT.apply(cluster, namespace, jobSet);
  }

  /**
   * Waits until {@code count} pods of {@code replicatedJob}, restart {@code attempt}, run; sorted
   * by completion index.
   */
  static List<Pod> running(
      KubeCluster cluster,
      String namespace,
      String jobSet,
      String replicatedJob,
      int attempt,
      int count) {
    var pods =
        cluster
            .client()
            .pods()
            .inNamespace(namespace)
            .withLabel(JobSets.NAME_LABEL, jobSet)
            .withLabel(JobSets.RJOB_LABEL, replicatedJob)
            .withLabel("jobset.sigs.k8s.io/restart-attempt", Integer.toString(attempt));
    Eventually.await(
        count + " running " + replicatedJob + " pods of " + jobSet + " attempt " + attempt,
        TIMEOUT,
        () ->
            pods.list().getItems().stream()
                    .filter(
                        p ->
                            "Running".equals(p.getStatus().getPhase())
                                && p.getMetadata().getDeletionTimestamp() == null)
                    .count()
                == count);
    return pods.list().getItems().stream()
        .sorted(
            Comparator.comparing(
                p -> p.getMetadata().getAnnotations().get(FailurePolicyIT.COMPLETION_INDEX)))
        .toList();
  }

  /**
   * Ends a running pod with exit code 1 through kwok's {@code trainyard-pod-fail} stage, as a
   * process that lost its peers ends. Returns false, changing nothing, when the pod is already gone
   * or being deleted (a restart removed it first); otherwise waits until it is Failed.
   */
  static boolean exit1UnlessGone(KubeCluster cluster, String namespace, Pod pod) {
    var stored =
        cluster.client().pods().inNamespace(namespace).withName(pod.getMetadata().getName());
    Pod now = stored.get();
    if (now == null || now.getMetadata().getDeletionTimestamp() != null) {
      return false;
    }
    try {
      Edits.edit(
          stored,
          p -> {
            p.getMetadata().getLabels().put("trainyard.dev/kwok-outcome", "fail");
            return p;
          });
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return false;
      }
      throw e;
    }
    Eventually.await(
        "pod " + pod.getMetadata().getName() + " Failed or gone",
        TIMEOUT,
        () -> {
          Pod p = stored.get();
          return p == null || "Failed".equals(p.getStatus().getPhase());
        });
    return true;
  }

  /** Whether the child Job {@code name} exists and has condition Failed=True. */
  static boolean jobFailed(KubeCluster cluster, String namespace, String name) {
    Job job = cluster.client().batch().v1().jobs().inNamespace(namespace).withName(name).get();
    return job != null
        && job.getStatus() != null
        && job.getStatus().getConditions().stream()
            .anyMatch(c -> "Failed".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /** Waits until the JobSet has restarted {@code restarts} times. */
  static void awaitRestarts(Resource<GenericKubernetesResource> stored, int restarts) {
    Eventually.await(
        "JobSet restarted " + restarts + " time(s)",
        TIMEOUT,
        () -> JobSets.restarts(stored.get()) >= restarts,
        () -> JobSets.describe(stored.get()));
  }
}
