package dev.trainyard.controller.progress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class TokenBucketTest {

  final AtomicLong nanos = new AtomicLong(1_000);

  @Test
  @DisplayName("a full bucket gives its burst, then nothing until time refills it at the rate")
  void burstThenRate() {
    TokenBucket b = new TokenBucket(3, 2, nanos::get);
    assertTrue(b.tryTake());
    assertTrue(b.tryTake());
    assertTrue(b.tryTake());
    assertFalse(b.tryTake());
    assertEquals(Duration.ofMillis(500), b.untilNext());
    nanos.addAndGet(499_000_000L);
    assertFalse(b.tryTake());
    assertEquals(Duration.ofMillis(1), b.untilNext());
    nanos.addAndGet(1_000_000L);
    assertEquals(Duration.ZERO, b.untilNext());
    assertTrue(b.tryTake());
    assertFalse(b.tryTake());
  }

  @Test
  @DisplayName("a long pause refills to the burst, never beyond")
  void capped() {
    TokenBucket b = new TokenBucket(2, 1, nanos::get);
    assertTrue(b.tryTake());
    assertTrue(b.tryTake());
    nanos.addAndGet(3_600_000_000_000L);
    assertTrue(b.tryTake());
    assertTrue(b.tryTake());
    assertFalse(b.tryTake());
    assertEquals(Duration.ofSeconds(1), b.untilNext());
  }

  @Test
  @DisplayName("a burst below 1 or a rate not above 0 is refused")
  void invalid() {
    assertThrows(IllegalArgumentException.class, () -> new TokenBucket(0, 1, nanos::get));
    assertThrows(IllegalArgumentException.class, () -> new TokenBucket(1, 0, nanos::get));
    assertThrows(IllegalArgumentException.class, () -> new TokenBucket(1, Double.NaN, nanos::get));
    assertEquals(
        "a token bucket needs burst >= 1 and a rate > 0, got 0, 1.0",
        assertThrows(IllegalArgumentException.class, () -> new TokenBucket(0, 1, nanos::get))
            .getMessage());
    assertTrue(new TokenBucket(1, 0.5, nanos::get).tryTake());
  }
}
