package dev.trainyard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Real lifecycle (tier T3): the fixtures run through the JobSet controller, the Job controller in
 * kube-controller-manager, kube-scheduler and kwok's fast stages (pods become Running, then
 * Succeeded) until the JobSet reports condition {@code Completed}. Hostnames follow {@code
 * <js>-<rjob>-<jobIdx>-<podIdx>} with subdomain {@code <js>} (jobset docs "DNS hostnames for
 * Pods").
 */
@ExtendWith(KubeClusterExtension.class)
class JobSetLifecycleIT {

  static final Duration RUN_TIMEOUT = Duration.ofSeconds(120);
  static final Duration HELD_FOR = Duration.ofSeconds(6);
  static final String MPI_RUN = "mpi-launcher/expected/clusters/dev/team-a/allreduce-91bd04";

  /**
   * The compiler's own output for a 2-node torch job and a 2-node MPI job with a separate launcher.
   */
  static final String TORCH_GOLDEN = "torch-minimal";

  static final String MPI_GOLDEN = "mpi-separate-launcher";

  @Test
  @DisplayName("the compiled torch example's 2 node pods run and the JobSet reaches Completed")
  void torchRunCompletes(KubeCluster cluster) {
    String namespace = cluster.newNamespace();
    GenericKubernetesResource jobSet = applyJobSet(cluster, namespace, goldenRun(TORCH_GOLDEN));
    awaitCompleted(cluster, namespace, jobSet.getMetadata().getName());
    List<Pod> pods = pods(cluster, namespace, jobSet.getMetadata().getName());
    assertEquals(2, pods.size(), "node pods");
    pods.forEach(pod -> assertHostname(pod, jobSet.getMetadata().getName()));
  }

  @Test
  @DisplayName(
      "the compiled MPI job completes, and its launcher Job is created only after the node Job is Ready")
  void mpiLauncherWaitsForReadyNodes(KubeCluster cluster) {
    String namespace = cluster.newNamespace();
    Manifests manifests = new Manifests(cluster.client());
    Path run = goldenRun(MPI_GOLDEN);
    manifests.loadTree(run).stream()
        .filter(o -> !"JobSet".equals(o.getKind()))
        .forEach(o -> manifests.apply(manifests.placed(o, namespace)));
    GenericKubernetesResource jobSet = applyJobSet(cluster, namespace, run);
    String name = jobSet.getMetadata().getName();
    awaitCompleted(cluster, namespace, name);
    Job nodeJob =
        cluster
            .client()
            .batch()
            .v1()
            .jobs()
            .inNamespace(namespace)
            .withName(name + "-node-0")
            .get();
    Job launcherJob =
        cluster
            .client()
            .batch()
            .v1()
            .jobs()
            .inNamespace(namespace)
            .withName(name + "-launcher-0")
            .get();
    Instant nodesReady =
        latestPodStart(
            pods(cluster, namespace, name).stream()
                .filter(p -> "node".equals(p.getMetadata().getLabels().get(JobSets.RJOB_LABEL)))
                .toList());
    Instant launcherCreated = Instant.parse(launcherJob.getMetadata().getCreationTimestamp());
    assertFalse(
        launcherCreated.isBefore(nodesReady),
        "launcher Job created "
            + launcherCreated
            + " before node pods were running at "
            + nodesReady);
    assertTrue(
        Instant.parse(nodeJob.getMetadata().getCreationTimestamp()).compareTo(launcherCreated) <= 0,
        "node Job must be created first");
    pods(cluster, namespace, name).forEach(pod -> assertHostname(pod, name));
  }

  @Test
  @DisplayName(
      "while the node Job is not Ready (pods unschedulable), the launcher Job is not created")
  void launcherHeldWhileNodesNotReady(KubeCluster cluster) {
    String namespace = cluster.newNamespace();
    Manifests manifests = new Manifests(cluster.client());
    GenericKubernetesResource jobSet =
        manifests.loadTree(fixture(MPI_RUN)).stream()
            .filter(o -> "JobSet".equals(o.getKind()))
            .findFirst()
            .orElseThrow();
    JobSets.unqueue(jobSet);
    JobSets.pinPods(jobSet, "node", "trainyard.dev/no-such-node", "true");
    String name = jobSet.getMetadata().getName();
    manifests.apply(manifests.placed(jobSet, namespace));
    var jobs = cluster.client().batch().v1().jobs().inNamespace(namespace);
    Eventually.await(
        "node Job created", RUN_TIMEOUT, () -> jobs.withName(name + "-node-0").get() != null);
    Eventually.sleep(HELD_FOR);
    assertEquals(
        null,
        jobs.withName(name + "-launcher-0").get(),
        "launcher Job exists although no node pod is Ready");
    assertTrue(
        pods(cluster, namespace, name).stream()
            .allMatch(p -> "Pending".equals(p.getStatus().getPhase())),
        "node pods should all be Pending");
  }

  static GenericKubernetesResource applyJobSet(KubeCluster cluster, String namespace, Path runDir) {
    Manifests manifests = new Manifests(cluster.client());
    GenericKubernetesResource jobSet =
        manifests.loadTree(runDir).stream()
            .filter(o -> "JobSet".equals(o.getKind()))
            .findFirst()
            .orElseThrow();
    JobSets.unqueue(jobSet);
    return manifests.apply(manifests.placed(jobSet, namespace));
  }

  static void awaitCompleted(KubeCluster cluster, String namespace, String name) {
    Eventually.await(
        "JobSet " + namespace + "/" + name + " Completed",
        RUN_TIMEOUT,
        () ->
            JobSets.hasCondition(
                JobSets.api(cluster.client()).inNamespace(namespace).withName(name).get(),
                "Completed"),
        () ->
            JobSets.describe(
                JobSets.api(cluster.client()).inNamespace(namespace).withName(name).get()));
  }

  static List<Pod> pods(KubeCluster cluster, String namespace, String jobSetName) {
    return cluster
        .client()
        .pods()
        .inNamespace(namespace)
        .withLabel(JobSets.NAME_LABEL, jobSetName)
        .list()
        .getItems();
  }

  /** Pod hostname {@code <js>-<rjob>-<jobIdx>-<podIdx>}, subdomain {@code <js>}. */
  static void assertHostname(Pod pod, String jobSetName) {
    String rjob = pod.getMetadata().getLabels().get(JobSets.RJOB_LABEL);
    String jobIndex = pod.getMetadata().getLabels().get(JobSets.JOB_INDEX_LABEL);
    String podIndex = pod.getMetadata().getAnnotations().get(JobSets.COMPLETION_INDEX);
    assertEquals(
        jobSetName + "-" + rjob + "-" + jobIndex + "-" + podIndex,
        pod.getSpec().getHostname(),
        "hostname of " + pod.getMetadata().getName());
    assertEquals(
        jobSetName, pod.getSpec().getSubdomain(), "subdomain of " + pod.getMetadata().getName());
  }

  private static Instant latestPodStart(List<Pod> pods) {
    return pods.stream()
        .map(p -> Instant.parse(p.getStatus().getStartTime()))
        .max(Instant::compareTo)
        .orElseThrow(() -> new AssertionError("no node pods"));
  }

  /** The run folder (the one holding the JobSet) of golden case {@code name}'s expected tree. */
  static Path goldenRun(String name) {
    Path expected =
        OutputTreeCase.golden(K8sBinaries.repoRoot()).stream()
            .filter(c -> c.name().equals("golden/" + name))
            .findFirst()
            .orElseThrow(() -> new AssertionError("golden case " + name + " is missing"))
            .expected();
    try (var walk = Files.walk(expected)) {
      return walk.filter(p -> p.getFileName().toString().startsWith("jobset-"))
          .findFirst()
          .orElseThrow(() -> new AssertionError("no JobSet in " + expected))
          .getParent();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Path fixture(String relative) {
    return OutputTreeCase.fixtures().stream()
        .findFirst()
        .orElseThrow()
        .expected()
        .getParent()
        .getParent()
        .resolve(relative);
  }
}
