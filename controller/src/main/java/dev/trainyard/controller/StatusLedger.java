package dev.trainyard.controller;

import dev.trainyard.controller.forge.PostedStatus;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What each run's commit status is known to show, by status key (forge project, commit, context):
 * the last status posted or read from the forge. Held in memory: after a restart or a leadership
 * change it is empty and the reconciler reads the forge first, so nothing already there is posted
 * again; a run's entry is dropped once its JobSet is gone, so the ledger holds the runs that exist,
 * not every run ever seen.
 */
public final class StatusLedger {

  /** Where one status lives: forge kind, project, commit SHA and context. */
  public record StatusKey(String forge, String project, String sha, String context) {}

  /**
   * Wire states after which nothing is posted, across the three forges' statuses and GitHub's
   * check-run conclusions.
   */
  static final Set<String> TERMINAL =
      Set.of(
          "success",
          "failure",
          "error",
          "failed",
          "canceled",
          "skipped",
          "cancelled",
          "timed_out",
          "neutral",
          "action_required",
          "stale");

  private final Map<StatusKey, PostedStatus> known = new HashMap<>();

  public synchronized Optional<PostedStatus> get(StatusKey key) {
    return Optional.ofNullable(known.get(key));
  }

  public synchronized void record(StatusKey key, PostedStatus status) {
    known.put(key, status);
  }

  /** Whether {@code status} is terminal on its forge. */
  static boolean terminal(PostedStatus status) {
    return TERMINAL.contains(status.state());
  }

  /** Forgets {@code key} (its run is gone: should it come back, the forge is read again first). */
  public synchronized void forget(StatusKey key) {
    known.remove(key);
  }

  /** Forgets everything (a new leadership term: the forge is the truth again). */
  public synchronized void clear() {
    known.clear();
  }

  public synchronized int size() {
    return known.size();
  }
}
