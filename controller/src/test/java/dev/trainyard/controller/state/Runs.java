package dev.trainyard.controller.state;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Builds observations for tests: a 2-node JobSet with maxRestarts 3 created at T0, seen at T0 + 60
 * s.
 */
final class Runs {

  static final Instant T0 = Instant.parse("2026-12-01T08:00:00Z");
  static final Instant NOW = T0.plusSeconds(60);

  boolean suspended;
  int expected = 2;

  /** Pods of the attempt that are nodes; -1: all {@link #expected} pods are. */
  int nodes = -1;

  int restarts;
  int maxRestarts = 3;
  String queue = "team-a";
  Instant now = NOW;
  final List<ConditionSnapshot> jobSetConditions = new ArrayList<>();
  final List<PodSnapshot> pods = new ArrayList<>();
  WorkloadSnapshot workload;
  final List<JobSnapshot> jobs = new ArrayList<>();
  UserSettings settings = UserSettings.NONE;
  Optional<Failure> earlier = Optional.empty();

  static Runs run() {
    return new Runs();
  }

  static ConditionSnapshot yes(String type, String reason, Instant since) {
    return new ConditionSnapshot(type, true, reason, "", since);
  }

  static ConditionSnapshot no(String type, String reason, String message) {
    return new ConditionSnapshot(type, false, reason, message, T0);
  }

  static PodSnapshot pod(
      String name, String node, String phase, boolean ready, ContainerSnapshot... main) {
    return new PodSnapshot(
        name,
        node,
        phase,
        "",
        0,
        ready,
        false,
        T0.plusSeconds(10),
        List.of(),
        List.of(main),
        List.of());
  }

  /**
   * A pod of an MPI launcher (annotated runs-ranks "false") in {@code phase} with its main
   * container {@code main}.
   */
  static PodSnapshot launcher(String node, String phase, boolean ready, ContainerSnapshot main) {
    return new PodSnapshot(
        "launcher-0",
        node,
        phase,
        "",
        0,
        ready,
        false,
        T0.plusSeconds(20),
        List.of(),
        List.of(main),
        List.of(),
        false);
  }

  /** An MPI run: {@code nodes} nodes and a launcher, so one pod more than nodes. */
  Runs mpi(int nodes) {
    this.nodes = nodes;
    expected = nodes + 1;
    return this;
  }

  /**
   * A pod waiting with one main container {@code node} of {@code image} in {@code reason} saying
   * {@code message}.
   */
  static PodSnapshot waitingPod(
      String name, String node, String image, String reason, String message) {
    return pod(
        name,
        node,
        "Pending",
        false,
        new ContainerSnapshot(
            "node", image, ContainerSnapshot.Status.WAITING, reason, message, null));
  }

  /**
   * A Failed pod whose container {@code node} ended with {@code exitCode} and {@code reason} at
   * {@code finished}.
   */
  static PodSnapshot failedPod(
      String name, String node, int exitCode, String reason, Instant finished) {
    return pod(
        name,
        node,
        "Failed",
        false,
        new ContainerSnapshot(
            "node", "", ContainerSnapshot.Status.TERMINATED, reason, "", exitCode, finished));
  }

  static PodSnapshot readyPod(String name, String node) {
    return pod(name, node, "Running", true, ContainerSnapshot.running("node"));
  }

  Runs suspended() {
    suspended = true;
    return this;
  }

  Runs restarts(int n) {
    restarts = n;
    return this;
  }

  Runs at(Instant instant) {
    now = instant;
    return this;
  }

  Runs condition(ConditionSnapshot c) {
    jobSetConditions.add(c);
    return this;
  }

  /** A child Job of attempt 0 whose Failed condition has {@code reason} and {@code message}. */
  Runs failedJob(String name, String reason, String message) {
    jobs.add(
        new JobSnapshot(
            name, 0, List.of(new ConditionSnapshot("Failed", true, reason, message, T0))));
    return this;
  }

  /**
   * A child Job of attempt 0 whose Failed condition has {@code reason}, {@code message}, with
   * {@code status.failedIndexes}.
   */
  Runs failedIndexes(String name, String reason, String message, String indexes) {
    jobs.add(
        new JobSnapshot(
            name, 0, List.of(new ConditionSnapshot("Failed", true, reason, message, T0)), indexes));
    return this;
  }

  Runs pods(PodSnapshot... p) {
    pods.addAll(List.of(p));
    return this;
  }

  Runs workload(String clusterQueue, ConditionSnapshot... conditions) {
    workload = new WorkloadSnapshot(clusterQueue, List.of(conditions));
    return this;
  }

  /** The Workload's LocalQueue was seen in the cluster ({@link #workload} first). */
  Runs localQueueSeen() {
    workload = workload.withLocalQueueExists(true);
    return this;
  }

  /** A Workload with {@code spec.active: false} (deactivated). */
  Runs inactiveWorkload(ConditionSnapshot... conditions) {
    workload = new WorkloadSnapshot("cq", List.of(conditions), false);
    return this;
  }

  /** train.yaml names {@code image} (annotation image-source) and sets {@code timeout}. */
  Runs trainYaml(String image, Duration timeout) {
    settings = new UserSettings(image, timeout);
    return this;
  }

  /** Each node runs {@code procs} processes (PET_NPROC_PER_NODE). */
  Runs processes(int procs) {
    settings = new UserSettings(settings.image(), settings.timeout(), procs);
    return this;
  }

  /** Pods of the attempt, all nodes. */
  Runs nodes(int n) {
    expected = n;
    return this;
  }

  /** What an earlier observation saw keep the pods from starting. */
  Runs earlier(Failure f) {
    earlier = Optional.of(f);
    return this;
  }

  Runs admittedWorkload(Instant since) {
    return workload(
        "cq", yes("QuotaReserved", "QuotaReserved", since), yes("Admitted", "Admitted", since));
  }

  RunObservation observe() {
    JobSetSnapshot js =
        new JobSetSnapshot(
            "team-a",
            "llama-ft-7f3a9c",
            T0,
            suspended,
            expected,
            nodes < 0 ? expected : nodes,
            restarts,
            maxRestarts,
            queue,
            jobSetConditions,
            settings);
    return new RunObservation(js, pods, Optional.ofNullable(workload), now, jobs, earlier);
  }

  RunState map() {
    return new RunStateMapper(Duration.ofMinutes(10)).map(observe());
  }
}
