package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class FollowEndTest {

  static final Instant T = Instant.parse("2026-12-01T10:00:00Z");
  final FollowEnd end = new FollowEnd(T.plusSeconds(60), Duration.ofSeconds(2));

  @Test
  @DisplayName(
      "following goes on while streams are open, the run has not ended and the deadline is ahead")
  void goesOn() {
    assertFalse(end.stop(false, Optional.empty(), T));
    assertFalse(end.stop(false, Optional.empty(), T.plusSeconds(59)));
  }

  @Test
  @DisplayName(
      "it stops when every stream ended, at the deadline exactly, or the grace after the run ended (not before)")
  void stops() {
    assertTrue(end.stop(true, Optional.empty(), T));
    assertTrue(end.stop(false, Optional.empty(), T.plusSeconds(60)));
    assertFalse(end.stop(false, Optional.of(T.plusSeconds(10)), T.plusSeconds(11)));
    assertTrue(end.stop(false, Optional.of(T.plusSeconds(10)), T.plusSeconds(12)));
    assertTrue(end.stop(false, Optional.of(T.plusSeconds(10)), T.plusSeconds(13)));
  }
}
