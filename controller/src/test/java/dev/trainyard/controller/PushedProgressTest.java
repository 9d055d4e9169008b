package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.controller.state.Progress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class PushedProgressTest {

  static final RunKey A = new RunKey("team-a", "run-a");
  static final RunKey B = new RunKey("team-a", "run-b");

  static Progress at(String time, int percent) {
    return new Progress(
        null, null, percent, null, List.of(), Instant.parse(time), Progress.Source.PUSH);
  }

  @Test
  @DisplayName("the newest push per run is kept; a late older one does not move it back")
  void latest() {
    PushedProgress store = new PushedProgress();
    assertEquals(Optional.empty(), store.latest(A));
    assertTrue(store.accept(A, at("2026-12-02T08:00:00Z", 10)));
    assertTrue(store.accept(A, at("2026-12-02T08:00:05Z", 20)));
    assertFalse(store.accept(A, at("2026-12-02T08:00:01Z", 11)));
    assertEquals(20, store.latest(A).orElseThrow().percent());
    Progress same = at("2026-12-02T08:00:05Z", 21);
    assertTrue(store.accept(A, same), "the same time: the later request wins");
    assertEquals(21, store.latest(A).orElseThrow().percent());
    assertTrue(store.accept(B, at("2026-12-02T07:00:00Z", 5)));
    assertEquals(2, store.size());
    store.forget(A);
    assertEquals(Optional.empty(), store.latest(A));
    assertEquals(5, store.latest(B).orElseThrow().percent());
    assertEquals(1, store.size());
  }

  @Test
  @DisplayName("each run may push 20 at once, then 2 a second; forgetting a run refills it")
  void budget() {
    AtomicLong nanos = new AtomicLong();
    PushedProgress store = new PushedProgress(nanos::get);
    for (int i = 0; i < PushedProgress.BURST; i++) {
      assertTrue(store.admit(A), "push " + i);
    }
    assertFalse(store.admit(A));
    assertTrue(store.admit(B), "another run has its own budget");
    assertEquals(Duration.ofMillis(500), store.untilNext(A));
    nanos.addAndGet(500_000_000L);
    assertTrue(store.admit(A));
    assertFalse(store.admit(A));
    store.forget(A);
    assertTrue(store.admit(A));
    assertEquals(Duration.ZERO, store.untilNext(A));
  }
}
