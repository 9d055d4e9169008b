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
 * QuotaReserved/Admitted/Evicted/Finished conditions and {@code spec.active}, and its pods
 * (reference jobset-kueue.md §4):
 *
 * <pre>
 * JobSet Completed=True                      → SUCCEEDED "succeeded in 12m 5s, attempt 1 of 4"; when it did not seem
 *                                              to train ({@link #untrained}): "succeeded in 4s; no training step
 *                                              was seen — did it train? (attempt 1 of 4)", FAILED with
 *                                              {@link Limits#failUntrained}
 * JobSet Failed=True                         → FAILED, classified user/platform with node and exit code from
 *                                              the pods, else the child Jobs' Failed condition ({@link JobFailure});
 *                                              never a non-terminal state ({@link #provisional} for the controller)
 * Workload deactivated (spec.active false,   → FAILED "deactivated by Kueue: …" (Kueue never requeues it; the
 *   Evicted reason Deactivated…), or           user's when its pods showed the user's problem before), or
 *   Finished=True while the JobSet is           "Kueue finished the Workload without running it"
 *   suspended
 * Workload Evicted=True, JobSet suspended    → QUEUED "requeued after eviction by Kueue (Preempted)"
 * not admitted (Workload or spec.suspend)    → QUEUED with Kueue's reason text
 * admitted, no pod of this attempt           → ADMITTED (RESTARTING after a failure)
 * pods, not all ready                        → STARTING "starting: pulling images, attempt 1 of 4" (no count), or
 *                                              what blocks them ("cannot pull image …; check image in train.yaml")
 * all pods of the attempt ready or done,     → RUNNING "running: 2 of 2 nodes ready, attempt 1 of 4"; after a rank
 *   or one of them ended                       failed "running: rank on node n1 exited with code 137, waiting for
 *                                              the others" (only ready and succeeded pods are counted); with a
 *                                              {@link Progress} "running: step 370/1000 (37 %), ETA 1h 45m, loss
 *                                              0.53, attempt 1 of 4" ({@link ProgressText}); when neither the
 *                                              progress nor the log moved for {@code progressStallAfter}, stalled:
 *                                              "stalled: no progress for 30m (last: step 370/1000), attempt 1 of 4";
 *                                              an attempt that resumed from a checkpoint says so before the
 *                                              attempt: "running: step 3210/10000 (32 %), resumed from step 3200
 *                                              (checkpoint of Dec 2 14:02 UTC), attempt 2 of 4" ({@link Resumed})
 *                                              FAILED once stalled for {@link Limits#failStalledAfter}
 * </pre>
 *
 * Stalled has two meanings, told apart by the phase: a run admitted longer ago than {@code
 * stallAfter} without every node ready (ADMITTED/STARTING/RESTARTING, "not started 10m after
 * admission"), and a RUNNING run whose progress was seen but neither it nor its log moved for
 * {@code progressStallAfter} (its {@link Progress#updatedAt()} is the last line read). A run that
 * never printed a progress line is never called stalled while running: a quiet script is not a hung
 * one. Both name the configured time, not the ticking age, so the description does not change every
 * minute. Nodes are the pods that run ranks: an MPI launcher ({@link PodSnapshot#runsRanks} false)
 * must be up for RUNNING and its failure is the run's, but it is not counted in "n of m nodes" nor
 * in the NODES column. Where several pods could be named, the lowest index of the newest attempt is
 * ({@link PodOrder}), so a description does not change with the order pods were listed in.
 */
public final class RunStateMapper {

  /**
   * How long a JobSet failure without evidence is held back: the JobSet's Failed condition can
   * reach a watcher before the failed pod's status does, and a terminal status is final, so a
   * failure is not called a platform error until its pods have had this long to show an exit code
   * or a reason.
   */
  public static final Duration SETTLE = Duration.ofSeconds(15);

  /**
   * How long a step on a run's way up must last before the controller posts it ({@link
   * #quietUntil}): longer than a start whose pods are all ready within seconds, shorter than an
   * image pull or a wait for nodes.
   */
  public static final Duration QUIET = Duration.ofSeconds(15);

  /** The queued reason before Kueue has said anything. */
  static final String WAITING = "waiting for Kueue to admit it";

  private static final int MAX = Description.MAX;

  /** How long a running run's progress and log may stand still before it is called stalled. */
  public static final Duration DEFAULT_PROGRESS_STALL = Duration.ofMinutes(30);

  private final Duration stallAfter;
  private final Duration progressStallAfter;
  private final Limits limits;

  /**
   * What platform.yaml's {@code status.progress} makes a failure: a run that succeeded but did not
   * seem to train ({@code untrained: failure}), and a running run stalled for {@code
   * failStalledAfter} (its progress and log stood still that long; null: never).
   *
   * <pre>
   * Limits[failUntrained=true, failStalledAfter=PT2H]
   * </pre>
   */
  public record Limits(boolean failUntrained, Duration failStalledAfter) {
    /** Neither is a failure. */
    public static final Limits NONE = new Limits(false, null);
  }

  /**
   * @param stallAfter how long an admitted run may take to start before it is reported as stalled
   */
  public RunStateMapper(Duration stallAfter) {
    this(stallAfter, DEFAULT_PROGRESS_STALL);
  }

  /**
   * @param stallAfter how long an admitted run may take to start before it is reported as stalled
   * @param progressStallAfter how long a running run's progress and log may stand still before it
   *     is reported as stalled
   */
  public RunStateMapper(Duration stallAfter, Duration progressStallAfter) {
    this(stallAfter, progressStallAfter, Limits.NONE);
  }

  /**
   * As above; {@code limits} say what the platform makes a failure.
   *
   * @throws IllegalArgumentException when {@code limits.failStalledAfter} is shorter than {@code
   *     progressStallAfter} (a run must be stalled before it is failed for it)
   */
  public RunStateMapper(Duration stallAfter, Duration progressStallAfter, Limits limits) {
    this.stallAfter = Objects.requireNonNull(stallAfter, "stallAfter");
    this.progressStallAfter = Objects.requireNonNull(progressStallAfter, "progressStallAfter");
    this.limits = Objects.requireNonNull(limits, "limits");
    if (limits.failStalledAfter() != null
        && limits.failStalledAfter().compareTo(progressStallAfter) < 0) {
      throw new IllegalArgumentException(
          "failStalledAfter "
              + limits.failStalledAfter()
              + " is shorter than progress stallAfter "
              + progressStallAfter);
    }
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
    Optional<RunState> ended = KueueEnd.of(o).map(end -> ended(o, end));
    if (ended.isPresent()) {
      return ended.get();
    }
    Optional<ConditionSnapshot> evicted =
        o.workload()
            .flatMap(w -> ConditionSnapshot.find(w.conditions(), "Evicted"))
            .filter(ConditionSnapshot::isTrue);
    if (evicted.isPresent() && js.suspended()) {
      return requeued(o, evicted.get());
    }
    if (!admitted(o)) {
      return queued(o, queueReason(o), Cause.NONE);
    }
    List<PodSnapshot> pods = currentPods(o);
    // Every pod (an MPI launcher too) must be up for RUNNING; only the nodes are counted (NODES, "n
    // of m"),
    // and only while ready or done: a rank that failed is not up.
    int nodesUp =
        (int)
            pods.stream()
                .filter(PodSnapshot::runsRanks)
                .filter(RunStateMapper::readyOrSucceeded)
                .count();
    if (started(o)) {
      Optional<String> dead =
          DeadRank.of(pods, js.settings())
              .map(d -> "running: " + d + ", waiting for the others, " + attempt(js));
      if (dead.isPresent()) {
        return state(o, Phase.RUNNING, Cause.NONE, dead.get(), nodesUp, false);
      }
      return running(o, nodesUp);
    }
    return starting(o, pods, nodesUp);
  }

  /**
   * RUNNING with nothing wrong: its progress when one was seen, stalled when that stood still for
   * {@code progressStallAfter}, else the nodes ready.
   */
  private RunState running(RunObservation o, int nodesUp) {
    JobSetSnapshot js = o.jobSet();
    Optional<Progress> progress = o.progress();
    String tail = resumed(o) + ", " + attempt(js);
    if (progress.isEmpty() || ProgressText.describe(progress.get()).isEmpty()) {
      String text =
          Description.fit(
              "running: ", nodesUp + " of " + js.expectedNodes() + " nodes ready", tail, MAX);
      return state(o, Phase.RUNNING, Cause.NONE, text, nodesUp, false);
    }
    Progress p = progress.get();
    Duration still = Duration.between(p.updatedAt(), o.now());
    if (still.compareTo(progressStallAfter) > 0) {
      boolean fail =
          limits.failStalledAfter() != null && still.compareTo(limits.failStalledAfter()) > 0;
      Duration named = fail ? limits.failStalledAfter() : progressStallAfter;
      String last = ProgressText.position(p);
      String text =
          Description.fit(
              (fail ? "failed: stalled, no progress for " : "stalled: no progress for ")
                  + ProgressText.span(named)
                  + (last.isEmpty() ? "" : " "),
              last.isEmpty() ? "" : "(last: " + last + ")",
              tail,
              MAX);
      return state(
          o,
          fail ? Phase.FAILED : Phase.RUNNING,
          fail ? Cause.USER : Cause.NONE,
          text,
          nodesUp,
          true);
    }
    String text = Description.fit("running: ", ProgressText.describe(p), tail, MAX);
    return state(o, Phase.RUNNING, Cause.NONE, text, nodesUp, false);
  }

  /**
   * ", resumed from step 3200 (checkpoint of Dec 2 14:02 UTC)" when the current attempt resumed
   * from a checkpoint ({@link Resumed}), else "".
   */
  private static String resumed(RunObservation o) {
    return o.resumed().map(r -> ", " + r.describe()).orElse("");
  }

  /**
   * The state of a run whose JobSet was deleted before it finished ({@code last}: its final object
   * as the delete event carried it): DELETED "deleted before it finished (last: {@code
   * lastShown})", the description the forge showed last ("" when none).
   */
  public static RunState deleted(JobSetSnapshot last, String lastShown) {
    String text =
        "deleted before it finished"
            + (lastShown.isBlank() ? "" : " (last: " + lastShown.strip() + ")");
    return new RunState(
        Phase.DELETED,
        Cause.NONE,
        text,
        "",
        null,
        0,
        last.expectedNodes(),
        last.attempt(),
        last.maxAttempts(),
        false,
        null);
  }

  /**
   * When the run ended, for retention: the JobSet's Completed or Failed condition's time, else (a
   * Workload Kueue deactivated or finished while the JobSet stayed suspended) that Workload
   * condition's time; empty while it runs or when the condition carries no time.
   */
  public static Optional<Instant> finishedAt(RunObservation o) {
    List<ConditionSnapshot> c = o.jobSet().conditions();
    String jobSetEnd =
        ConditionSnapshot.holds(c, "Completed")
            ? "Completed"
            : ConditionSnapshot.holds(c, "Failed") ? "Failed" : null;
    if (jobSetEnd != null) {
      return ConditionSnapshot.find(c, jobSetEnd).map(ConditionSnapshot::since);
    }
    return KueueEnd.of(o).map(KueueEnd::since);
  }

  private RunState succeeded(RunObservation o) {
    Instant end =
        ConditionSnapshot.find(o.jobSet().conditions(), "Completed")
            .map(ConditionSnapshot::since)
            .filter(Objects::nonNull)
            .orElse(o.now());
    Duration took = took(o, end);
    Optional<String> untrained = untrained(o, took);
    String text =
        "succeeded in "
            + Description.duration(took)
            + untrained
                .map(why -> "; " + why + " (" + attempt(o.jobSet()) + ")")
                .orElse(", " + attempt(o.jobSet()));
    boolean fail = untrained.isPresent() && limits.failUntrained();
    return new RunState(
        fail ? Phase.FAILED : Phase.SUCCEEDED,
        fail ? Cause.USER : Cause.NONE,
        fail ? "failed: " + text : text,
        "",
        null,
        ready(o),
        o.jobSet().expectedNodes(),
        o.jobSet().attempt(),
        o.jobSet().maxAttempts(),
        false,
        took);
  }

  /** How many times faster than its job's usual duration a run must be to be "far faster". */
  static final int FAR_FASTER = 10;

  /**
   * Why a run that succeeded in {@code took} does not seem to have trained, strongest sign first;
   * empty when nothing says so:
   *
   * <ul>
   *   <li>rank 0 printed a world size below nodes × processes per node (each node trained alone, a
   *       single-process fallback): "rank 0 printed world size 1, not 4 — did it train alone?";
   *   <li>rank 0's log was read, and neither it nor a push showed any progress (a script that exits
   *       0 printing "Unable to locate sufficient 2 gpus"): "no training step was seen — did it
   *       train?";
   *   <li>it took under a {@link #FAR_FASTER}th of its job's usual duration: "its job's runs
   *       usually take 2h — did it train?".
   * </ul>
   *
   * Nothing is asked when rank 0's log could not be read and nothing was pushed (no evidence either
   * way).
   */
  public static Optional<String> untrained(RunObservation o, Duration took) {
    TrainingSigns s = o.signs();
    int nodes = o.jobSet().expectedNodes();
    int expected = nodes * Math.max(1, o.jobSet().settings().processesPerNode());
    if (s.worldSize() > 0 && s.worldSize() < expected) {
      return Optional.of(
          "rank 0 printed world size "
              + s.worldSize()
              + ", not "
              + expected
              + " — did it train alone?");
    }
    if (s.logRead() && o.progress().isEmpty()) {
      return Optional.of("no training step was seen — did it train?");
    }
    if (s.usual() != null && took.multipliedBy(FAR_FASTER).compareTo(s.usual()) < 0) {
      return Optional.of(
          "its job's runs usually take " + ProgressText.span(s.usual()) + " — did it train?");
    }
    return Optional.empty();
  }

  private static boolean explained(RunObservation o) {
    return cause(o).isPresent();
  }

  /**
   * Why a failed run failed, strongest evidence first: a pod's platform evidence (it makes its
   * siblings exit too), the run's timeout (the Job controller kills the pods at the deadline: their
   * 143s are its doing), a Kueue eviction, what train.yaml controls on a pod (OOMKilled, its image,
   * its Secrets), the exit of the pod a failed Job names, any pod's non-zero exit, the child Jobs'
   * durable Failed conditions (their pods gone), and last what kept the pods from starting before.
   * Pods of the newest attempt that has pods only: an older attempt's eviction explains its
   * restart, not this.
   */
  static Optional<Failure> cause(RunObservation o) {
    UserSettings s = o.jobSet().settings();
    List<PodSnapshot> pods = newestAttempt(o.pods());
    return FailureClassifier.first(pods, FailureClassifier::platform)
        .or(() -> JobFailure.deadline(o.jobs()) ? Optional.of(timedOut(o)) : Optional.empty())
        .or(() -> o.workload().flatMap(FailureClassifier::workloadEviction))
        .or(() -> FailureClassifier.first(pods, p -> FailureClassifier.userSetting(p, s)))
        .or(() -> failedFirst(pods, JobFailure.failedPod(o.jobs())))
        .or(() -> FailureClassifier.first(pods, FailureClassifier::userExit))
        .or(() -> JobFailure.classify(o))
        .or(o::earlier);
  }

  /**
   * The exit of the pod a failed Job names ("Container node for pod NS/P failed with exit code N"):
   * the rank whose own failure ended the run, before the Job stopped its peers (whose exits, often
   * non-zero, are the Job's doing).
   */
  private static Optional<Failure> failedFirst(List<PodSnapshot> pods, Optional<String> named) {
    return named.flatMap(
        name ->
            pods.stream()
                .filter(p -> p.name().equals(name))
                .findFirst()
                .flatMap(FailureClassifier::userExit));
  }

  /**
   * The run's timeout passed; when its pods never started, what kept them says more than the
   * timeout ("timed out: cannot pull image …"; no node: the pods are gone, and the description
   * keeps its room for the cause).
   */
  private static Failure timedOut(RunObservation o) {
    return blocker(o)
        .map(b -> new Failure(b.cause(), "timed out: " + b.what(), "", null, b.hint()))
        .orElseGet(() -> FailureClassifier.timeout(o.jobSet().settings(), ""));
  }

  /**
   * What keeps the current attempt's pods from starting (lowest index first): an image that cannot
   * be pulled, a container the kubelet cannot create. The controller remembers it per JobSet
   * ({@link RunObservation#earlier}), since Kueue's PodsReady timeout and the run's deadline delete
   * the pods that show it.
   */
  public static Optional<Failure> startBlocker(RunObservation o) {
    return FailureClassifier.first(
        currentPods(o), p -> FailureClassifier.startBlocker(p, o.jobSet().settings()));
  }

  /**
   * Whether the current attempt got past starting: every pod ready, or one of them ended; false
   * without pods.
   */
  public static boolean started(RunObservation o) {
    List<PodSnapshot> pods = currentPods(o);
    return !pods.isEmpty()
        && (pods.stream().filter(PodSnapshot::ready).count() >= o.jobSet().expectedPods()
            || ended(pods));
  }

  /** {@link #startBlocker}, else what an earlier observation remembered. */
  private static Optional<Failure> blocker(RunObservation o) {
    return startBlocker(o).or(o::earlier);
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

  /**
   * Until when the controller holds state {@code s} of {@code o} back instead of posting it; empty
   * when it may be posted now. Each step a run passes on its way up would otherwise be a post of
   * its own (a 12-node start once made 8 to 11 posts in a few seconds): QUEUED is held until {@link
   * #QUIET} after the JobSet's creation (Kueue's words change in its first second: "waiting for
   * Kueue to admit it", "LocalQueue … doesn't exist" while a GitOps sync applies the LocalQueue
   * with the run, then its verdict), and a start step with nothing wrong (ADMITTED or STARTING,
   * cause NONE, not stalled) until {@link #QUIET} after the admission ({@code Admitted} condition
   * time, else the JobSet's creation). So a run admitted and started sooner is one post (running),
   * one Kueue holds is queued then running, and a slower start shows its step once it has lasted
   * that long. What blocks a start (an image, a Secret), a stall, a requeue later in the run's
   * life, RUNNING, RESTARTING and the terminal states are never held; nor is anything without a
   * time to count from.
   */
  public static Optional<Instant> quietUntil(RunObservation o, RunState s) {
    if (s.cause() != Cause.NONE || s.stalled()) {
      return Optional.empty();
    }
    Instant from;
    if (s.phase() == Phase.ADMITTED || s.phase() == Phase.STARTING) {
      from = admissionTime(o).orElse(o.jobSet().created());
    } else if (s.phase() == Phase.QUEUED) {
      from = o.jobSet().created();
    } else {
      return Optional.empty();
    }
    return Optional.ofNullable(from).map(f -> f.plus(QUIET)).filter(u -> u.isAfter(o.now()));
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
    ConditionSnapshot condition =
        ConditionSnapshot.find(o.jobSet().conditions(), "Failed").orElseThrow();
    Failure f =
        cause(o)
            .orElse(
                new Failure(
                    Cause.PLATFORM, "JobSet failed (" + condition.reason() + ")", "", null));
    return failure(o, f, condition.since());
  }

  /** FAILED with {@code f}, ended at {@code end} (now when unknown). */
  private static RunState failure(RunObservation o, Failure f, Instant end) {
    JobSetSnapshot js = o.jobSet();
    String who = f.cause() == Cause.USER ? "user error" : "platform error";
    String text =
        Description.fit(
            "failed (" + who + "): ", f.body(), f.tail() + ", " + attempt(js), Description.MAX);
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
        took(o, end == null ? o.now() : end));
  }

  /**
   * Kueue ended the run without JobSet doing so: FAILED, with what the pods showed before when
   * known ("deactivated by Kueue: cannot pull image …"; its cause is then theirs).
   */
  private static RunState ended(RunObservation o, KueueEnd end) {
    Failure f =
        blocker(o)
            .map(b -> new Failure(b.cause(), end.brief() + ": " + b.what(), "", null, b.hint()))
            .orElseGet(() -> new Failure(Cause.PLATFORM, end.what(), "", null));
    return failure(o, f, end.since());
  }

  /**
   * Evicted by Kueue back to suspend: queued again; after a PodsReady timeout with what the pods
   * showed (their node left out: the pods are gone, and the next admission may place them
   * elsewhere).
   */
  private RunState requeued(RunObservation o, ConditionSnapshot evicted) {
    Optional<Failure> blocker =
        "PodsReadyTimeout".equals(evicted.reason()) ? blocker(o) : Optional.empty();
    if (blocker.isEmpty()) {
      return queued(o, "requeued after eviction by Kueue (" + evicted.reason() + ")", Cause.NONE);
    }
    Failure b = blocker.get();
    String text =
        Description.fit(
            queuedIn(o) + "requeued after PodsReady timeout: ",
            b.what(),
            b.tail(),
            Description.MAX);
    return state(o, Phase.QUEUED, b.cause(), text, 0, false);
  }

  private RunState queued(RunObservation o, String reason, Cause cause) {
    return state(o, Phase.QUEUED, cause, queuedIn(o) + reason, 0, false);
  }

  private static String queuedIn(RunObservation o) {
    return "queued"
        + (o.jobSet().localQueue().isEmpty() ? "" : " in " + o.jobSet().localQueue())
        + ": ";
  }

  private RunState starting(RunObservation o, List<PodSnapshot> pods, int nodesUp) {
    JobSetSnapshot js = o.jobSet();
    boolean restarting =
        js.restarts() > 0 || ConditionSnapshot.holds(js.conditions(), "RestartingJobSet");
    Phase phase = restarting ? Phase.RESTARTING : pods.isEmpty() ? Phase.ADMITTED : Phase.STARTING;
    Optional<Failure> blocked =
        FailureClassifier.first(
            pods,
            p ->
                FailureClassifier.platform(p)
                    .or(() -> FailureClassifier.startBlocker(p, js.settings())));
    String body =
        blocked.map(Failure::body).orElseGet(() -> StartProgress.describe(pods, js.expectedPods()));
    String tail = blocked.map(Failure::tail).orElse("");
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
    String text = Description.fit(lead + ": ", body, tail + ", " + attempt(js), Description.MAX);
    Cause cause = blocked.map(Failure::cause).orElse(Cause.NONE);
    return new RunState(
        phase,
        cause,
        text,
        blocked.map(Failure::node).orElse(""),
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

  /**
   * Kueue's own words: the False QuotaReserved (else Admitted) condition's message; {@link
   * #WAITING} when there is none, or when it says the run's LocalQueue does not exist, or names no
   * ClusterQueue ({@link #UNREAD_LOCAL_QUEUE}), while the observation saw the LocalQueue ({@link
   * WorkloadSnapshot#localQueueExists}): both are older than the LocalQueue.
   */
  static String queueReason(RunObservation o) {
    if (o.workload().isEmpty() && o.jobSet().localQueue().isEmpty()) {
      return "JobSet is suspended";
    }
    // Before Kueue created the Workload and before it judged it, the same words: one post, not two.
    List<ConditionSnapshot> c = o.workload().map(WorkloadSnapshot::conditions).orElse(List.of());
    if (o.workload().map(WorkloadSnapshot::localQueueExists).orElse(false)
        && ConditionSnapshot.find(c, "QuotaReserved")
            .filter(
                q ->
                    q.message().equals(missingLocalQueue(o.jobSet().localQueue()))
                        || q.message().equals(UNREAD_LOCAL_QUEUE))
            .isPresent()) {
      // Kueue's claim is older than the LocalQueue (see WorkloadSnapshot); the run waits its turn.
      return WAITING;
    }
    return ConditionSnapshot.find(c, "QuotaReserved")
        .filter(q -> !q.isTrue())
        .map(RunStateMapper::words)
        .or(() -> ConditionSnapshot.find(c, "Admitted").map(RunStateMapper::words))
        .orElse(WAITING);
  }

  /**
   * Kueue's words for a Workload whose LocalQueue the API server already had but Kueue's queue
   * manager had not read yet: it names the LocalQueue's ClusterQueue, which it does not know, so
   * the name is empty (kueue 0.19 pkg/controller/core/workload_controller.go getQueueBlocker,
   * {@code ClusterQueueForWorkload} returning ""; recorded in CI from InterplayIT and StatusTruthIT
   * when a sync applied the LocalQueue with its runs). A ClusterQueue that is really missing is
   * named.
   */
  static final String UNREAD_LOCAL_QUEUE = "ClusterQueue  doesn't exist";

  /**
   * Kueue's words for a Workload whose LocalQueue {@code name} it did not find (kueue
   * pkg/controller/core/workload_controller.go getQueueBlocker, reason Misconfigured in 0.19).
   */
  static String missingLocalQueue(String name) {
    return "LocalQueue " + name + " doesn't exist";
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

  /** The pods of the newest attempt that has any. */
  private static List<PodSnapshot> newestAttempt(List<PodSnapshot> pods) {
    int newest = pods.stream().mapToInt(PodSnapshot::attempt).max().orElse(0);
    return pods.stream().filter(p -> p.attempt() == newest).toList();
  }

  /** Nodes (pods that run ranks) of the current attempt that are ready or succeeded. */
  private static int ready(RunObservation o) {
    return (int)
        currentPods(o).stream()
            .filter(PodSnapshot::runsRanks)
            .filter(RunStateMapper::readyOrSucceeded)
            .count();
  }

  private static boolean readyOrSucceeded(PodSnapshot p) {
    return p.ready() || p.succeeded();
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
   * How long the run took until {@code end}: from its earliest pod start, else its admission, else
   * the JobSet's creation. Whole seconds, as Kubernetes writes times, so the commit status and
   * {@code trainyard status} (and its {@code durationSeconds}) say the same.
   */
  private static Duration took(RunObservation o, Instant end) {
    return Duration.ofSeconds(Math.max(0, Duration.between(startedAt(o), end).toSeconds()));
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

  /** When quota was granted: Workload Admitted since, else the JobSet's creation, else now. */
  private static Instant admittedAt(RunObservation o) {
    return admissionTime(o).orElse(o.jobSet().created() == null ? o.now() : o.jobSet().created());
  }

  /** The time of the Workload's True Admitted condition, when it has one. */
  private static Optional<Instant> admissionTime(RunObservation o) {
    return o.workload()
        .flatMap(w -> ConditionSnapshot.find(w.conditions(), "Admitted"))
        .filter(ConditionSnapshot::isTrue)
        .map(ConditionSnapshot::since)
        .filter(Objects::nonNull);
  }

  static String attempt(JobSetSnapshot js) {
    return "attempt " + js.attempt() + " of " + js.maxAttempts();
  }
}
