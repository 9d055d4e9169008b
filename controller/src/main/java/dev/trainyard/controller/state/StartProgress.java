package dev.trainyard.controller.state;

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
   * preemption note, e.g. {@code waiting for nodes: persistentvolumeclaim "ddp-snapshots" not
   * found} ({@link #schedulerReason}).
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
   * The first unscheduled pod's (lowest index) PodScheduled=False message, without what changes
   * while pods are placed one by one: the scheduler's node counts ("0/4 nodes are available: 1
   * Insufficient cpu, 3 node(s) had untolerated taint {gpu: }" → "Insufficient cpu, node(s) had
   * untolerated taint {gpu: }"), its preemption note and the "no new claims to deallocate" note
   * before it (kube-scheduler's FitError: "%d/%d nodes are available: %s." then the PostFilter's
   * message), and the punctuation they leave, so the text never ends in ",".
   */
  static Optional<String> schedulerReason(List<PodSnapshot> pods) {
    return pods.stream()
        .filter(p -> p.node().isEmpty())
        .sorted(PodOrder.EVIDENCE)
        .map(
            p ->
                ConditionSnapshot.find(p.conditions(), "PodScheduled")
                    .filter(c -> !c.isTrue())
                    .map(ConditionSnapshot::message))
        .flatMap(Optional::stream)
        .map(StartProgress::withoutCounts)
        .filter(m -> !m.isEmpty())
        .findFirst();
  }

  /** The scheduler's reasons without node counts, preemption note and trailing punctuation. */
  static String withoutCounts(String message) {
    String m =
        message
            .lines()
            .findFirst()
            .orElse("")
            .replaceFirst("(?i)[\\s.,;]*preemption:.*$", "")
            .replaceFirst("(?i)[\\s.,;]*no new claims to deallocate.*$", "")
            .replaceFirst("^\\s*\\d+/\\d+ nodes are available:\\s*", "")
            .replaceAll("(^|,\\s*)\\d+ ", "$1");
    return m.replaceFirst("[\\s.,;:]+$", "").strip();
  }
}
