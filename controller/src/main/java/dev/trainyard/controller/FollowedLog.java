package dev.trainyard.controller;

import dev.trainyard.controller.state.LogProgress;
import dev.trainyard.controller.state.Progress;
import dev.trainyard.controller.state.Resumed;
import dev.trainyard.controller.state.TrainingSigns;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The sink one followed container log is streamed into: cuts the bytes into lines at {@code \n} and
 * {@code \r} (tqdm redraws its bar with {@code \r}), feeds them to a {@link LogProgress}, and calls
 * {@code changed} when the progress changed enough to be worth a reconcile ({@link #meaningful}).
 * Bytes over the run's or the controller's budget are dropped, and the line they cut is skipped up
 * to the next line end; they still count as a sign of life. A line longer than {@link
 * LogProgress#MAX_SEGMENT} bytes is not kept. Thread-safe.
 */
final class FollowedLog extends OutputStream {

  private final ByteBudget own;
  private final ByteBudget total;
  private final Clock clock;
  private final Duration stallAfter;
  private final Runnable changed;
  private final Consumer<Long> dropped;
  private final LogProgress parser = new LogProgress();
  private final ByteArrayOutputStream line = new ByteArrayOutputStream();
  private boolean skipping;

  /**
   * @param stallAfter a progress that moves again after standing still this long is worth a
   *     reconcile (the run is no longer stalled)
   * @param dropped told the number of bytes dropped over budget
   */
  FollowedLog(
      ByteBudget own,
      ByteBudget total,
      Clock clock,
      Duration stallAfter,
      Runnable changed,
      Consumer<Long> dropped) {
    this.own = own;
    this.total = total;
    this.clock = clock;
    this.stallAfter = stallAfter;
    this.changed = changed;
    this.dropped = dropped;
  }

  @Override
  public void write(int b) {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] b, int off, int len) {
    boolean worth;
    synchronized (this) {
      worth = consume(b, off, len);
    }
    // Outside the lock: the reconciler reads this log's progress while the work queue may be busy.
    if (worth) {
      changed.run();
    }
  }

  /** Reads one chunk; whether the progress changed enough to be worth a reconcile. */
  private boolean consume(byte[] b, int off, int len) {
    Objects.checkFromIndexSize(off, len, b.length);
    if (!own.take(len) || !total.take(len)) {
      dropped.accept((long) len);
      // The line it cut is skipped up to its end, where the buffer is reset.
      skipping = true;
      return touch();
    }
    boolean worth = false;
    for (int i = off; i < off + len; i++) {
      byte x = b[i];
      if (x == '\n' || x == '\r') {
        if (!skipping) {
          worth |= emit();
        }
        skipping = false;
        line.reset();
      } else if (!skipping && line.size() <= LogProgress.MAX_SEGMENT) {
        line.write(x);
      }
    }
    if (!skipping && redrawn(b, off, len)) {
      // A bar redrawn with \r is complete when written; its end is the next redraw, which may be
      // minutes away: read it now (again at its end, unchanged).
      worth |= emit();
    }
    return worth;
  }

  /**
   * Whether the chunk ends inside a segment that looks whole: a tqdm bar ("…it/s]") or a Keras bar
   * erased with backspaces.
   */
  private boolean redrawn(byte[] b, int off, int len) {
    // An empty line buffer cannot end in ']' or '\b' when the chunk has bytes: it holds its last.
    if (len == 0) {
      return false;
    }
    byte last = b[off + len - 1];
    return last == ']' || last == '\b';
  }

  /** The progress read so far. */
  synchronized Optional<Progress> progress() {
    return parser.current();
  }

  /** Where the attempt resumed from, as read so far ({@link LogProgress#resumed}). */
  synchronized Optional<Resumed> resumed() {
    return parser.resumed();
  }

  /**
   * Reads the first bytes of the log ({@code head}, read apart from the followed tail, which may
   * start after it) for the checkpoint script's resume line only, unless the tail showed one
   * already (it is newer); calls {@code changed} when that line was new.
   */
  void head(String head) {
    boolean worth = false;
    synchronized (this) {
      for (String segment : head.split("[\r\n]")) {
        if (parser.resumed().isEmpty() && Resumed.parse(segment).isPresent()) {
          parser.accept(segment, clock.instant());
          worth = true;
        }
      }
    }
    if (worth) {
      changed.run();
    }
  }

  /** Whether a line was read, and the world size it printed ({@link LogProgress#worldSize}). */
  synchronized TrainingSigns signs() {
    return new TrainingSigns(parser.read(), parser.worldSize(), null);
  }

  private boolean emit() {
    Optional<Progress> before = parser.current();
    Optional<Resumed> resumedBefore = parser.resumed();
    parser.accept(line.toString(StandardCharsets.UTF_8), clock.instant());
    return meaningful(before, parser.current(), stallAfter)
        || !resumedBefore.equals(parser.resumed());
  }

  private boolean touch() {
    Optional<Progress> before = parser.current();
    parser.accept("", clock.instant());
    return meaningful(before, parser.current(), stallAfter);
  }

  /**
   * Whether going from {@code before} to {@code after} is worth a reconcile: the first progress, a
   * new whole percent or total, the first metrics, or a progress that moved after standing still
   * for {@code stallAfter}. Not a new step without a new percent nor a new metric value (a plain
   * loop prints ten a second): the next of these, or the resync, shows them.
   */
  static boolean meaningful(Optional<Progress> before, Optional<Progress> after, Duration stall) {
    if (after.isEmpty()) {
      return false;
    }
    if (before.isEmpty()) {
      return true;
    }
    Progress a = before.get();
    Progress b = after.get();
    if (Duration.between(a.updatedAt(), b.updatedAt()).compareTo(stall) > 0) {
      return true;
    }
    return !Objects.equals(a.percent(), b.percent())
        || !Objects.equals(a.totalSteps(), b.totalSteps())
        || a.metrics().isEmpty() != b.metrics().isEmpty();
  }
}
