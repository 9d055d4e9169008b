package dev.trainyard.controller.state;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Everything known about one run at instant {@code now}: its JobSet, the pods carrying its JobSet's name
 * (all attempts; the mapper picks the current one) and its Kueue Workload when there is one. Built by the
 * controller from informer caches and by {@code trainyard status} from a list call; no Kubernetes client
 * types cross this boundary.
 */
public record RunObservation(JobSetSnapshot jobSet, List<PodSnapshot> pods, Optional<WorkloadSnapshot> workload,
        Instant now) {

    public RunObservation {
        pods = List.copyOf(pods);
    }
}
