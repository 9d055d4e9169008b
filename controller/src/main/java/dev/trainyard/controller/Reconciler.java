package dev.trainyard.controller;

import dev.trainyard.compiler.secrets.CredentialPatterns;
import dev.trainyard.controller.StatusLedger.StatusKey;
import dev.trainyard.controller.forge.CommitRef;
import dev.trainyard.controller.forge.CommitStatus;
import dev.trainyard.controller.forge.Forge;
import dev.trainyard.controller.forge.ForgeDirectory;
import dev.trainyard.controller.forge.ForgeEvents;
import dev.trainyard.controller.forge.ForgeException;
import dev.trainyard.controller.forge.PostedStatus;
import dev.trainyard.controller.state.ConditionSnapshot;
import dev.trainyard.controller.state.ErrorLine;
import dev.trainyard.controller.state.FailureReport;
import dev.trainyard.controller.state.JobSetSnapshot;
import dev.trainyard.controller.state.LogProgress;
import dev.trainyard.controller.state.Phase;
import dev.trainyard.controller.state.PodSnapshot;
import dev.trainyard.controller.state.Progress;
import dev.trainyard.controller.state.ProgressText;
import dev.trainyard.controller.state.RunObservation;
import dev.trainyard.controller.state.RunState;
import dev.trainyard.controller.state.RunStateMapper;
import dev.trainyard.controller.state.TrainingSigns;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * The one level-based, idempotent reconciler: for a run key it reads the run from the caches, maps
 * it with {@link RunStateMapper}, and posts the commit status on the run's SOURCE commit with
 * context {@code trainyard/<cluster>/<namespace>/<run>} ({@link RunProvenance#context}) only when
 * the forge's state or description would change.
 *
 * <p>Restart-safe: the first time a status key is seen (after a start, a crash or a new leadership
 * term) the forge's current status is read and recorded before anything is posted, so a crash
 * between posting and recording posts nothing twice. A status that is terminal on the forge is
 * final: a re-created run is never posted back to pending. A refused post (permission, 4xx) is
 * logged and tried again when the run's state changes or, for the same status, at the first
 * reconcile {@link #REFUSED_RETRY} later (the token file is read again at each try); a permission
 * refusal is logged once per forge and token (a 403: per project) until that forge accepts a status
 * again, so a wrong token is one line, not one per run and state. An unavailable or rate-limited
 * forge is retried by requeueing the key no sooner than the forge asked ({@link #retryAfter}); only
 * the call that found it so is logged, not the ones its gate held back. A run whose JobSet is gone
 * leaves the in-memory ledger. At most {@link #NON_TERMINAL_BUDGET} non-terminal posts go out per
 * status key; the terminal one always does. A failure nothing explains yet ({@link
 * RunStateMapper#provisional}) is requeued, not posted, for at most {@link RunStateMapper#SETTLE}.
 * A run whose JobSet is deleted before it finished gets a terminal status when the forge still
 * shows a non-terminal one (DELETED: GitHub/Gitea "error", GitLab "canceled"), then is forgotten. A
 * step on a run's way up is posted only once it has lasted {@link RunStateMapper#QUIET} (HELD until
 * then), so a run whose pods are ready within seconds of its creation posts only "running" before
 * its end, not one post per step ("queued" only when Kueue held it for 15 s or more). A running
 * run's progress ({@link RunProgress}: read from its log or pushed) is in its description, but a
 * change of progress alone is posted only as {@link ProgressPosts} allows (each 10 %, else every 30
 * minutes, at most 35 such posts); a detailed forge (GitHub Checks) also gets the last metrics as a
 * table.
 */
public final class Reconciler {

  /** What one reconcile did. */
  public enum Outcome {
    GONE,
    NO_FORGE,
    UNCHANGED,
    FINAL,
    POSTED,
    SKIPPED,
    REFUSED,
    RETRY,
    THROTTLED,
    /**
     * A step on the run's way up not posted yet ({@link RunStateMapper#quietUntil}): the key comes
     * back when it has lasted {@link RunStateMapper#QUIET} ({@link #retryAfter} says when), or
     * sooner with the next change.
     */
    HELD
  }

  /**
   * Non-terminal posts allowed per status key in one process lifetime. GitHub refuses the 1,001st
   * status for a SHA and context (422), so a run whose Kueue message keeps changing stops updating
   * its pending text long before that and still has room for its final state, which is always
   * posted.
   */
  public static final int NON_TERMINAL_BUDGET = 50;

  private static final System.Logger LOG = System.getLogger(Reconciler.class.getName());
  private final RunSource source;
  private final RunStateMapper mapper;
  private final ForgeDirectory forges;
  private final StatusLedger ledger;
  private final TargetUrl targetUrl;
  private final ForgeEvents events;
  private final Map<StatusKey, Refusal> refused = new HashMap<>();
  private final Clock clock;
  private final RunProgress progress;
  private final ProgressPosts progressPosts;
  private final JobHistory history = new JobHistory();
  private RunStopper stopper = RunStopper.NONE;

  /** Runs failed for a stall whose cluster stop was asked (once each). */
  private final Set<RunKey> stopped = new HashSet<>();

  /** Runs RUNNING but stalled (no progress nor log line for progressStallAfter), for the gauge. */
  private final Set<RunKey> stalledRunning = new HashSet<>();

  /**
   * Source repos no forge matches, logged once each (bounded: repos come from JobSets anyone may
   * create).
   */
  private final Set<String> unrouted = new HashSet<>();

  static final int MAX_UNROUTED = 1_000;

  /**
   * How long a refused status (401/403, another 4xx) waits before it is tried again, at the next
   * reconcile after that (the resync brings every run back): a fixed token is picked up within this
   * plus one resync, and a token that stays wrong costs one request per status every 10 minutes,
   * not one per resync.
   */
  public static final Duration REFUSED_RETRY = Duration.ofMinutes(10);

  /** What the forge refused, and when. */
  private record Refusal(PostedStatus status, Instant at) {}

  private final Map<StatusKey, Integer> posts = new HashMap<>();

  /**
   * The status key each run was last reconciled under, to drop its entries once the run is gone.
   */
  private final Map<RunKey, StatusKey> statusKeys = new HashMap<>();

  /** How long each key's last RETRY should wait, as the forge said; read once by the worker. */
  private final Map<RunKey, Duration> retryAfter = new HashMap<>();

  /**
   * Permission refusals already logged: (forge, HTTP status, project for a 403); cleared by a post
   * to that forge.
   */
  private final Set<List<Object>> refusalsLogged = new HashSet<>();

  /** The forge shows no status for the key. */
  private static final PostedStatus NOTHING = new PostedStatus("", "", "");

  public Reconciler(
      RunSource source,
      RunStateMapper mapper,
      ForgeDirectory forges,
      StatusLedger ledger,
      TargetUrl targetUrl,
      ForgeEvents events) {
    this(source, mapper, forges, ledger, targetUrl, events, Clock.systemUTC());
  }

  /** As above, with the clock {@link #REFUSED_RETRY} is measured on. */
  public Reconciler(
      RunSource source,
      RunStateMapper mapper,
      ForgeDirectory forges,
      StatusLedger ledger,
      TargetUrl targetUrl,
      ForgeEvents events,
      Clock clock) {
    this(source, mapper, forges, ledger, targetUrl, events, clock, RunProgress.NONE);
  }

  /**
   * As above, with each run's last progress from {@code progress} (told of every run's phase, so a
   * log follower follows the running ones), posted as {@link ProgressPosts#DEFAULT} allows.
   */
  public Reconciler(
      RunSource source,
      RunStateMapper mapper,
      ForgeDirectory forges,
      StatusLedger ledger,
      TargetUrl targetUrl,
      ForgeEvents events,
      Clock clock,
      RunProgress progress) {
    this(source, mapper, forges, ledger, targetUrl, events, clock, progress, ProgressPosts.DEFAULT);
  }

  /** As above, a progress posted as {@code posts} allows. */
  Reconciler(
      RunSource source,
      RunStateMapper mapper,
      ForgeDirectory forges,
      StatusLedger ledger,
      TargetUrl targetUrl,
      ForgeEvents events,
      Clock clock,
      RunProgress progress,
      ProgressPosts.Settings posts) {
    this.progress = progress;
    this.progressPosts = new ProgressPosts(posts);
    this.clock = clock;
    this.source = source;
    this.events = events;
    this.mapper = mapper;
    this.forges = forges;
    this.ledger = ledger;
    this.targetUrl = targetUrl;
  }

  /**
   * Stops the runs this reconciler fails for a stall ({@link
   * RunStateMapper.Limits#failStalledAfter}) through {@code stopper}; without one they are failed
   * on the commit only.
   */
  synchronized void stopStalledWith(RunStopper stopper) {
    this.stopper = Objects.requireNonNull(stopper, "stopper");
  }

  /** Brings {@code key}'s commit status in line with its run; never throws for forge errors. */
  public synchronized Outcome reconcile(RunKey key) {
    Optional<RunObservation> observed = observe(key);
    if (observed.isEmpty()) {
      Optional<RunSource.DeletedRun> deleted = source.deleted(key);
      if (deleted.isPresent()) {
        return closeDeleted(key, deleted.get());
      }
      forget(key);
      return Outcome.GONE;
    }
    return reconcile(key, observed.get());
  }

  /** {@link #reconcile(RunKey)} for the run observed as {@code o}, its progress filled in. */
  private Outcome reconcile(RunKey key, RunObservation o) {
    Optional<RunObservation> observed = Optional.of(o);
    Optional<RunProvenance> provenance = source.provenance(key);
    if (provenance.isEmpty()) {
      forget(key);
      return Outcome.GONE;
    }
    RunProvenance p = provenance.get();
    Optional<ForgeDirectory.Route> route = route(key, p);
    if (route.isEmpty()) {
      return Outcome.NO_FORGE;
    }
    if (RunStateMapper.provisional(observed.get())) {
      // A terminal status is final: wait (requeued) for the pod or Job that says why, at most
      // SETTLE.
      return Outcome.RETRY;
    }
    RunState state = mapper.map(observed.get());
    if (state.phase() == Phase.FAILED && state.stalled() && stopped.add(key)) {
      // Failed for a stall while its pods still run: stopped once, whatever the forge does.
      stopper.stop(key, state.description());
    }
    progress.track(key, observed.get(), state.phase());
    if (state.phase() == Phase.RUNNING && state.stalled()) {
      stalledRunning.add(key);
    } else {
      stalledRunning.remove(key);
    }
    Optional<Instant> quiet = RunStateMapper.quietUntil(observed.get(), state);
    if (quiet.isPresent()) {
      retryAfter.put(key, Duration.between(observed.get().now(), quiet.get()));
      return Outcome.HELD;
    }
    String context = p.context(key.namespace());
    CommitStatus wanted =
        new CommitStatus(
            RunStatus.of(state), state.description(), context, targetUrl.render(key, p));
    Forge forge = route.get().forge();
    CommitRef commit = new CommitRef(route.get().project(), p.sourceCommit());
    StatusKey statusKey = new StatusKey(forge.kind(), commit.project(), commit.sha(), context);
    statusKeys.put(key, statusKey);
    if (completed(observed.get())) {
      boolean open = ledger.get(statusKey).filter(StatusLedger::terminal).isEmpty();
      observed = Optional.of(ended(key, p, observed.get(), open));
      state = mapper.map(observed.get());
      wanted =
          new CommitStatus(RunStatus.of(state), state.description(), context, wanted.targetUrl());
      if (state.phase() == Phase.SUCCEEDED
          && RunStateMapper.untrained(observed.get(), state.duration()).isPresent()) {
        wanted = wanted.asQuestioned();
      }
    }
    Optional<FailedTail> failedTail = Optional.empty();
    if (state.phase() == Phase.FAILED
        && ledger.get(statusKey).filter(StatusLedger::terminal).isEmpty()) {
      failedTail = failedTail(key, observed.get(), state);
      Optional<String> why =
          failedTail.flatMap(t -> ErrorLine.of(t.text())).map(CredentialPatterns::mask);
      if (why.isPresent()) {
        wanted =
            new CommitStatus(
                wanted.state(),
                ErrorLine.into(wanted.description(), why.get()),
                wanted.context(),
                wanted.targetUrl());
      }
    }
    UnaryOperator<CommitStatus> logTail = UnaryOperator.identity();
    if (forge.detailed() && state.phase() == Phase.FAILED) {
      Optional<FailureReport> report = FailureReport.of(observed.get());
      if (report.isPresent()) {
        wanted = wanted.withDetails(report.get().markdown(), report.get().timedOut());
        Optional<FailedTail> tail = failedTail;
        logTail = s -> withLogTail(tail, s);
      }
    }
    Optional<Progress> shown = progressShown(observed.get(), state);
    if (shown.isPresent()) {
      wanted = wanted.withDetails(metricsTable(shown.get()), false);
      Optional<PostedStatus> known = ledger.get(statusKey);
      if (known.isPresent()
          && known.get().state().equals(forge.wireState(wanted))
          && !progressPosts.due(
              statusKey, shown.get(), observed.get().now(), known.get().description())) {
        return Outcome.UNCHANGED;
      }
    }
    try {
      Outcome outcome = apply(forge, commit, statusKey, wanted, logTail);
      if (shown.isPresent() && (outcome == Outcome.POSTED || outcome == Outcome.SKIPPED)) {
        progressPosts.posted(statusKey, shown.get(), observed.get().now(), wanted.description());
      }
      return outcome;
    } catch (ForgeException e) {
      return failed(key, statusKey, forge, wanted, e);
    }
  }

  /**
   * The progress {@code state}'s description shows (RUNNING, not stalled, the progress changed the
   * words), else empty: only such a post is spaced out by {@link ProgressPosts}.
   */
  private Optional<Progress> progressShown(RunObservation o, RunState state) {
    if (state.phase() != Phase.RUNNING || state.stalled() || o.progress().isEmpty()) {
      return Optional.empty();
    }
    String without = mapper.map(o.withProgress(Optional.empty())).description();
    return without.equals(state.description()) ? Optional.empty() : o.progress();
  }

  /**
   * The last metrics as a Markdown table, for a forge with room for details (GitHub Checks' output
   * text); "" without metrics. Names and values are the trainer's, with pipes escaped.
   */
  static String metricsTable(Progress p) {
    if (p.metrics().isEmpty()) {
      return "";
    }
    StringBuilder b = new StringBuilder("Last metrics (").append(ProgressText.position(p));
    b.append(", read at ").append(p.updatedAt()).append("):\n\n| metric | value |\n|---|---|\n");
    for (Progress.Metric m : p.metrics()) {
      b.append("| ")
          .append(m.name().replace("|", "\\|"))
          .append(" | ")
          .append(m.value().replace("|", "\\|"))
          .append(" |\n");
    }
    return b.toString();
  }

  /** Runs now RUNNING but stalled ({@code trainyard_runs_stalled}). */
  public synchronized int stalledRunning() {
    return stalledRunning.size();
  }

  /** The forge {@code p}'s source repo goes to; a repo no forge matches is logged once. */
  private Optional<ForgeDirectory.Route> route(RunKey key, RunProvenance p) {
    Optional<ForgeDirectory.Route> route = forges.route(p.sourceRepo());
    if (route.isEmpty() && unrouted.size() < MAX_UNROUTED && unrouted.add(p.sourceRepo())) {
      LOG.log(
          System.Logger.Level.WARNING,
          "run {0}: {1}; its commit status is not posted (logged once per repo)",
          key.cacheKey(),
          forges.unrouted(p.sourceRepo()));
    }
    return route;
  }

  /**
   * A run whose JobSet was deleted ({@code d}: the final object's provenance and observation). A
   * JobSet deleted after it finished gets its terminal state if the forge lacks it (a prune right
   * after the end). One deleted before it finished (a prune of an unfinished run, {@code kubectl
   * delete}, its namespace deleted, Kueue's {@code afterDeactivatedByKueue} retention) would leave
   * the forge's status pending for ever (on GitLab the external pipeline running): while the forge
   * shows a non-terminal status, DELETED is posted, "deleted before it finished (last:
   * DESCRIPTION)" ({@link RunStateMapper#deleted}; GitHub/Gitea "error", GitLab "canceled").
   * Nothing is posted where the forge shows nothing. Then the run is forgotten: the deleted object,
   * its ledger entry (a JobSet re-created under the name reads the forge again and finds the
   * terminal status) and counts.
   */
  private Outcome closeDeleted(RunKey key, RunSource.DeletedRun d) {
    Optional<ForgeDirectory.Route> route = route(key, d.provenance());
    if (route.isEmpty()) {
      source.forget(key);
      forget(key);
      return Outcome.NO_FORGE;
    }
    String context = d.provenance().context(key.namespace());
    Forge forge = route.get().forge();
    CommitRef commit = new CommitRef(route.get().project(), d.provenance().sourceCommit());
    StatusKey statusKey = new StatusKey(forge.kind(), commit.project(), commit.sha(), context);
    RunState state = mapper.map(d.last());
    String link = targetUrl.render(key, d.provenance());
    Outcome outcome;
    try {
      outcome = close(forge, commit, statusKey, state, d.last().jobSet(), link);
    } catch (ForgeException e) {
      outcome =
          failed(
              key,
              statusKey,
              forge,
              new CommitStatus(RunStatus.of(state), state.description(), context, link),
              e);
    }
    if (outcome != Outcome.RETRY) {
      // Settled, or refused (nothing re-enqueues a deleted run): the run is forgotten.
      source.forget(key);
      forget(key);
      ledger.forget(statusKey);
      posts.remove(statusKey);
      refused.remove(statusKey);
    }
    return outcome;
  }

  /**
   * Posts the final state of a deleted run: its own when its last object was terminal, else DELETED
   * over what the forge shows, unless that is nothing (GONE) or already terminal (FINAL).
   */
  private Outcome close(
      Forge forge,
      CommitRef commit,
      StatusKey statusKey,
      RunState state,
      JobSetSnapshot last,
      String link)
      throws ForgeException {
    RunState wanted = state;
    if (!state.phase().terminal()) {
      PostedStatus shown = known(forge, commit, statusKey, statusKey.context());
      if (shown.state().isEmpty()) {
        return Outcome.GONE;
      }
      if (StatusLedger.terminal(shown)) {
        return Outcome.FINAL;
      }
      wanted = RunStateMapper.deleted(last, shown.description());
    }
    return apply(
        forge,
        commit,
        statusKey,
        new CommitStatus(RunStatus.of(wanted), wanted.description(), statusKey.context(), link),
        UnaryOperator.identity());
  }

  /** Whether the run's JobSet completed (succeeded, whatever the mapper then calls it). */
  private static boolean completed(RunObservation o) {
    return ConditionSnapshot.holds(o.jobSet().conditions(), "Completed");
  }

  /** The lines and bytes of rank 0's log read once for a run that completed unseen. */
  static final int RANK_ZERO_LINES = 200;

  static final int RANK_ZERO_BYTES = 64 * 1024;

  /**
   * {@code o}, a completed run, with what tells whether it trained ({@link TrainingSigns}): its
   * job's usual duration ({@link JobHistory}), and while its status is still {@code open} on the
   * forge and it showed no progress, rank 0's log read once (a script that exits in seconds ends
   * before its log is followed): a log served and read counts, one that could not be read does not.
   * Its own duration then joins its job's history.
   */
  private RunObservation ended(RunKey key, RunProvenance p, RunObservation o, boolean open) {
    String job = JobHistory.job(key.namespace(), p);
    RunObservation out =
        o.withSigns(o.signs().withUsual(history.usual(job, key.cacheKey()).orElse(null)));
    if (open && o.progress().isEmpty()) {
      Optional<LogProgress> read = rankZeroLog(key, o);
      if (read.isPresent()) {
        LogProgress log = read.get();
        out =
            out.withProgress(log.current())
                .withSigns(
                    new TrainingSigns(
                        true,
                        Math.max(log.worldSize(), o.signs().worldSize()),
                        out.signs().usual()));
      }
    }
    history.record(job, key.cacheKey(), mapper.map(out).duration());
    return out;
  }

  /**
   * Rank 0's log ({@link LogFollower#rankZero}) read once: its last {@link #RANK_ZERO_LINES} lines
   * (at most {@link #RANK_ZERO_BYTES}); empty when it cannot be read (the pod is gone, no right to
   * pods/log, the kubelet or the API server refused).
   */
  private Optional<LogProgress> rankZeroLog(RunKey key, RunObservation o) {
    return LogFollower.rankZero(o)
        .flatMap(
            pod ->
                source.logTail(
                    key,
                    pod.name(),
                    pod.containers().get(0).name(),
                    RANK_ZERO_LINES,
                    RANK_ZERO_BYTES))
        .map(
            text -> {
              LogProgress log = new LogProgress();
              log.acceptText(text, o.now());
              return log;
            });
  }

  /** The lines and bytes of the failing container's log read for its error line. */
  static final int ERROR_LINES = 150;

  static final int ERROR_BYTES = 32 * 1024;

  /** The tail of the container that failed: its pod, its name and the text read. */
  private record FailedTail(String pod, String container, String text) {}

  /**
   * The last {@link #ERROR_LINES} lines (at most {@link #ERROR_BYTES}) of the container that failed
   * on the failure's node (newest attempt first, one whose container exited with the failure's code
   * before the others), read once before the terminal post: its error line goes into the
   * description ({@link ErrorLine}), its last {@link #LOG_LINES} lines into a detailed status.
   * Empty when the node, the pod or its log is unknown.
   */
  private Optional<FailedTail> failedTail(RunKey key, RunObservation o, RunState state) {
    if (state.node().isEmpty()) {
      return Optional.empty();
    }
    Integer exitCode = state.exitCode();
    Optional<PodSnapshot> pod =
        o.pods().stream()
            .filter(x -> x.node().equals(state.node()) && !x.containers().isEmpty())
            .max(
                Comparator.comparingInt(PodSnapshot::attempt)
                    .thenComparing(
                        x ->
                            x.containers().stream()
                                .anyMatch(
                                    c -> c.exitCode() != null && c.exitCode().equals(exitCode))));
    if (pod.isEmpty()) {
      return Optional.empty();
    }
    String container =
        pod.get().containers().stream()
            .filter(c -> c.exitCode() != null && c.exitCode().equals(exitCode))
            .findFirst()
            .orElse(pod.get().containers().get(0))
            .name();
    return source
        .logTail(key, pod.get().name(), container, ERROR_LINES, ERROR_BYTES)
        .filter(t -> !t.isBlank())
        .map(t -> new FailedTail(pod.get().name(), container, t));
  }

  /** The lines of a failed pod's log a detailed status shows, and the bytes read at most. */
  static final int LOG_LINES = 30;

  static final int LOG_BYTES = 16 * 1024;

  /**
   * {@code status} with the last {@link #LOG_LINES} lines (at most {@link #LOG_BYTES} bytes) of the
   * failing container's log appended, every credential-shaped string masked ({@link
   * CredentialPatterns#mask}); unchanged when that log is unknown.
   */
  private static CommitStatus withLogTail(Optional<FailedTail> tail, CommitStatus status) {
    return tail.map(
            t ->
                status.withDetails(
                    status.details()
                        + "\n\nLast lines of `"
                        + t.pod()
                        + "` (container `"
                        + t.container()
                        + "`, credential-shaped values masked):\n\n```text\n"
                        + CredentialPatterns.mask(lastLines(t.text())).replace("```", "` ` `")
                        + "\n```",
                    status.timedOut()))
        .orElse(status);
  }

  /** The last {@link #LOG_LINES} lines of {@code text}, at most {@link #LOG_BYTES} UTF-8 bytes. */
  static String lastLines(String text) {
    List<String> lines = text.strip().lines().toList();
    String last =
        String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_LINES), lines.size()));
    byte[] bytes = last.getBytes(StandardCharsets.UTF_8);
    if (bytes.length <= LOG_BYTES) {
      return last;
    }
    String cut = new String(bytes, bytes.length - LOG_BYTES, LOG_BYTES, StandardCharsets.UTF_8);
    int nl = cut.indexOf('\n');
    return nl < 0 ? cut : cut.substring(nl + 1);
  }

  /**
   * What the forge shows for {@code statusKey}: the ledger's entry, else read once and recorded.
   */
  private PostedStatus known(Forge forge, CommitRef commit, StatusKey statusKey, String context)
      throws ForgeException {
    Optional<PostedStatus> known = ledger.get(statusKey);
    if (known.isEmpty()) {
      // Recorded even when the forge shows nothing, so the forge is read once per status key.
      known = Optional.of(forge.current(commit, context).orElse(NOTHING));
      ledger.record(statusKey, known.get());
    }
    return known.get();
  }

  /**
   * Posts {@code wanted} when the forge's state or description would change; {@code enrich} adds
   * what is costly to gather (a log tail) to the status actually sent.
   */
  private Outcome apply(
      Forge forge,
      CommitRef commit,
      StatusKey statusKey,
      CommitStatus wanted,
      UnaryOperator<CommitStatus> enrich)
      throws ForgeException {
    PostedStatus next =
        new PostedStatus(forge.wireState(wanted), wanted.description(), wanted.targetUrl());
    Refusal refusal = refused.get(statusKey);
    if (refusal != null
        && next.equals(refusal.status())
        && clock.instant().isBefore(refusal.at().plus(REFUSED_RETRY))) {
      return Outcome.REFUSED;
    }
    PostedStatus known = known(forge, commit, statusKey, wanted.context());
    if (StatusLedger.terminal(known)) {
      return Outcome.FINAL;
    }
    if (same(known, next)) {
      return Outcome.UNCHANGED;
    }
    if (!StatusLedger.terminal(next) && posts.getOrDefault(statusKey, 0) >= NON_TERMINAL_BUDGET) {
      return Outcome.THROTTLED;
    }
    Forge.PostOutcome outcome = forge.post(commit, enrich.apply(wanted));
    ledger.record(statusKey, next);
    refused.remove(statusKey);
    refusalsLogged.removeIf(r -> r.get(0) == forge);
    posts.merge(statusKey, 1, Integer::sum);
    events.called(forge.kind(), outcome == Forge.PostOutcome.POSTED ? "posted" : "skipped");
    return outcome == Forge.PostOutcome.POSTED ? Outcome.POSTED : Outcome.SKIPPED;
  }

  private Outcome failed(
      RunKey key, StatusKey statusKey, Forge forge, CommitStatus wanted, ForgeException e) {
    events.called(forge.kind(), e.sent() ? e.kind().name().toLowerCase(Locale.ROOT) : "gated");
    if (e.retryable()) {
      e.retryAfter().ifPresent(d -> retryAfter.put(key, d));
      // Only the call that found the forge so is news; the ones its gate held back are not.
      LOG.log(
          e.sent() ? System.Logger.Level.WARNING : System.Logger.Level.DEBUG,
          "run {0}: {1} {2}, will retry:" + " {3}",
          key.cacheKey(),
          forge.kind(),
          e.kind() == ForgeException.Kind.RATE_LIMITED ? "rate limited" : "unavailable",
          e.getMessage());
      return Outcome.RETRY;
    }
    refused.put(
        statusKey,
        new Refusal(
            new PostedStatus(forge.wireState(wanted), wanted.description(), wanted.targetUrl()),
            clock.instant()));
    boolean news =
        e.kind() != ForgeException.Kind.PERMISSION
            || refusalsLogged.add(
                List.of(forge, e.httpStatus(), e.httpStatus() == 403 ? statusKey.project() : ""));
    LOG.log(
        news ? System.Logger.Level.ERROR : System.Logger.Level.DEBUG,
        "run {0}: {1} refused the commit status" + " ({2}): {3}{4}",
        key.cacheKey(),
        forge.kind(),
        e.kind(),
        e.getMessage(),
        e.kind() == ForgeException.Kind.PERMISSION
            ? " (said once until this forge accepts a status again)"
            : "");
    return Outcome.REFUSED;
  }

  /**
   * How long {@code key}'s last RETRY should wait, as the forge or its gate said; forgotten once
   * read.
   */
  public synchronized Optional<Duration> retryAfter(RunKey key) {
    return Optional.ofNullable(retryAfter.remove(key));
  }

  /**
   * {@code key}'s run as the caches show it, with its last progress ({@link RunProgress}: read from
   * its log or pushed by its pods, {@link ProgressEndpoint}) and where it resumed from (its log)
   * when the observation carries none; empty when its JobSet is gone.
   */
  Optional<RunObservation> observe(RunKey key) {
    return source
        .observe(key)
        .map(o -> o.progress().isPresent() ? o : o.withProgress(progress.progress(key)))
        .map(o -> o.resumed().isPresent() ? o : o.withResumed(progress.resumed(key)))
        .map(o -> o.withSigns(progress.signs(key)));
  }

  /** Drops what is held for {@code key}'s status: its run is gone. */
  private void forget(RunKey key) {
    retryAfter.remove(key);
    stopped.remove(key);
    progress.forget(key);
    stalledRunning.remove(key);
    StatusKey gone = statusKeys.remove(key);
    if (gone != null) {
      progressPosts.forget(gone);
      ledger.forget(gone);
      posts.remove(gone);
      refused.remove(gone);
    }
  }

  /**
   * Same state and description (the link is not compared: a changed template alone posts nothing).
   */
  private static boolean same(PostedStatus a, PostedStatus b) {
    return a.state().equals(b.state()) && a.description().equals(b.description());
  }

  /** Forgets refusals (a new leadership term starts from the forge's view). */
  public synchronized void reset() {
    refused.clear();
    posts.clear();
    progressPosts.clear();
    ledger.clear();
    refusalsLogged.clear();
  }
}
