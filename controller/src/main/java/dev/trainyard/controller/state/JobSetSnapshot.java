package dev.trainyard.controller.state;

import java.time.Instant;
import java.util.List;

/**
 * The part of a JobSet the run state depends on: namespace and name, creation time, {@code
 * spec.suspend}, the number of pods one attempt runs ({@code expectedPods}: sum over replicated
 * jobs of replicas × parallelism), how many of them are nodes ({@code expectedNodes}: the same sum
 * without the replicated jobs whose pod template says {@code trainyard.dev/runs-ranks: "false"}, an
 * MPI launcher), {@code status.restarts}, {@code spec.failurePolicy.maxRestarts} (0 when absent),
 * the LocalQueue ({@code kueue.x-k8s.io/queue-name}, "" when unqueued), {@code status.conditions}
 * (Completed, Failed, Suspended, RestartingJobSet, ...; jobset api/jobset/v1alpha2 jobset_types.go)
 * and what train.yaml set that a failure can point at ({@link UserSettings}: its image, its
 * timeout).
 */
public record JobSetSnapshot(
    String namespace,
    String name,
    Instant created,
    boolean suspended,
    int expectedPods,
    int expectedNodes,
    int restarts,
    int maxRestarts,
    String localQueue,
    List<ConditionSnapshot> conditions,
    UserSettings settings) {

  public JobSetSnapshot {
    localQueue = localQueue == null ? "" : localQueue;
    conditions = List.copyOf(conditions);
    settings = settings == null ? UserSettings.NONE : settings;
  }

  /** Without what train.yaml set: the runtime's image, no timeout. */
  public JobSetSnapshot(
      String namespace,
      String name,
      Instant created,
      boolean suspended,
      int expectedPods,
      int expectedNodes,
      int restarts,
      int maxRestarts,
      String localQueue,
      List<ConditionSnapshot> conditions) {
    this(
        namespace,
        name,
        created,
        suspended,
        expectedPods,
        expectedNodes,
        restarts,
        maxRestarts,
        localQueue,
        conditions,
        UserSettings.NONE);
  }

  /** A JobSet whose every pod is a node (no MPI launcher): {@code expectedNodes = expectedPods}. */
  public JobSetSnapshot(
      String namespace,
      String name,
      Instant created,
      boolean suspended,
      int expectedPods,
      int restarts,
      int maxRestarts,
      String localQueue,
      List<ConditionSnapshot> conditions) {
    this(
        namespace,
        name,
        created,
        suspended,
        expectedPods,
        expectedPods,
        restarts,
        maxRestarts,
        localQueue,
        conditions);
  }

  /** Attempt number of the current try, 1-based: {@code restarts + 1}. */
  public int attempt() {
    return restarts + 1;
  }

  /** Attempts allowed in all: {@code maxRestarts + 1}. */
  public int maxAttempts() {
    return maxRestarts + 1;
  }
}
