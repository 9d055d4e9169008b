package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class WorkQueueTest {

  static final RunKey A = new RunKey("ns", "a");
  static final RunKey B = new RunKey("ns", "b");
  static final Duration NOW = Duration.ZERO;

  @Test
  @DisplayName("a key added many times while waiting is handed out once, in first-added order")
  void dedup() throws Exception {
    try (WorkQueue q = new WorkQueue()) {
      q.add(A);
      q.add(B);
      q.add(A);
      assertEquals(2, q.depth());
      assertEquals(A, q.take(NOW));
      assertEquals(B, q.take(NOW));
      assertNull(q.take(Duration.ofMillis(20)));
    }
  }

  @Test
  @DisplayName("a key added while processing is not handed out twice at once, but again after done")
  void processing() throws Exception {
    try (WorkQueue q = new WorkQueue()) {
      q.add(A);
      RunKey k = q.take(NOW);
      q.add(A);
      assertEquals(0, q.depth());
      assertNull(q.take(Duration.ofMillis(20)));
      q.done(k);
      assertEquals(A, q.take(NOW));
      q.done(A);
      assertNull(q.take(Duration.ofMillis(20)));
    }
  }

  @Test
  @DisplayName(
      "resync keys wait in the background lane behind every change; a changed background key is promoted")
  void backgroundLane() throws Exception {
    RunKey c = new RunKey("ns", "c");
    try (WorkQueue q = new WorkQueue()) {
      q.addBackground(A);
      q.addBackground(B);
      q.addBackground(A);
      q.add(c);
      assertEquals(3, q.depth());
      assertEquals(c, q.take(NOW));
      q.done(c);
      assertEquals(A, q.take(NOW));
      q.done(A);
      q.add(B);
      q.addBackground(A);
      q.add(c);
      assertEquals(B, q.take(NOW), "promoted ahead of the background and in change order");
      assertEquals(c, q.take(NOW));
      assertEquals(A, q.take(NOW));
      assertNull(q.take(Duration.ofMillis(20)));
    }
  }

  @Test
  @DisplayName("a background key added while processing is processed again after done, once")
  void backgroundWhileProcessing() throws Exception {
    try (WorkQueue q = new WorkQueue()) {
      q.addBackground(A);
      RunKey k = q.take(NOW);
      q.addBackground(A);
      assertNull(q.take(Duration.ofMillis(20)));
      q.done(k);
      assertEquals(A, q.take(NOW));
      q.done(A);
      assertNull(q.take(Duration.ofMillis(20)));
      q.close();
      q.addBackground(B);
      assertEquals(0, q.depth());
    }
  }

  @Test
  @DisplayName("addAfter delivers the key after the delay")
  void delayed() throws Exception {
    try (WorkQueue q = new WorkQueue()) {
      q.addAfter(A, Duration.ofMillis(50));
      assertEquals(0, q.depth());
      assertEquals(A, q.take(Duration.ofSeconds(5)));
      assertTrue(
          ControllerPartsTest.threads("trainyard-queue-delays").stream().allMatch(Thread::isDaemon),
          "the delay thread never keeps a stopping JVM alive");
    }
  }

  @Test
  @DisplayName(
      "a waiting take wakes as soon as a key is added, a done key re-added, or the queue closed")
  void wakes() throws Exception {
    try (WorkQueue q = new WorkQueue()) {
      assertWokenBy(q, () -> q.add(A), A);
      q.add(A);
      assertWokenBy(q, () -> q.done(A), A);
    }
    WorkQueue q = new WorkQueue();
    assertWokenBy(q, q::close, null);
  }

  /**
   * take(10 s) returns {@code expected} well before its timeout when {@code action} runs after 100
   * ms.
   */
  private static void assertWokenBy(WorkQueue q, Runnable action, RunKey expected)
      throws Exception {
    Thread t =
        new Thread(
            () -> {
              try {
                Thread.sleep(100);
              } catch (InterruptedException e) {
                return;
              }
              action.run();
            });
    t.start();
    long start = System.nanoTime();
    assertEquals(expected, q.take(Duration.ofSeconds(10)));
    long ms = (System.nanoTime() - start) / 1_000_000;
    Assertions.assertTrue(ms < 5_000, "woke after " + ms + " ms");
    t.join();
  }

  @Test
  @DisplayName("a closed queue takes nothing and accepts nothing")
  void closed() throws Exception {
    WorkQueue q = new WorkQueue();
    q.close();
    q.add(A);
    q.addAfter(B, Duration.ZERO);
    assertNull(q.take(Duration.ofSeconds(5)));
    assertEquals(0, q.depth());
  }

  @Test
  @DisplayName("run keys round-trip through the informer cache key")
  void keys() {
    assertEquals("ns/a", A.cacheKey());
    assertEquals(A, RunKey.parse("ns/a"));
  }

  @Test
  @DisplayName(
      "a take waiting on an empty queue wakes at once for a background key; a closed queue takes no background key")
  void backgroundWakes() throws Exception {
    try (WorkQueue q = new WorkQueue()) {
      CompletableFuture<RunKey> taken =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return q.take(Duration.ofSeconds(20));
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
              });
      Thread.sleep(200);
      long t0 = System.nanoTime();
      q.addBackground(A);
      assertEquals(A, taken.get(10, TimeUnit.SECONDS));
      Assertions.assertTrue(
          System.nanoTime() - t0 < Duration.ofSeconds(5).toNanos(),
          "woken by the add, not by the 20 s timeout");
      q.close();
      q.addBackground(B);
      assertEquals(0, q.depth());
    }
  }

  @Test
  @DisplayName(
      "per-key back-off: the first retry after firstRetry, doubling per retry in a row up to maxRetry; forget starts afresh; a named wait wins")
  void rateLimited() {
    try (WorkQueue q = new WorkQueue(Duration.ofSeconds(1), Duration.ofSeconds(5))) {
      assertEquals(Duration.ofSeconds(1), q.addRateLimited(A, Duration.ZERO));
      assertEquals(Duration.ofSeconds(2), q.addRateLimited(A, Duration.ZERO));
      assertEquals(Duration.ofSeconds(4), q.addRateLimited(A, Duration.ZERO));
      assertEquals(Duration.ofSeconds(5), q.addRateLimited(A, Duration.ZERO));
      assertEquals(Duration.ofSeconds(5), q.addRateLimited(A, Duration.ZERO));
      assertEquals(5, q.retries(A));
      assertEquals(Duration.ofSeconds(1), q.addRateLimited(B, Duration.ZERO), "per key");
      q.forget(A);
      assertEquals(0, q.retries(A));
      assertEquals(Duration.ofSeconds(1), q.addRateLimited(A, Duration.ZERO));
      assertEquals(
          Duration.ofSeconds(900),
          q.addRateLimited(A, Duration.ofSeconds(900)),
          "a rate limit's reset");
    }
    try (WorkQueue odd = new WorkQueue(Duration.ofSeconds(10), Duration.ofSeconds(3))) {
      assertEquals(
          Duration.ofSeconds(3),
          odd.addRateLimited(A, Duration.ZERO),
          "a first retry over the cap is capped");
    }
  }

  @Test
  @DisplayName(
      "of several delayed adds of a key only the earliest waits; a sooner one still comes sooner; each adds the key once")
  void delayedAddsKeepTheEarliest() throws Exception {
    try (WorkQueue q = new WorkQueue()) {
      q.addAfter(A, Duration.ofMinutes(15));
      q.addAfter(A, Duration.ofMillis(100));
      q.addAfter(A, Duration.ofMinutes(10));
      assertEquals(A, q.take(Duration.ofSeconds(5)), "the 100 ms add, not the 15 min one");
      q.done(A);
      assertEquals(
          null, q.take(Duration.ofMillis(300)), "the 10 min add was dropped, the 15 min one waits");
      q.addAfter(B, Duration.ofMillis(50));
      q.addAfter(B, Duration.ofMillis(60));
      assertEquals(B, q.take(Duration.ofSeconds(5)));
      q.done(B);
      assertEquals(
          null,
          q.take(Duration.ofMillis(200)),
          "the later add came while B was waiting: one take only");
    }
  }

  @Test
  @DisplayName("a delayed add after close is dropped quietly")
  void delayedAfterClose() {
    WorkQueue q = new WorkQueue();
    q.close();
    q.addAfter(A, Duration.ZERO);
    q.addRateLimited(A, Duration.ZERO);
    assertEquals(0, q.depth());
  }
}
