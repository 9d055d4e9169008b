package dev.trainyard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failure handling through the real controllers: pods labelled {@code
 * trainyard.dev/kwok-outcome=fail} are ended with exit code 1 by this module's kwok Stage ({@code
 * kwok/pod-fail-stage.yaml}); with {@code backoffLimit: 0} the Job fails, and the JobSet controller
 * applies {@code failurePolicy} (no rules: every failure is RestartJobSet until {@code
 * maxRestarts}, then condition Failed with reason ReachedMaxRestarts; jobset
 * pkg/controllers/failure_policy.go).
 *
 * <p>The compiled policy (golden {@code torch-minimal}, 2 node pods, as the compiler emits it) is
 * run through the same controllers: a timeout, an eviction through the Eviction API (the API server
 * adds the pod condition {@code DisruptionTarget}; kwok's {@code trainyard-pod-kubelet-terminated}
 * stage ends the pod as the kubelet would) and a user's exit code: one rank's exit fails the Job at
 * once (pod failure policy {@code FailJob}), which stops the other pods, and the run (issue #19).
 * The race a single Job cannot settle (a survivor of an evicted pod exiting first) is settled by
 * the pods' own wait ({@code render.ExitGrace}, {@code PeerExitTest}); here the test plays the
 * pods' part, exiting the survivor after its peer's failure.
 */
@ExtendWith(KubeClusterExtension.class)
class FailurePolicyIT {

  static final int MAX_RESTARTS = 2;
  static final Duration FAIL_TIMEOUT = Duration.ofSeconds(180);
  static final String COMPILED = "torch-minimal";

  /** Longer than any test here waits: compiled pods stay Running until the test acts. */
  static final String RUN_FOR = "600s";

  static final long DEADLINE_SECONDS = 4;
  static final Duration HELD_FOR = Duration.ofSeconds(5);
  static final String COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index";

  @Test
  @DisplayName(
      "a JobSet whose pods always fail restarts maxRestarts times, then turns Failed (ReachedMaxRestarts)")
  void restartsUpToMaxRestartsThenFails(KubeCluster cluster) {
    String namespace = cluster.newNamespace();
    GenericKubernetesResource jobSet = JobSets.minimal("always-fails", "node", 1, 2);
    JobSets.labelPods(jobSet, "trainyard.dev/kwok-outcome", "fail");
    JobSets.setMaxRestarts(jobSet, MAX_RESTARTS);
    Manifests manifests = new Manifests(cluster.client());
    manifests.apply(manifests.placed(jobSet, namespace));

    var stored = JobSets.api(cluster.client()).inNamespace(namespace).withName("always-fails");
    Eventually.await(
        "JobSet always-fails Failed",
        FAIL_TIMEOUT,
        () -> JobSets.hasCondition(stored.get(), "Failed"),
        () -> JobSets.describe(stored.get()));
    GenericKubernetesResource failed = stored.get();
    assertEquals(
        MAX_RESTARTS, JobSets.restarts(failed), "status.restarts; " + JobSets.describe(failed));
    assertEquals(
        "ReachedMaxRestarts", JobSets.conditionReason(failed, "Failed"), JobSets.describe(failed));
  }

  @Test
  @DisplayName("compiled policy: a timeout (DeadlineExceeded) fails the run without a restart")
  void compiledDeadlineFailsWithoutRestart(KubeCluster cluster) {
    String namespace = cluster.newNamespace();
    GenericKubernetesResource jobSet = compiledJobSet("slow");
    JobSets.setActiveDeadlineSeconds(jobSet, DEADLINE_SECONDS);
    var stored = apply(cluster, namespace, jobSet);
    awaitFailed(stored);
    GenericKubernetesResource failed = stored.get();
    assertEquals(0, JobSets.restarts(failed), "status.restarts; " + JobSets.describe(failed));
    assertEquals(
        "FailJobSetFailurePolicyAction",
        JobSets.conditionReason(failed, "Failed"),
        JobSets.describe(failed));
    assertEquals("DeadlineExceeded", jobFailureReason(cluster, namespace, failed));
  }

  @Test
  @DisplayName(
      "compiled policy: an evicted pod (Eviction API, DisruptionTarget) restarts the run and counts against retries")
  void compiledEvictionRestartsAndCounts(KubeCluster cluster) {
    String namespace = cluster.newNamespace();
    GenericKubernetesResource jobSet = compiledJobSet("slow");
    JobSets.setMaxRestarts(jobSet, 1);
    var stored = apply(cluster, namespace, jobSet);
    String name = stored.get().getMetadata().getName();
    evictOnePod(cluster, namespace, name, 0);
    Eventually.await(
        "JobSet " + name + " restarted once",
        FAIL_TIMEOUT,
        () -> JobSets.restarts(stored.get()) == 1,
        () -> JobSets.describe(stored.get()));
    assertEquals(1, JobSets.restartsCountTowardsMax(stored.get()), JobSets.describe(stored.get()));
    assertTrue(
        !JobSets.hasCondition(stored.get(), "Failed"),
        "a disruption must not fail the run; " + JobSets.describe(stored.get()));
    evictOnePod(cluster, namespace, name, 1);
    awaitFailed(stored);
    GenericKubernetesResource failed = stored.get();
    assertEquals(
        "ReachedMaxRestarts", JobSets.conditionReason(failed, "Failed"), JobSets.describe(failed));
    assertEquals(
        1,
        JobSets.restarts(failed),
        "the second eviction found retries used up; " + JobSets.describe(failed));
  }

  @Test
  @DisplayName(
      "compiled policy, single-Job race: an evicted pod fails the Job first and its survivor's exit 1 comes after (the pods' own wait while a peer refuses) → the run restarts, counted against retries")
  void compiledSurvivorExitAfterDisruptionRestarts(KubeCluster cluster) {
    String namespace = cluster.newNamespace();
    GenericKubernetesResource jobSet = compiledJobSet("slow");
    JobSets.setMaxRestarts(jobSet, 1);
    var stored = apply(cluster, namespace, jobSet);
    String name = stored.get().getMetadata().getName();
    List<Pod> pods = runningPods(cluster, namespace, name, 0);
    evict(cluster, namespace, pods.get(0));
    // The survivor exits as soon as the evicted pod's failure is on record: the tightest its script
    // allows
    // (it waits ExitGrace's 45 s after its own failure while that peer refuses, or until it is
    // deleted).
    Eventually.await(
        "the evicted pod's Job failure recorded",
        FAIL_TIMEOUT,
        () ->
            jobFailure(cluster, namespace, name).contains("DisruptionTarget")
                || JobSets.restarts(stored.get()) > 0);
    boolean exited = RunPods.exit1UnlessGone(cluster, namespace, pods.get(1));
    Eventually.await(
        "JobSet " + name + " restarted once",
        FAIL_TIMEOUT,
        () -> JobSets.restarts(stored.get()) == 1,
        () -> JobSets.describe(stored.get()));
    GenericKubernetesResource restarted = stored.get();
    System.out.println("FailurePolicyIT: survivor's exit 1 recorded before the restart: " + exited);
    assertEquals(1, JobSets.restartsCountTowardsMax(restarted), JobSets.describe(restarted));
    assertTrue(
        !JobSets.hasCondition(restarted, "Failed"),
        "the disruption must restart the run; " + JobSets.describe(restarted));
  }

  @Test
  @DisplayName(
      "why the pods wait: without it, a survivor's exit 1 recorded before its evicted peer's failure would fail the run (the first FailJob is final)")
  void survivorExitFirstWouldFailTheRun(KubeCluster cluster) {
    String namespace = cluster.newNamespace();
    var stored = apply(cluster, namespace, compiledJobSet("slow"));
    String name = stored.get().getMetadata().getName();
    List<Pod> pods = runningPods(cluster, namespace, name, 0);
    endWithExitCode1(cluster, namespace, pods.get(1));
    awaitFailed(stored);
    assertEquals(
        "FailJobSetFailurePolicyAction",
        JobSets.conditionReason(stored.get(), "Failed"),
        JobSets.describe(stored.get()));
  }

  @Test
  @DisplayName(
      "issue #19: one rank of a 4-node run exits 1 at start → the Job fails at once naming that pod and code, the other 3 pods are stopped, and the run fails with no restart within a minute")
  void oneRankOfFourFailsTheRunWithinAMinute(KubeCluster cluster, @TempDir Path temp) {
    String namespace = cluster.newNamespace();
    CompiledExample four =
        CompiledExample.compileTrainYaml("four-nodes", "nodes: 4\nrun: torchrun train.py\n", temp);
    GenericKubernetesResource jobSet = RunPods.held(four);
    var stored = RunPods.apply(cluster, namespace, four, jobSet);
    String name = stored.get().getMetadata().getName();
    List<Pod> pods = RunPods.running(cluster, namespace, name, "node", 0, 4);
    Pod crashed = pods.get(2);
    Instant exit = Instant.now();
    endWithExitCode1(cluster, namespace, crashed);
    awaitFailed(stored);
    Duration failedAfter = Duration.between(exit, Instant.now());
    awaitPodsGone(cluster, namespace, name, crashed.getMetadata().getName());
    Duration goneAfter = Duration.between(exit, Instant.now());
    System.out.println(
        "FailurePolicyIT: 4-node run, rank 2 exit 1 → JobSet Failed after "
            + failedAfter.toMillis()
            + " ms, the other 3 pods gone after "
            + goneAfter.toMillis()
            + " ms");
    GenericKubernetesResource failed = stored.get();
    assertTrue(
        JobSets.restarts(failed) == 0 && maxRestarts(failed) > 0,
        "restarts 0 of " + maxRestarts(failed) + "; " + JobSets.describe(failed));
    assertEquals(
        "FailJobSetFailurePolicyAction",
        JobSets.conditionReason(failed, "Failed"),
        JobSets.describe(failed));
    assertEquals("PodFailurePolicy", jobFailureReason(cluster, namespace, failed));
    String message = jobFailure(cluster, namespace, name);
    assertTrue(
        message.endsWith(
            "Container node for pod "
                + namespace
                + "/"
                + crashed.getMetadata().getName()
                + " failed with exit code 1 matching FailJob rule at index 1"),
        "the Job names the rank and its code: " + message);
    assertTrue(
        failedAfter.compareTo(Duration.ofSeconds(60)) < 0,
        "the run must fail within a minute, took " + failedAfter.toMillis() + " ms");
  }

  @Test
  @DisplayName(
      "compiled policy: a user's non-zero exit code fails the run at once, with retries left")
  void compiledUserExitFailsAtOnce(KubeCluster cluster) {
    String namespace = cluster.newNamespace();
    GenericKubernetesResource jobSet = compiledJobSet("fail");
    var stored = apply(cluster, namespace, jobSet);
    awaitFailed(stored);
    GenericKubernetesResource failed = stored.get();
    assertTrue(
        JobSets.restarts(failed) == 0 && maxRestarts(failed) > 0,
        "restarts 0 of " + maxRestarts(failed) + "; " + JobSets.describe(failed));
    assertEquals(
        "FailJobSetFailurePolicyAction",
        JobSets.conditionReason(failed, "Failed"),
        JobSets.describe(failed));
    assertEquals("PodFailurePolicy", jobFailureReason(cluster, namespace, failed));
  }

  /**
   * The compiled JobSet, unqueued, its pods ending by kwok {@code outcome} and failing when
   * deleted.
   */
  static GenericKubernetesResource compiledJobSet(String outcome) {
    GenericKubernetesResource jobSet =
        new Manifests(null)
            .loadTree(JobSetLifecycleIT.goldenRun(COMPILED)).stream()
                .filter(o -> "JobSet".equals(o.getKind()))
                .findFirst()
                .orElseThrow();
    JobSets.unqueue(jobSet);
    JobSets.labelPods(jobSet, "trainyard.dev/kwok-outcome", outcome);
    JobSets.labelPods(jobSet, "trainyard.dev/kwok-on-delete", "fail");
    JobSets.annotatePods(jobSet, "trainyard.dev/kwok-run-for", RUN_FOR);
    return jobSet;
  }

  static Resource<GenericKubernetesResource> apply(
      KubeCluster cluster, String namespace, GenericKubernetesResource jobSet) {
    Manifests manifests = new Manifests(cluster.client());
    manifests.apply(manifests.placed(jobSet, namespace));
    return JobSets.api(cluster.client())
        .inNamespace(namespace)
        .withName(jobSet.getMetadata().getName());
  }

  static void awaitFailed(Resource<GenericKubernetesResource> stored) {
    Eventually.await(
        "JobSet Failed",
        FAIL_TIMEOUT,
        () -> JobSets.hasCondition(stored.get(), "Failed"),
        () -> JobSets.describe(stored.get()));
  }

  /**
   * Waits until both pods of restart {@code attempt} run, then evicts one through the Eviction API.
   */
  static void evictOnePod(KubeCluster cluster, String namespace, String jobSet, int attempt) {
    evict(cluster, namespace, runningPods(cluster, namespace, jobSet, attempt).get(0));
  }

  static void evict(KubeCluster cluster, String namespace, Pod victim) {
    assertTrue(
        cluster
            .client()
            .pods()
            .inNamespace(namespace)
            .withName(victim.getMetadata().getName())
            .evict(),
        "eviction of " + victim.getMetadata().getName() + " refused");
  }

  /**
   * Waits until both pods of restart {@code attempt} have run for {@link #HELD_FOR}; sorted by
   * completion index.
   */
  static List<Pod> runningPods(KubeCluster cluster, String namespace, String jobSet, int attempt) {
    var pods =
        cluster
            .client()
            .pods()
            .inNamespace(namespace)
            .withLabel(JobSets.NAME_LABEL, jobSet)
            .withLabel("jobset.sigs.k8s.io/restart-attempt", Integer.toString(attempt));
    Eventually.await(
        "2 running pods of attempt " + attempt,
        FAIL_TIMEOUT,
        () ->
            pods.list().getItems().stream()
                    .filter(
                        p ->
                            "Running".equals(p.getStatus().getPhase())
                                && p.getMetadata().getDeletionTimestamp() == null)
                    .count()
                == 2);
    Eventually.sleep(HELD_FOR);
    return pods.list().getItems().stream()
        .sorted(Comparator.comparing(p -> p.getMetadata().getAnnotations().get(COMPLETION_INDEX)))
        .toList();
  }

  /**
   * Relabels a running pod so kwok's {@code trainyard-pod-fail} stage ends it (exit code 1), as a
   * rank that lost its peer ends, and waits until it is Failed.
   */
  static void endWithExitCode1(KubeCluster cluster, String namespace, Pod pod) {
    var stored =
        cluster.client().pods().inNamespace(namespace).withName(pod.getMetadata().getName());
    Edits.edit(
        stored,
        p -> {
          p.getMetadata().getLabels().put("trainyard.dev/kwok-outcome", "fail");
          return p;
        });
    Eventually.await(
        "pod " + pod.getMetadata().getName() + " Failed",
        FAIL_TIMEOUT,
        () -> "Failed".equals(stored.get().getStatus().getPhase()));
  }

  /**
   * Waits until no pod of the JobSet is left but the {@code kept} ones (a failed rank's pod stays,
   * Failed, while its Job exists), and none of those runs: the Job's failure stopped the others.
   */
  static void awaitPodsGone(KubeCluster cluster, String namespace, String jobSet, String... kept) {
    var pods = cluster.client().pods().inNamespace(namespace).withLabel(JobSets.NAME_LABEL, jobSet);
    Set<String> keep = Set.of(kept);
    Eventually.await(
        "the pods of " + jobSet + " gone (but " + keep + ")",
        FAIL_TIMEOUT,
        () ->
            pods.list().getItems().stream()
                .allMatch(
                    p ->
                        keep.contains(p.getMetadata().getName())
                            && !"Running".equals(p.getStatus().getPhase())),
        () ->
            pods.list().getItems().stream()
                .map(p -> p.getMetadata().getName() + " " + p.getStatus().getPhase())
                .toList()
                .toString());
  }

  /**
   * "type/reason: message" of the first FailureTarget or Failed condition of the JobSet's Jobs, or
   * "(none)".
   */
  static String jobFailure(KubeCluster cluster, String namespace, String jobSet) {
    return cluster
        .client()
        .batch()
        .v1()
        .jobs()
        .inNamespace(namespace)
        .withLabel(JobSets.NAME_LABEL, jobSet)
        .list()
        .getItems()
        .stream()
        .flatMap(j -> j.getStatus().getConditions().stream())
        .filter(
            c ->
                ("FailureTarget".equals(c.getType()) || "Failed".equals(c.getType()))
                    && "True".equals(c.getStatus()))
        .map(c -> c.getType() + "/" + c.getReason() + ": " + c.getMessage())
        .findFirst()
        .orElse("(none)");
  }

  /** The reason of the Failed condition of the JobSet's child Job (there is one per attempt). */
  static String jobFailureReason(
      KubeCluster cluster, String namespace, GenericKubernetesResource jobSet) {
    List<Job> jobs =
        cluster
            .client()
            .batch()
            .v1()
            .jobs()
            .inNamespace(namespace)
            .withLabel(JobSets.NAME_LABEL, jobSet.getMetadata().getName())
            .list()
            .getItems();
    return jobs.stream()
        .flatMap(j -> j.getStatus().getConditions().stream())
        .filter(c -> "Failed".equals(c.getType()) && "True".equals(c.getStatus()))
        .map(c -> c.getReason())
        .findFirst()
        .orElse("(no failed Job among " + jobs.size() + ")");
  }

  @SuppressWarnings("unchecked")
  static int maxRestarts(GenericKubernetesResource jobSet) {
    Object fp =
        ((Map<String, Object>) jobSet.getAdditionalProperties().get("spec")).get("failurePolicy");
    Object max = fp instanceof Map<?, ?> m ? m.get("maxRestarts") : null;
    return max instanceof Number n ? n.intValue() : 0;
  }
}
