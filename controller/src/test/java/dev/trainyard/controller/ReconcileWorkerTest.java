package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The worker loop over a real WorkQueue, with reconcile outcomes chosen per test. */
class ReconcileWorkerTest {

  static final RunKey A = new RunKey("ns", "a");
  final ControllerMetrics metrics = new ControllerMetrics();
  final List<RunKey> reconciled = new ArrayList<>();

  ReconcileWorker worker(WorkQueue q, Reconciler.Outcome outcome, boolean leading) {
    return worker(q, outcome, leading, Optional.empty());
  }

  ReconcileWorker worker(
      WorkQueue q, Reconciler.Outcome outcome, boolean leading, Optional<Duration> retryAfter) {
    return new ReconcileWorker(
        q,
        k -> {
          reconciled.add(k);
          return outcome;
        },
        k -> retryAfter,
        () -> leading,
        () -> false,
        metrics);
  }

  @Test
  @DisplayName(
      "a leader reconciles the key, counts the outcome with its latency and marks the key done (it can be taken again)")
  void leaderReconciles() throws Exception {
    try (WorkQueue q = new WorkQueue()) {
      q.add(A);
      worker(q, Reconciler.Outcome.POSTED, true).handle(q.take(Duration.ZERO));
      assertEquals(List.of(A), reconciled);
      assertEquals(1, metrics.counter("trainyard_reconciles_total{outcome=\"posted\"}"));
      assertTrue(metrics.render().contains("trainyard_reconcile_seconds_count 1\n"));
      assertTrue(
          metrics.render().contains("trainyard_reconcile_seconds_bucket{le=\"30.0\"} 1\n"),
          "the latency is the reconcile's own, well under 30 s: " + metrics.render());
      q.add(A);
      assertEquals(A, q.take(Duration.ZERO), "done: the key is handed out again");
      assertNull(q.take(Duration.ofMillis(20)), "not requeued after POSTED");
    }
  }

  @Test
  @DisplayName("a follower drops keys without reconciling or counting, and marks them done")
  void followerDrops() throws Exception {
    try (WorkQueue q = new WorkQueue()) {
      q.add(A);
      worker(q, Reconciler.Outcome.POSTED, false).handle(q.take(Duration.ZERO));
      assertTrue(reconciled.isEmpty());
      assertEquals(0, metrics.counter("trainyard_reconciles_total{outcome=\"posted\"}"));
      q.add(A);
      assertEquals(A, q.take(Duration.ZERO));
    }
  }

  @Test
  @DisplayName(
      "RETRY, and an exception thrown by reconcile, put the key back after its back-off (first 300 ms here)")
  void retries() throws Exception {
    try (WorkQueue q = new WorkQueue(Duration.ofMillis(300), Duration.ofSeconds(5))) {
      q.add(A);
      worker(q, Reconciler.Outcome.RETRY, true).handle(q.take(Duration.ZERO));
      assertNull(q.take(Duration.ofMillis(50)), "not before the delay");
      assertEquals(A, q.take(Duration.ofSeconds(5)));
      q.done(A);
      ReconcileWorker failing =
          new ReconcileWorker(
              q,
              k -> {
                throw new IllegalStateException("cache surprise");
              },
              k -> Optional.empty(),
              () -> true,
              () -> false,
              metrics);
      try (LogLines log = new LogLines(ReconcileWorker.class)) {
        failing.handle(A);
        assertEquals(
            List.of(
                "SEVERE reconcile of ns/a failed [java.lang.IllegalStateException: cache surprise]"),
            log.lines,
            "the surprise is logged with its exception");
      }
      assertEquals(2, metrics.counter("trainyard_reconciles_total{outcome=\"retry\"}"));
      assertEquals(2, q.retries(A), "the second retry in a row: 600 ms");
      assertNull(q.take(Duration.ofMillis(350)), "the back-off doubled");
      assertEquals(A, q.take(Duration.ofSeconds(5)));
    }
  }

  @Test
  @DisplayName(
      "a RETRY waits at least what the forge named (a rate limit's reset), even beyond the back-off")
  void retryAfterWins() throws Exception {
    try (WorkQueue q = new WorkQueue(Duration.ofMillis(10), Duration.ofMillis(20))) {
      q.add(A);
      worker(q, Reconciler.Outcome.RETRY, true, Optional.of(Duration.ofMillis(400)))
          .handle(q.take(Duration.ZERO));
      assertNull(q.take(Duration.ofMillis(200)), "the forge's 400 ms, not the 10 ms back-off");
      assertEquals(A, q.take(Duration.ofSeconds(5)));
    }
  }

  @Test
  @DisplayName(
      "a HELD key comes back once at the time the reconciler named, without back-off, its retries in a row ended")
  void held() throws Exception {
    try (WorkQueue q = new WorkQueue(Duration.ofSeconds(5), Duration.ofSeconds(5))) {
      q.addRateLimited(A, Duration.ZERO);
      q.add(A);
      assertEquals(1, q.retries(A));
      worker(q, Reconciler.Outcome.HELD, true, Optional.of(Duration.ofMillis(300)))
          .handle(q.take(Duration.ZERO));
      assertEquals(0, q.retries(A), "a hold is no failure");
      assertNull(q.take(Duration.ofMillis(150)), "not before the named time");
      assertEquals(A, q.take(Duration.ofSeconds(3)), "at the named 300 ms, not the 5 s back-off");
      assertEquals(1, metrics.counter("trainyard_reconciles_total{outcome=\"held\"}"));
    }
  }

  @Test
  @DisplayName("a HELD key without a named time comes back after HELD_AGAIN")
  void heldWithoutTime() throws Exception {
    try (WorkQueue q = new WorkQueue(Duration.ofMillis(10), Duration.ofMillis(10))) {
      q.add(A);
      worker(q, Reconciler.Outcome.HELD, true).handle(q.take(Duration.ZERO));
      assertNull(q.take(ReconcileWorker.HELD_AGAIN.minusMillis(300)), "not at the 10 ms back-off");
      assertEquals(A, q.take(Duration.ofSeconds(5)));
    }
  }

  @Test
  @DisplayName("any other outcome ends the key's retries in a row; a follower forgets them too")
  void successForgets() throws Exception {
    try (WorkQueue q = new WorkQueue(Duration.ofMillis(1), Duration.ofMillis(1))) {
      q.add(A);
      worker(q, Reconciler.Outcome.RETRY, true).handle(q.take(Duration.ZERO));
      assertEquals(1, q.retries(A));
      worker(q, Reconciler.Outcome.POSTED, true).handle(q.take(Duration.ofSeconds(5)));
      assertEquals(0, q.retries(A));
      q.addRateLimited(A, Duration.ZERO);
      worker(q, Reconciler.Outcome.POSTED, false).handle(q.take(Duration.ofSeconds(5)));
      assertEquals(0, q.retries(A));
    }
  }

  @Test
  @DisplayName("the loop takes keys until closed, then returns")
  void loop() throws Exception {
    AtomicBoolean closed = new AtomicBoolean();
    try (WorkQueue q = new WorkQueue()) {
      ReconcileWorker w =
          new ReconcileWorker(
              q,
              k -> {
                synchronized (reconciled) {
                  reconciled.add(k);
                  closed.set(true);
                }
                return Reconciler.Outcome.UNCHANGED;
              },
              k -> Optional.empty(),
              () -> true,
              closed::get,
              metrics);
      Thread t = new Thread(w);
      t.start();
      q.add(A);
      t.join(10_000);
      assertTrue(!t.isAlive(), "the loop ended after close");
      synchronized (reconciled) {
        assertEquals(List.of(A), reconciled);
      }
    }
  }
}
