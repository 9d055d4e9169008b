package dev.trainyard.gitops;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * How far a publish ({@code submit}, {@code prune}) has got, for a process that is told to stop
 * (Ctrl-C's SIGINT, SIGTERM) and must say in one line whether its GitOps commit landed. {@link
 * Publisher} moves it; a shutdown hook reads it from another thread, so every method is
 * synchronized.
 *
 * <pre>
 * PublishProgress progress = new PublishProgress();
 * Runtime.getRuntime().addShutdownHook(new Thread(() -&gt; {
 *   progress.awaitSettled(Duration.ofSeconds(5));   // a push in flight may still answer
 *   System.err.println("trainyard: " + progress.interruptedLine());
 * }));
 * new Submitter(cache, env, clock, progress).submit(request);
 * </pre>
 *
 * <p>A push whose answer never came is {@link Phase#PUSHING}: the server may or may not have moved
 * the branch (a pre-receive hook can still refuse it, a post-receive hook runs after the move), so
 * the line says it is unknown and how to look ({@code git ls-remote}, git-ls-remote(1)).
 */
public final class PublishProgress {
  /** How far the publish got. */
  public enum Phase {
    /** Fetching, planning, compiling, or re-planning after a lost race: the remote is unchanged. */
    NOT_PUSHED,
    /** A push was sent and its answer has not come: the outcome is unknown. */
    PUSHING,
    /** The remote branch points at the commit. */
    PUSHED
  }

  private final Consumer<String> notes;
  private Phase phase = Phase.NOT_PUSHED;
  private String repository = "";
  private String branch = "";
  private String commit = "";
  private boolean stopped;

  /** Progress whose {@linkplain #note notes} are dropped. */
  public PublishProgress() {
    this(line -> {});
  }

  /**
   * Progress that hands each {@linkplain #note note} to {@code notes} as it happens (the CLI prints
   * it on stderr as {@code trainyard: note: <line>}).
   */
  public PublishProgress(Consumer<String> notes) {
    this.notes = notes;
  }

  /**
   * What the publish did about a failure it got past, in one line without a prefix: a fetch or push
   * tried again after a reset, a timeout or a 5xx, or a push whose answer was lost but that the
   * branch holds.
   */
  public void note(String line) {
    notes.accept(line);
  }

  /** The phase now. */
  public synchronized Phase phase() {
    return phase;
  }

  /** A publish to {@code repository}'s {@code branch} starts (or re-plans): nothing is pushed. */
  public synchronized void publishing(String repository, String branch) {
    this.repository = repository;
    this.branch = branch;
    this.phase = Phase.NOT_PUSHED;
    notifyAll();
  }

  /**
   * Stops the publish before its push: once called, {@link #startPush} refuses, so the phase is
   * {@link Phase#NOT_PUSHED} for good unless a push was already sent (then the phase says how it
   * ended, as for a signal). For a process that cannot simply end its JVM: the resident server,
   * whose caller pressed Ctrl-C. Fetches, plans and compiles already running go on and are thrown
   * away.
   */
  public synchronized void stop() {
    stopped = true;
  }

  /** Whether {@link #stop} was called. */
  public synchronized boolean isStopped() {
    return stopped;
  }

  /**
   * A push of {@code commit} to {@code repository}'s {@code branch} is to be sent now: the phase
   * becomes {@link Phase#PUSHING}, atomically with the check that the publish was not {@linkplain
   * #stop stopped} (so a stop either comes first and no push is sent, or comes after and reports a
   * push in flight).
   *
   * @throws GitOpsException the publish was stopped: nothing was pushed
   */
  public synchronized void startPush(String repository, String branch, String commit)
      throws GitOpsException {
    if (stopped) {
      throw new GitOpsException(
          "stopped before pushing " + commit + " to " + repository + " (" + branch + ")",
          "nothing was pushed");
    }
    pushing(repository, branch, commit);
  }

  /** A push of {@code commit} to {@code repository}'s {@code branch} is about to be sent. */
  public synchronized void pushing(String repository, String branch, String commit) {
    this.repository = repository;
    this.branch = branch;
    this.commit = commit;
    this.phase = Phase.PUSHING; // starts a wait, never ends one: no notify
  }

  /** The push's answer came: the branch moved ({@code landed}) or another push won the race. */
  public synchronized void answered(boolean landed) {
    phase = landed ? Phase.PUSHED : Phase.NOT_PUSHED;
    notifyAll();
  }

  /**
   * Waits while a push is in flight, at most {@code limit}, for its answer; returns the phase then.
   */
  public synchronized Phase awaitSettled(Duration limit) throws InterruptedException {
    long until = System.nanoTime() + limit.toNanos();
    for (long left = until - System.nanoTime();
        phase == Phase.PUSHING && left > 0;
        left = until - System.nanoTime()) {
      wait(Math.max(1, left / 1_000_000));
    }
    return phase;
  }

  /**
   * The one line an interrupted command prints (without the {@code trainyard: } prefix), e.g.
   * {@code interrupted after the push: <sha> landed in https://git.example.com/gitops.git (main)}.
   */
  public synchronized String interruptedLine() {
    String where = repository + " (" + branch + ")";
    return switch (phase) {
      case NOT_PUSHED ->
          "interrupted; nothing was pushed" + (repository.isEmpty() ? "" : " to " + where);
      case PUSHING ->
          "interrupted while pushing "
              + commit
              + " to "
              + where
              + ": whether it landed is unknown; check with git ls-remote "
              + repository
              + " refs/heads/"
              + branch;
      case PUSHED -> "interrupted after the push: " + commit + " landed in " + where;
    };
  }
}
