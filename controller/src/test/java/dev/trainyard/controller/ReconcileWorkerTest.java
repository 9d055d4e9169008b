package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The worker loop over a real WorkQueue, with reconcile outcomes chosen per test. */
class ReconcileWorkerTest {

  static final RunKey A = new RunKey("ns", "a");
  final ControllerMetrics metrics = new ControllerMetrics();
  final List<RunKey> reconciled = new ArrayList<>();

  ReconcileWorker worker(
      WorkQueue q, Reconciler.Outcome outcome, boolean leading, Duration requeue) {
    return new ReconcileWorker(
        q,
        k -> {
          reconciled.add(k);
          return outcome;
        },
        () -> leading,
        () -> false,
        metrics,
        requeue);
  }

  @Test
  @DisplayName(
      "a leader reconciles the key, counts the outcome with its latency and marks the key done (it can be taken again)")
  void leaderReconciles() throws Exception {
    try (WorkQueue q = new WorkQueue()) {
      q.add(A);
      worker(q, Reconciler.Outcome.POSTED, true, Duration.ZERO).handle(q.take(Duration.ZERO));
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
      worker(q, Reconciler.Outcome.POSTED, false, Duration.ZERO).handle(q.take(Duration.ZERO));
      assertTrue(reconciled.isEmpty());
      assertEquals(0, metrics.counter("trainyard_reconciles_total{outcome=\"posted\"}"));
      q.add(A);
      assertEquals(A, q.take(Duration.ZERO));
    }
  }

  @Test
  @DisplayName(
      "RETRY, and an exception thrown by reconcile, put the key back after the requeue delay")
  void retries() throws Exception {
    try (WorkQueue q = new WorkQueue()) {
      q.add(A);
      worker(q, Reconciler.Outcome.RETRY, true, Duration.ofMillis(300))
          .handle(q.take(Duration.ZERO));
      assertNull(q.take(Duration.ofMillis(50)), "not before the delay");
      assertEquals(A, q.take(Duration.ofSeconds(5)));
      ReconcileWorker failing =
          new ReconcileWorker(
              q,
              k -> {
                throw new IllegalStateException("cache surprise");
              },
              () -> true,
              () -> false,
              metrics,
              Duration.ofMillis(10));
      try (LogLines log = new LogLines(ReconcileWorker.class)) {
        failing.handle(A);
        assertEquals(
            List.of(
                "SEVERE reconcile of ns/a failed [java.lang.IllegalStateException: cache surprise]"),
            log.lines,
            "the surprise is logged with its exception");
      }
      assertEquals(2, metrics.counter("trainyard_reconciles_total{outcome=\"retry\"}"));
      assertEquals(A, q.take(Duration.ofSeconds(5)));
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
              () -> true,
              closed::get,
              metrics,
              Duration.ZERO);
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
