package dev.trainyard.cluster;

import static dev.trainyard.cluster.KueuePreemptionFixture.TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.controller.state.Phase;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The late exit of a pod Kueue's preemption stopped, through the real Kueue, JobSet and Job
 * controllers, made deterministic: the low run's pods are held Running while being deleted (kwok
 * stage {@code trainyard-pod-kubelet-held}, the kubelet not done yet) and kept in the API by a
 * finalizer of this test; the higher run completes, Kueue readmits the low run and JobSet resumes
 * the same Jobs; only then do the old pods end as the kubelet ends a SIGTERMed container (phase
 * Failed, exit code 143).
 *
 * <p>The Job controller removes its tracking finalizer from a pod it deletes for a suspended Job
 * and adds no {@code DisruptionTarget} condition (Kubernetes v1.36 {@code
 * pkg/controller/job/job_controller.go}, {@code manageJob} → {@code deleteJobPods}), so the old pod
 * is never counted; but {@code getFailJobMessage} matches every failed pod the Job owns against the
 * pod failure policy, finalizer or not. Before the fix its 143 matched the node container's
 * non-zero-exit {@code FailJob} rule and the run failed as the user's ("command exited with code
 * 143"); now the compiled rules leave 143 to no {@code FailJob} rule, and the resumed run goes on
 * and succeeds with no restart counted.
 */
@ExtendWith(KubeClusterExtension.class)
class KueueLateExitIT {

  static final String PREFIX = "lateexit";

  /** Keeps the old pods, Failed, in the API until the test ends, as a busy kubelet might. */
  static final String KEEP = "trainyard.dev/it-keep";

  @Test
  @DisplayName(
      "Kueue preemption: a pod of the first admission that exits 143 only after the run was resumed does not fail the run as the user's error")
  void lateSigtermExitOfPreemptedPodDoesNotFailResumedRun(KubeCluster cluster) {
    var scene = KueuePreemptionFixture.start(cluster, PREFIX);
    String lowNs = scene.lowNs;
    GenericKubernetesResource lowJobSet = KueuePreemptionFixture.slowRun("20s");
    JobSets.labelPods(lowJobSet, "trainyard.dev/kwok-on-delete", "hold");
    var low = scene.submitLow(lowJobSet);
    String name = low.get().getMetadata().getName();
    var pods = cluster.client().pods().inNamespace(lowNs);
    try {
      List<Pod> first = FailurePolicyIT.runningPods(cluster, lowNs, name, 0);
      first.forEach(
          p ->
              Edits.edit(
                  pods.withName(p.getMetadata().getName()),
                  q -> {
                    q.getMetadata().getFinalizers().add(KEEP);
                    return q;
                  }));
      Map<String, String> jobUids = jobUids(cluster, lowNs, name);
      var states = scene.lowStates(name);
      states.record();
      var high = scene.submitHigh(KueuePreemptionFixture.slowRun("5s"));
      Eventually.await(
          "low run's Workload Evicted (Preempted) and its pods being deleted",
          TIMEOUT,
          () ->
              states.record()
                  && scene.lowEvictedReason().equals(Optional.of("Preempted"))
                  && first.stream()
                      .allMatch(
                          p -> {
                            Pod now = pods.withName(p.getMetadata().getName()).get();
                            return now != null && now.getMetadata().getDeletionTimestamp() != null;
                          }),
          states::last);
      for (Pod p : first) {
        Pod held = pods.withName(p.getMetadata().getName()).get();
        System.out.println(
            "KueueLateExitIT: pod deleted for the suspended Job: phase "
                + held.getStatus().getPhase()
                + ", finalizers "
                + held.getMetadata().getFinalizers()
                + ", conditions "
                + conditions(held));
        assertFalse(
            held.getMetadata().getFinalizers().contains("batch.kubernetes.io/job-tracking"),
            "the Job controller removes its finalizer before deleting for suspension: "
                + held.getMetadata());
        assertFalse(
            conditions(held).contains("DisruptionTarget=True"),
            "the Job controller adds no DisruptionTarget when it suspends: " + conditions(held));
      }
      Eventually.await(
          "high run Completed",
          TIMEOUT,
          () -> states.record() && JobSets.hasCondition(high.get(), "Completed"),
          () -> JobSets.describe(high.get()));
      Eventually.await(
          "low run resumed: JobSet and its Jobs unsuspended, Jobs' Suspended=False",
          TIMEOUT,
          () ->
              states.record() && !JobSets.suspended(low.get()) && jobsResumed(cluster, lowNs, name),
          () -> JobSets.describe(low.get()) + "; jobs " + jobConditions(cluster, lowNs, name));
      assertEquals(
          jobUids,
          jobUids(cluster, lowNs, name),
          "JobSet resumes the Jobs of the first admission, it does not recreate them");
      for (Pod p : first) {
        Pod held = pods.withName(p.getMetadata().getName()).get();
        assertTrue(
            held != null && "Running".equals(held.getStatus().getPhase()),
            "the old pod is still held Running after the resume: " + held);
        Edits.edit(
            pods.withName(p.getMetadata().getName()),
            q -> {
              q.getMetadata().getLabels().put("trainyard.dev/kwok-on-delete", "fail");
              return q;
            });
      }
      Eventually.await(
          "old pods Failed with exit code 143",
          TIMEOUT,
          () ->
              first.stream()
                  .allMatch(
                      p -> {
                        Pod now = pods.withName(p.getMetadata().getName()).get();
                        return now != null && "Failed".equals(now.getStatus().getPhase());
                      }));
      Pod ended = pods.withName(first.get(0).getMetadata().getName()).get();
      System.out.println(
          "KueueLateExitIT: old pod ended after the resume: "
              + ended.getStatus().getContainerStatuses().stream()
                  .map(c -> c.getName() + "=" + c.getState().getTerminated().getExitCode())
                  .toList()
              + ", conditions "
              + conditions(ended));
      Eventually.await(
          "low run Completed or Failed",
          TIMEOUT,
          () ->
              states.record()
                  && (JobSets.hasCondition(low.get(), "Completed")
                      || JobSets.hasCondition(low.get(), "Failed")),
          () -> JobSets.describe(low.get()) + "; states " + states.seen);
      GenericKubernetesResource done = low.get();
      System.out.println(
          "KueueLateExitIT: low run states "
              + states.seen
              + "; "
              + JobSets.describe(done)
              + "; jobs "
              + jobConditions(cluster, lowNs, name));
      assertFalse(
          JobSets.hasCondition(done, "Failed"),
          "a pod stopped by the suspension failed the run: "
              + JobSets.describe(done)
              + "; jobs "
              + jobConditions(cluster, lowNs, name));
      assertEquals(0, JobSets.restartsCountTowardsMax(done), JobSets.describe(done));
      assertTrue(
          states.seen.stream().noneMatch(s -> s.startsWith(Phase.FAILED + " ")),
          "never shown failed: " + states.seen);
    } finally {
      release(cluster, lowNs);
    }
  }

  /** Removes this test's finalizer from every pod in {@code namespace}. */
  static void release(KubeCluster cluster, String namespace) {
    for (Pod p : cluster.client().pods().inNamespace(namespace).list().getItems()) {
      if (!p.getMetadata().getFinalizers().contains(KEEP)) {
        continue;
      }
      try {
        Edits.edit(
            cluster.client().pods().inNamespace(namespace).withName(p.getMetadata().getName()),
            q -> {
              q.getMetadata().getFinalizers().remove(KEEP);
              return q;
            });
      } catch (KubernetesClientException e) {
        if (e.getCode() != 404) {
          throw e;
        }
      }
    }
  }

  static List<Job> jobs(KubeCluster cluster, String namespace, String jobSet) {
    return cluster
        .client()
        .batch()
        .v1()
        .jobs()
        .inNamespace(namespace)
        .withLabel(JobSets.NAME_LABEL, jobSet)
        .list()
        .getItems();
  }

  static Map<String, String> jobUids(KubeCluster cluster, String namespace, String jobSet) {
    return jobs(cluster, namespace, jobSet).stream()
        .collect(Collectors.toMap(j -> j.getMetadata().getName(), j -> j.getMetadata().getUid()));
  }

  static boolean jobsResumed(KubeCluster cluster, String namespace, String jobSet) {
    List<Job> jobs = jobs(cluster, namespace, jobSet);
    return !jobs.isEmpty()
        && jobs.stream()
            .allMatch(
                j ->
                    !Boolean.TRUE.equals(j.getSpec().getSuspend())
                        && j.getStatus() != null
                        && j.getStatus().getConditions().stream()
                            .anyMatch(
                                c ->
                                    "Suspended".equals(c.getType())
                                        && "False".equals(c.getStatus())));
  }

  static String jobConditions(KubeCluster cluster, String namespace, String jobSet) {
    return jobs(cluster, namespace, jobSet).stream()
        .map(
            j ->
                j.getMetadata().getName()
                    + " "
                    + (j.getStatus() == null
                        ? "[]"
                        : j.getStatus().getConditions().stream()
                            .map(
                                c ->
                                    c.getType()
                                        + "="
                                        + c.getStatus()
                                        + " "
                                        + c.getReason()
                                        + " \""
                                        + c.getMessage()
                                        + "\"")
                            .toList()))
        .collect(Collectors.joining("; "));
  }

  static String conditions(Pod pod) {
    return pod.getStatus().getConditions().stream()
        .map(c -> c.getType() + "=" + c.getStatus())
        .toList()
        .toString();
  }
}
