package dev.trainyard.controller;

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
import java.util.stream.Collectors;

/**
 * Runs from what list calls returned (for {@code trainyard status} and {@code logs}): each JobSet carrying a
 * source commit, with the pods its JobSet name label names and the Workload it owns (a Workload being deleted
 * still counts here, as a list shows it), snapshotted as the controller's caches are.
 */
final class ListedRuns {

    private ListedRuns() {
    }

    /** The runs among {@code jobSets}, observed at {@code now}, sorted by namespace and run name. */
    static List<ObservedRun> assemble(List<GenericKubernetesResource> jobSets, List<Pod> pods,
            List<GenericKubernetesResource> workloads, Instant now) {
        Map<RunKey, List<PodSnapshot>> podsByRun = pods.stream()
                .filter(p -> RunKeys.ofPod(p).isPresent())
                .collect(Collectors.groupingBy(p -> RunKeys.ofPod(p).get(),
                        Collectors.mapping(Snapshots::pod, Collectors.toList())));
        Map<RunKey, GenericKubernetesResource> workloadByRun = workloads.stream()
                .filter(w -> RunKeys.owner(w).isPresent())
                .collect(Collectors.toMap(w -> RunKeys.owner(w).get(), w -> w, (a, b) -> a));
        return jobSets.stream().filter(RunKeys::hasCommit).map(js -> {
            RunKey key = RunKeys.ofJobSet(js).orElseThrow();
            RunProvenance p = RunProvenance.of(js.getMetadata().getAnnotations(), js.getMetadata().getLabels(),
                    js.getMetadata().getName()).orElseThrow();
            Optional<WorkloadSnapshot> wl = Optional.ofNullable(workloadByRun.get(key)).map(Snapshots::workload);
            return new ObservedRun(key, p, new RunObservation(Snapshots.jobSet(js),
                    podsByRun.getOrDefault(key, List.of()), wl, now));
        }).sorted(Comparator.comparing((ObservedRun r) -> r.key().namespace()).thenComparing(r -> r.provenance().run()))
                .toList();
    }
}
