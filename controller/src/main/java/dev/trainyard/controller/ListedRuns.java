package dev.trainyard.controller;

import dev.trainyard.controller.state.JobSetSnapshot;
import dev.trainyard.controller.state.PodSnapshot;
import dev.trainyard.controller.state.RunObservation;
import dev.trainyard.controller.state.WorkloadSnapshot;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Runs from what list calls returned (for {@code trainyard status} and {@code logs}): each JobSet
 * carrying a source commit, with the pods its JobSet name label names and the Workload it owns,
 * snapshotted as the controller's caches are ({@link #observation}).
 */
final class ListedRuns {

  private ListedRuns() {}

  /**
   * The runs among {@code jobSets}, observed at {@code now}, sorted by namespace and run name;
   * {@code localQueues} tells whether a LocalQueue ({@code namespace/name}) was in the cluster.
   */
  static List<ObservedRun> assemble(
      List<GenericKubernetesResource> jobSets,
      List<Pod> pods,
      List<GenericKubernetesResource> workloads,
      Predicate<String> localQueues,
      Instant now) {
    Map<RunKey, List<Pod>> podsByRun =
        pods.stream()
            .filter(p -> RunKeys.ofPod(p).isPresent())
            .collect(Collectors.groupingBy(p -> RunKeys.ofPod(p).get()));
    Map<RunKey, List<GenericKubernetesResource>> workloadsByRun =
        workloads.stream()
            .filter(w -> RunKeys.owner(w).isPresent())
            .collect(Collectors.groupingBy(w -> RunKeys.owner(w).get()));
    return jobSets.stream()
        .filter(RunKeys::hasCommit)
        .map(
            js -> {
              RunKey key = RunKeys.ofJobSet(js).orElseThrow();
              RunProvenance p =
                  RunProvenance.of(
                          js.getMetadata().getAnnotations(),
                          js.getMetadata().getLabels(),
                          js.getMetadata().getName())
                      .orElseThrow();
              return new ObservedRun(
                  key,
                  p,
                  observation(
                      js,
                      podsByRun.getOrDefault(key, List.of()),
                      workloadsByRun.getOrDefault(key, List.of()),
                      localQueues,
                      now));
            })
        .sorted(
            Comparator.comparing((ObservedRun r) -> r.key().namespace())
                .thenComparing(r -> r.provenance().run()))
        .toList();
  }

  /**
   * One run's observation from its JobSet, its pods and the Workloads it owns: the first Workload
   * not being deleted (Kueue re-creates a Workload after an eviction; the one going away is
   * history), with whether {@code localQueues} holds the JobSet's LocalQueue ({@code
   * namespace/name}; {@link WorkloadSnapshot#localQueueExists}). The controller's caches and the
   * list calls both build it here, so the PR check and {@code trainyard status} agree.
   */
  static RunObservation observation(
      GenericKubernetesResource jobSet,
      List<Pod> pods,
      List<GenericKubernetesResource> workloads,
      Predicate<String> localQueues,
      Instant now) {
    JobSetSnapshot js = Snapshots.jobSet(jobSet);
    boolean queueExists =
        !js.localQueue().isEmpty()
            && localQueues.test(jobSet.getMetadata().getNamespace() + "/" + js.localQueue());
    Optional<WorkloadSnapshot> workload =
        workloads.stream()
            .filter(w -> w.getMetadata().getDeletionTimestamp() == null)
            .map(Snapshots::workload)
            .map(w -> w.withLocalQueueExists(queueExists))
            .findFirst();
    List<PodSnapshot> snapshots = pods.stream().map(Snapshots::pod).toList();
    return new RunObservation(js, snapshots, workload, now);
  }
}
