package dev.trainyard.cli;

import dev.trainyard.gitops.PublishProgress;
import java.io.PrintWriter;
import java.time.Duration;

/**
 * While {@code submit} or {@code prune} publishes, a JVM shutdown hook that prints, when the
 * process is told to stop (Ctrl-C's SIGINT, SIGTERM), the one line {@link
 * PublishProgress#interruptedLine()} says: nothing was pushed, the commit landed, or a push in
 * flight whose outcome is unknown. The JVM then ends with 128 + the signal's number (130 for
 * SIGINT, 143 for SIGTERM), as shells report a process a signal ended.
 *
 * <pre>
 * InterruptReport watch = InterruptReport.watch(progress, err);
 * try {
 *   new Submitter(cache, env, clock, progress).submit(request);
 * } finally {
 *   watch.close();
 * }
 * </pre>
 */
final class InterruptReport implements CallStop.Watch {
  /** How long a push in flight may still answer before the line calls its outcome unknown. */
  static final Duration PUSH_GRACE = Duration.ofSeconds(5);

  /** The registered hook (tests check that it is registered and removed). */
  final Thread hook;

  private InterruptReport(Thread hook) {
    this.hook = hook;
  }

  /** Registers the hook; {@link #close()} removes it once the publish has returned. */
  static InterruptReport watch(PublishProgress progress, PrintWriter err) {
    Thread hook = new Thread(() -> report(progress, err, PUSH_GRACE), "trainyard-interrupt-report");
    Runtime.getRuntime().addShutdownHook(hook);
    return new InterruptReport(hook);
  }

  /** Waits up to {@code grace} for a push in flight, then prints the line. */
  static void report(PublishProgress progress, PrintWriter err, Duration grace) {
    try {
      progress.awaitSettled(grace);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    err.println("trainyard: " + progress.interruptedLine());
    err.flush();
  }

  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // The JVM is already shutting down: the hook is running and prints the line.
    }
  }
}
