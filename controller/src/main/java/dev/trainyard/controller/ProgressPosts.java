package dev.trainyard.controller;

import dev.trainyard.controller.StatusLedger.StatusKey;
import dev.trainyard.controller.state.Progress;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * When a running run's progress is worth a commit status post: the forge keeps at most 1,000
 * statuses per commit and context (GitHub refuses the 1,001st with 422), and a post per step would
 * be noise on the pull request. While the forge shows the last progress post, a new one is posted
 * when it is the first, when its percent crosses the next multiple of {@code stepPercent} (10: at
 * 10 %, 20 % …), or when {@code every} has passed since the last progress post and the step moved;
 * never once {@code budget} progress posts went out for the status key, so the stall, a restart and
 * the terminal state always have room ({@link Reconciler#NON_TERMINAL_BUDGET}).
 */
final class ProgressPosts {

  /** 10 %, every 30 minutes, 35 progress posts of the 50 non-terminal ones. */
  static final ProgressPosts.Settings DEFAULT =
      new ProgressPosts.Settings(10, Duration.ofMinutes(30), 35);

  /** The percent step, the longest time between progress posts, and the most progress posts. */
  record Settings(int stepPercent, Duration every, int budget) {}

  private record Posted(Integer percent, Long step, Instant at, int count, String description) {}

  private final Settings settings;
  private final Map<StatusKey, Posted> posted = new HashMap<>();

  ProgressPosts(Settings settings) {
    this.settings = settings;
  }

  /**
   * Whether {@code p} should be posted for {@code key} at {@code now}, the forge showing {@code
   * shown}: always when that is not the last progress post (a stall, a dead rank, nodes ready).
   */
  synchronized boolean due(StatusKey key, Progress p, Instant now, String shown) {
    Posted last = posted.get(key);
    if (last == null || !last.description().equals(shown)) {
      return true;
    }
    if (last.count() >= settings.budget()) {
      return false;
    }
    if (p.percent() != null
        && (last.percent() == null
            || p.percent() / settings.stepPercent() > last.percent() / settings.stepPercent())) {
      return true;
    }
    boolean moved = p.step() != null ? !p.step().equals(last.step()) : p.percent() != null;
    return moved && !now.isBefore(last.at().plus(settings.every()));
  }

  /** {@code p} was posted for {@code key} at {@code now} as {@code description}. */
  synchronized void posted(StatusKey key, Progress p, Instant now, String description) {
    Posted last = posted.get(key);
    posted.put(
        key,
        new Posted(p.percent(), p.step(), now, last == null ? 1 : last.count() + 1, description));
  }

  synchronized void forget(StatusKey key) {
    posted.remove(key);
  }

  synchronized void clear() {
    posted.clear();
  }
}
