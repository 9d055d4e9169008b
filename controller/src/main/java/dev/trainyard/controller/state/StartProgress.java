package dev.trainyard.controller.state;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What a starting run is busy with, in the order a pod goes through it: waiting for a node (not
 * created yet, since the Job controller creates pods one by one and JobSet's InOrder start-up holds
 * the workers until the launcher is ready, or unscheduled), cloning code and setting up (init
 * containers), pulling images and creating containers (waiting ContainerCreating or
 * PodInitializing), then waiting for readiness. The slowest pod's step is named and carries no live
 * count, so while the pods move forward the phrase only moves forward too and a commit status is
 * never posted again with a phrase it already showed.
 */
final class StartProgress {

  private static final Set<String> CREATING = Set.of("ContainerCreating", "PodInitializing");

  private StartProgress() {}

  /**
   * One phrase for the slowest pod's step, e.g. "cloning code (init container git-clone)"; no pod
   * counts, so the phrase changes only when the step does (a count would be posted at every pod).
   * An unscheduled pod gives the scheduler's own reason, its PodScheduled=False message up to the
   * preemption note, e.g. {@code waiting for nodes: 0/3 nodes are available: persistentvolumeclaim
   * "ddp-snapshots" not found}.
   */
  static String describe(List<PodSnapshot> pods, int expected) {
    if (pods.isEmpty()) {
      return "no pods yet";
    }
    // A missing pod is waiting for a node too: pods are created one by one, and "waiting for the
    // other pods"
    // between two "waiting for nodes" would post the same step twice. So the step only moves
    // forward.
    if (pods.size() < expected || pods.stream().anyMatch(p -> p.node().isEmpty())) {
      return "waiting for nodes" + schedulerReason(pods).map(r -> ": " + r).orElse("");
    }
    for (PodSnapshot pod : pods) {
      for (ContainerSnapshot c : pod.initContainers()) {
        if (c.status() != ContainerSnapshot.Status.TERMINATED) {
          return "cloning code and setting up (init container " + c.name() + ")";
        }
      }
    }
    boolean creating =
        pods.stream()
            .flatMap(p -> p.containers().stream())
            .anyMatch(
                c ->
                    c.status() == ContainerSnapshot.Status.WAITING
                        && CREATING.contains(c.reason()));
    if (creating || pods.stream().anyMatch(p -> p.containers().isEmpty())) {
      return "pulling images";
    }
    return "waiting for readiness";
  }

  /**
   * The first unscheduled pod's (by name) PodScheduled=False message, without the scheduler's
   * preemption note.
   */
  static Optional<String> schedulerReason(List<PodSnapshot> pods) {
    return pods.stream()
        .filter(p -> p.node().isEmpty())
        .sorted(Comparator.comparing(PodSnapshot::name))
        .map(
            p ->
                ConditionSnapshot.find(p.conditions(), "PodScheduled")
                    .filter(c -> !c.isTrue())
                    .map(ConditionSnapshot::message)
                    .filter(m -> !m.isBlank()))
        .flatMap(Optional::stream)
        .findFirst()
        .map(m -> m.replaceFirst("\\s*preemption:.*$", "").replaceFirst("\\.$", "").strip());
  }
}
