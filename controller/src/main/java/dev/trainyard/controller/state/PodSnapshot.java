package dev.trainyard.controller.state;

import java.time.Instant;
import java.util.List;

/**
 * One pod of a run as read from the API: {@code name}, {@code node} (spec.nodeName, "" when
 * unscheduled), {@code phase} (Pending|Running|Succeeded|Failed|Unknown), the pod-level {@code
 * reason} (e.g. Evicted, DeadlineExceeded, NodeLost; "" when absent), the JobSet restart {@code
 * attempt} it belongs to (label {@code jobset.sigs.k8s.io/restart-attempt}, 0 when absent), whether
 * its Ready condition is True, whether it is being deleted, its start time (null before it
 * started), its init and main container statuses, its conditions (e.g. DisruptionTarget,
 * PodScheduled) and whether it runs ranks ({@code runsRanks}: false for an MPI launcher, whose pod
 * carries the compiled annotation {@code trainyard.dev/runs-ranks: "false"}; it is no node, but its
 * failure is the run's).
 */
public record PodSnapshot(
    String name,
    String node,
    String phase,
    String reason,
    int attempt,
    boolean ready,
    boolean deleting,
    Instant started,
    List<ContainerSnapshot> initContainers,
    List<ContainerSnapshot> containers,
    List<ConditionSnapshot> conditions,
    boolean runsRanks) {

  public PodSnapshot {
    node = node == null ? "" : node;
    phase = phase == null ? "Pending" : phase;
    reason = reason == null ? "" : reason;
    initContainers = List.copyOf(initContainers);
    containers = List.copyOf(containers);
    conditions = List.copyOf(conditions);
  }

  /** A pod that runs ranks (a node). */
  public PodSnapshot(
      String name,
      String node,
      String phase,
      String reason,
      int attempt,
      boolean ready,
      boolean deleting,
      Instant started,
      List<ContainerSnapshot> initContainers,
      List<ContainerSnapshot> containers,
      List<ConditionSnapshot> conditions) {
    this(
        name,
        node,
        phase,
        reason,
        attempt,
        ready,
        deleting,
        started,
        initContainers,
        containers,
        conditions,
        true);
  }

  /** Whether the pod ended well (phase Succeeded). */
  public boolean succeeded() {
    return "Succeeded".equals(phase);
  }
}
