package dev.trainyard.controller.state;

import java.util.List;
import java.util.Set;

/**
 * What a starting run is busy with, in the order a pod goes through it: not created yet (the Job controller
 * creates pods one by one, and JobSet's InOrder start-up holds the workers until the launcher is ready),
 * waiting for a node (unscheduled), cloning code and setting up (init containers), pulling images and
 * creating containers (waiting ContainerCreating or PodInitializing), then waiting for readiness. The
 * slowest pod's step is named, so while the pods move forward the phrase only moves forward too and a
 * commit status is never posted again with a phrase it already showed (a missing pod checked last made
 * "pulling images" of the first pod come before "waiting for nodes" of the second).
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
        if (pods.size() < expected) {
            return "waiting for " + (expected - pods.size()) + " more pods";
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
        return "waiting for readiness";
    }
}
