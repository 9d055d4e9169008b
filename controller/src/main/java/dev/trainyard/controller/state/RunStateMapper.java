package dev.trainyard.controller.state;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The one mapping from what the cluster shows to what the user sees, used by the controller (commit
 * statuses) and by {@code trainyard status}, so the PR check and the terminal never disagree.
 *
 * <p>JobSet conditions alone mislead (a JobSet resumed by Kueue can still carry Suspended, and
 * Kueue has admitted workloads that stayed suspended, kueue#11931), so the state is derived from
 * the JobSet's terminal conditions and {@code spec.suspend}, its Workload's
 * QuotaReserved/Admitted/Evicted conditions and its pods (reference jobset-kueue.md §4):
 *
 * <pre>
 * JobSet Completed=True                      → SUCCEEDED "succeeded in 12m 5s, attempt 1 of 4"
 * JobSet Failed=True                         → FAILED, classified user/platform with node and exit code from
 *                                              the pods, else the child Jobs' Failed condition ({@link JobFailure});
 *                                              never a non-terminal state ({@link #provisional} for the controller)
 * Workload Evicted=True                      → QUEUED "requeued: preempted by Kueue"
 * not admitted (Workload or spec.suspend)    → QUEUED with Kueue's reason text
 * admitted, no pod of this attempt           → ADMITTED (RESTARTING after a failure)
 * pods, not all ready                        → STARTING "starting: pulling images, attempt 1 of 4" (no count)
 * all pods of the attempt ready or done,     → RUNNING "running: 2 of 2 nodes ready, attempt 1 of 4"
 *   or one of them ended
 * </pre>
 *
 * A run admitted longer ago than {@code stallAfter} without every node ready is marked stalled and
 * says so. Nodes are the pods that run ranks: an MPI launcher ({@link PodSnapshot#runsRanks} false)
 * must be up for RUNNING and its failure is the run's, but it is not counted in "n of m nodes" nor
 * in the NODES column.
 */
public final class RunStateMapper {

  /**
   * How long a JobSet failure without evidence is held back: the JobSet's Failed condition can
   * reach a watcher before the failed pod's status does, and a terminal status is final, so a
   * failure is not called a platform error until its pods have had this long to show an exit code
   * or a reason.
   */
  public static final Duration SETTLE = Duration.ofSeconds(15);

  /** The queued reason before Kueue has said anything. */
  static final String WAITING = "waiting for Kueue to admit it";

  private final Duration stallAfter;

  /**
   * @param stallAfter how long an admitted run may take to start before it is reported as stalled
   */
  public RunStateMapper(Duration stallAfter) {
    this.stallAfter = Objects.requireNonNull(stallAfter, "stallAfter");
  }

  /** The state of the observed run; never throws for missing fields (they read as "not yet"). */
  public RunState map(RunObservation o) {
    JobSetSnapshot js = o.jobSet();
    if (ConditionSnapshot.holds(js.conditions(), "Completed")) {
      return succeeded(o);
    }
    if (ConditionSnapshot.holds(js.conditions(), "Failed")) {
      return failed(o);
    }
    Optional<ConditionSnapshot> evicted =
        o.workload()
            .flatMap(w -> ConditionSnapshot.find(w.conditions(), "Evicted"))
            .filter(ConditionSnapshot::isTrue);
    if (evicted.isPresent() && js.suspended()) {
      return queued(o, "requeued after eviction by Kueue (" + evicted.get().reason() + ")");
    }
    if (!admitted(o)) {
      return queued(o, queueReason(o));
    }
    List<PodSnapshot> pods = currentPods(o);
    // Every pod (an MPI launcher too) must be up for RUNNING; only the nodes are counted (NODES, "n
    // of m").
    int up = (int) pods.stream().filter(RunStateMapper::upOrDone).count();
    int nodesUp =
        (int) pods.stream().filter(PodSnapshot::runsRanks).filter(RunStateMapper::upOrDone).count();
    if (up >= js.expectedPods() && !pods.isEmpty() || ended(pods)) {
      return state(o, Phase.RUNNING, Cause.NONE, "running: " + nodes(nodesUp, js), nodesUp, false);
    }
    return starting(o, pods, nodesUp);
  }

  private RunState succeeded(RunObservation o) {
    Instant end =
        ConditionSnapshot.find(o.jobSet().conditions(), "Completed")
            .map(ConditionSnapshot::since)
            .filter(Objects::nonNull)
            .orElse(o.now());
    Duration took = Duration.between(startedAt(o), end);
    String text = "succeeded in " + Description.duration(took) + ", " + attempt(o.jobSet());
    return new RunState(
        Phase.SUCCEEDED,
        Cause.NONE,
        text,
        "",
        null,
        ready(o),
        o.jobSet().expectedNodes(),
        o.jobSet().attempt(),
        o.jobSet().maxAttempts(),
        false,
        took);
  }

  private static boolean explained(RunObservation o) {
    return cause(o).isPresent();
  }

  /**
   * Pod evidence first (it names the node), the pod a failed Job names before its peers (which the
   * Job's failure stopped, often with a non-zero exit of their own), else the child Jobs' durable
   * Failed conditions.
   */
  private static Optional<Failure> cause(RunObservation o) {
    return FailureClassifier.classify(o.pods(), o.workload(), JobFailure.failedPod(o.jobs()))
        .or(() -> JobFailure.classify(o.jobs()));
  }

  /**
   * Whether {@code o} is a failure not explained yet: the JobSet is Failed, neither a pod nor a
   * child Job says why, and the Failed condition is younger than {@link #SETTLE}. It maps to FAILED
   * (status shows it), but the controller holds its final post back until the evidence arrives or
   * the time is up, since a terminal commit status is never changed.
   */
  public static boolean provisional(RunObservation o) {
    return ConditionSnapshot.holds(o.jobSet().conditions(), "Failed")
        && !ConditionSnapshot.holds(o.jobSet().conditions(), "Completed")
        && !explained(o)
        && !settled(o);
  }

  /** Whether the Failed condition is older than {@link #SETTLE} (or has no time). */
  private static boolean settled(RunObservation o) {
    Instant since =
        ConditionSnapshot.find(o.jobSet().conditions(), "Failed")
            .map(ConditionSnapshot::since)
            .orElse(null);
    return since == null || Duration.between(since, o.now()).compareTo(SETTLE) >= 0;
  }

  private RunState failed(RunObservation o) {
    JobSetSnapshot js = o.jobSet();
    ConditionSnapshot condition = ConditionSnapshot.find(js.conditions(), "Failed").orElseThrow();
    Failure f =
        cause(o)
            .orElse(
                new Failure(
                    Cause.PLATFORM, "JobSet failed (" + condition.reason() + ")", "", null));
    String who = f.cause() == Cause.USER ? "user error" : "platform error";
    String where = f.node().isEmpty() ? "" : " on node " + f.node();
    String text = "failed (" + who + "): " + f.what() + where + ", " + attempt(js);
    Instant end = condition.since() == null ? o.now() : condition.since();
    return new RunState(
        Phase.FAILED,
        f.cause(),
        text,
        f.node(),
        f.exitCode(),
        ready(o),
        js.expectedNodes(),
        js.attempt(),
        js.maxAttempts(),
        false,
        Duration.between(startedAt(o), end));
  }

  private RunState queued(RunObservation o, String reason) {
    String queue = o.jobSet().localQueue().isEmpty() ? "" : " in " + o.jobSet().localQueue();
    return state(o, Phase.QUEUED, Cause.NONE, "queued" + queue + ": " + reason, 0, false);
  }

  private RunState starting(RunObservation o, List<PodSnapshot> pods, int nodesUp) {
    JobSetSnapshot js = o.jobSet();
    boolean restarting =
        js.restarts() > 0 || ConditionSnapshot.holds(js.conditions(), "RestartingJobSet");
    Phase phase = restarting ? Phase.RESTARTING : pods.isEmpty() ? Phase.ADMITTED : Phase.STARTING;
    Optional<Failure> pull =
        pods.stream().map(FailureClassifier::platform).flatMap(Optional::stream).findFirst();
    String doing =
        pull.map(f -> f.what() + (f.node().isEmpty() ? "" : " on node " + f.node()))
            .orElseGet(() -> StartProgress.describe(pods, js.expectedPods()));
    Instant admittedAt = admittedAt(o);
    boolean stalled = Duration.between(admittedAt, o.now()).compareTo(stallAfter) > 0;
    String lead = restarting ? "restarting" : pods.isEmpty() ? "admitted" : "starting";
    if (stalled) {
      // The configured time, not the ticking age: a description that changed every minute would be
      // posted every minute (GitHub keeps at most 1,000 statuses per SHA and context).
      lead = "not started " + Description.duration(stallAfter) + " after admission";
    }
    // No live node count here: a 12-node run would post every count on its way up (36 posts in 2 s
    // were
    // seen); the step changes a few times at most. `trainyard status` shows the count in its NODES
    // column.
    String text = lead + ": " + doing + ", " + attempt(js);
    Cause cause = pull.map(Failure::cause).orElse(Cause.NONE);
    return new RunState(
        phase,
        cause,
        text,
        pull.map(Failure::node).orElse(""),
        null,
        nodesUp,
        js.expectedNodes(),
        js.attempt(),
        js.maxAttempts(),
        stalled,
        null);
  }

  private RunState state(
      RunObservation o, Phase phase, Cause cause, String text, int ready, boolean stalled) {
    JobSetSnapshot js = o.jobSet();
    return new RunState(
        phase,
        cause,
        text,
        "",
        null,
        ready,
        js.expectedNodes(),
        js.attempt(),
        js.maxAttempts(),
        stalled,
        null);
  }

  /**
   * Admitted: the Workload says QuotaReserved and Admitted; without a Workload, the JobSet is
   * unsuspended.
   */
  static boolean admitted(RunObservation o) {
    if (o.workload().isPresent()) {
      List<ConditionSnapshot> c = o.workload().get().conditions();
      return ConditionSnapshot.holds(c, "QuotaReserved") && ConditionSnapshot.holds(c, "Admitted");
    }
    return !o.jobSet().suspended();
  }

  /** Kueue's own words: the False QuotaReserved (else Admitted) condition's message. */
  static String queueReason(RunObservation o) {
    if (o.workload().isEmpty() && o.jobSet().localQueue().isEmpty()) {
      return "JobSet is suspended";
    }
    // Before Kueue created the Workload and before it judged it, the same words: one post, not two.
    List<ConditionSnapshot> c = o.workload().map(WorkloadSnapshot::conditions).orElse(List.of());
    return ConditionSnapshot.find(c, "QuotaReserved")
        .filter(q -> !q.isTrue())
        .map(RunStateMapper::words)
        .or(() -> ConditionSnapshot.find(c, "Admitted").map(RunStateMapper::words))
        .orElse(WAITING);
  }

  private static String words(ConditionSnapshot c) {
    return c.message().isEmpty() ? c.reason() : c.message();
  }

  /** Pods of the current attempt that are not being deleted. */
  static List<PodSnapshot> currentPods(RunObservation o) {
    return o.pods().stream()
        .filter(p -> p.attempt() == o.jobSet().restarts() && !p.deleting())
        .toList();
  }

  /** Nodes (pods that run ranks) of the current attempt that are ready or succeeded. */
  private static int ready(RunObservation o) {
    return (int)
        currentPods(o).stream()
            .filter(PodSnapshot::runsRanks)
            .filter(p -> p.ready() || p.succeeded())
            .count();
  }

  /** Ready, or its containers ran and ended (Succeeded or Failed): the pod is past starting. */
  private static boolean upOrDone(PodSnapshot p) {
    return p.ready() || p.succeeded() || "Failed".equals(p.phase());
  }

  /**
   * Whether a pod of the attempt has ended: the attempt got past starting, so the run stays RUNNING
   * until the JobSet says Failed, Completed or restarts (a failed pod never turns a running run
   * back into starting).
   */
  private static boolean ended(List<PodSnapshot> pods) {
    return pods.stream().anyMatch(p -> p.succeeded() || "Failed".equals(p.phase()));
  }

  /**
   * When the run started: its earliest pod start, else its admission, else the JobSet's creation.
   */
  private static Instant startedAt(RunObservation o) {
    return o.pods().stream()
        .map(PodSnapshot::started)
        .filter(Objects::nonNull)
        .min(Comparator.naturalOrder())
        .orElseGet(() -> admittedAt(o));
  }

  /** When quota was granted: Workload Admitted since, else the JobSet's creation. */
  private static Instant admittedAt(RunObservation o) {
    return o.workload()
        .flatMap(w -> ConditionSnapshot.find(w.conditions(), "Admitted"))
        .filter(ConditionSnapshot::isTrue)
        .map(ConditionSnapshot::since)
        .filter(Objects::nonNull)
        .orElse(o.jobSet().created() == null ? o.now() : o.jobSet().created());
  }

  private static String nodes(int ready, JobSetSnapshot js) {
    return ready + " of " + js.expectedNodes() + " nodes ready, " + attempt(js);
  }

  private static String attempt(JobSetSnapshot js) {
    return "attempt " + js.attempt() + " of " + js.maxAttempts();
  }
}
