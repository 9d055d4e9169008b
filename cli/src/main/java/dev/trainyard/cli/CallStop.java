package dev.trainyard.cli;

import dev.trainyard.gitops.PublishProgress;
import java.io.PrintWriter;

/**
 * Where the request to stop a publishing call ({@code submit}, {@code prune}) comes from, and what
 * then says whether its GitOps commit landed: the JVM's own signals for a call in its own process
 * ({@link #SIGNALS}: a shutdown hook prints the line, then the JVM ends), or the client of a call
 * the resident server runs (its Ctrl-C arrives as a stop frame: {@link ResidentServer}, which
 * {@linkplain PublishProgress#stop() stops} the publish before its push and prints the same line to
 * the client).
 *
 * <pre>
 * try (CallStop.Watch watch = invocation.stop().watch(progress, err)) {
 *   new Submitter(cache, env, clock, progress).submit(request);
 * }
 * </pre>
 */
@FunctionalInterface
interface CallStop {
  /**
   * Watches {@code progress} until the returned watch is closed: a stop meanwhile prints {@link
   * PublishProgress#interruptedLine()} on {@code err} (after waiting up to {@link
   * InterruptReport#PUSH_GRACE} for a push in flight).
   */
  Watch watch(PublishProgress progress, PrintWriter err);

  /** A registered watch; {@link #close()} ends it once the publish has returned. */
  interface Watch extends AutoCloseable {
    @Override
    void close();
  }

  /** SIGINT, SIGTERM or SIGHUP to this JVM ({@link InterruptReport}). */
  CallStop SIGNALS = InterruptReport::watch;
}
