package dev.trainyard.controller.state;

import java.util.List;
import java.util.Set;

/**
 * What a starting run is busy with, in the order a pod goes through it: waiting for a node (unscheduled),
 * cloning code and setting up (init containers), pulling images and creating containers (waiting
 * ContainerCreating or PodInitializing), then waiting for the remaining nodes.
 */
final class StartProgress {

    private static final Set<String> CREATING = Set.of("ContainerCreating", "PodInitializing");

    private StartProgress() {
    }

    /** One phrase for the slowest pod's step, e.g. "cloning code (init container git-clone)". */
    static String describe(List<PodSnapshot> pods, int expected) {
        if (pods.isEmpty()) {
            return "no pods yet";
        }
        long unscheduled = pods.stream().filter(p -> p.node().isEmpty()).count();
        if (unscheduled > 0) {
            return "waiting for nodes (" + unscheduled + " pods unscheduled)";
        }
        for (PodSnapshot pod : pods) {
            for (ContainerSnapshot c : pod.initContainers()) {
                if (c.status() != ContainerSnapshot.Status.TERMINATED) {
                    return "cloning code and setting up (init container " + c.name() + ")";
                }
            }
        }
        boolean creating = pods.stream().flatMap(p -> p.containers().stream())
                .anyMatch(c -> c.status() == ContainerSnapshot.Status.WAITING && CREATING.contains(c.reason()));
        if (creating || pods.stream().anyMatch(p -> p.containers().isEmpty())) {
            return "pulling images";
        }
        return pods.size() < expected ? "waiting for " + (expected - pods.size()) + " more pods" : "waiting for readiness";
    }
}
