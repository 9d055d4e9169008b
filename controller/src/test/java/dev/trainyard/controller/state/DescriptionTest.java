package dev.trainyard.controller.state;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class DescriptionTest {

  @Test
  @DisplayName(
      "text at the limit is kept as is; one more code point is cut to limit-1 plus an ellipsis")
  void fitAtBoundary() {
    String at = "a".repeat(140);
    assertEquals(at, Description.fit(at, 140));
    String over = "b".repeat(141);
    assertEquals("b".repeat(139) + "…", Description.fit(over, 140));
  }

  @Test
  @DisplayName("the limit counts code points, so emoji are never split into halves")
  void codePoints() {
    String emoji = "🚂".repeat(5);
    assertEquals(emoji, Description.fit(emoji, 5));
    assertEquals("🚂🚂…", Description.fit(emoji, 3));
  }

  @Test
  @DisplayName(
      "null becomes empty; surrounding blanks are stripped, and blanks before the ellipsis too")
  void blanks() {
    assertEquals("", Description.fit(null, 10));
    assertEquals("x", Description.fit("  x \n", 10));
    assertEquals("ab…", Description.fit("ab   cdef", 5));
  }

  @Test
  @DisplayName("durations use the two largest units; negative durations read 0s")
  void durations() {
    assertEquals("0s", Description.duration(Duration.ofSeconds(-5)));
    assertEquals("59s", Description.duration(Duration.ofSeconds(59)));
    assertEquals("1m 0s", Description.duration(Duration.ofSeconds(60)));
    assertEquals("59m 59s", Description.duration(Duration.ofSeconds(3599)));
    assertEquals("1h 0m", Description.duration(Duration.ofSeconds(3600)));
    assertEquals("26h 3m", Description.duration(Duration.ofSeconds(26 * 3600 + 3 * 60 + 59)));
  }

  @Test
  @DisplayName("only SUCCEEDED, FAILED and DELETED are terminal phases")
  void terminalPhases() {
    for (Phase p : Phase.values()) {
      assertEquals(
          p == Phase.SUCCEEDED || p == Phase.FAILED || p == Phase.DELETED, p.terminal(), p.name());
    }
  }

  @Test
  @DisplayName("a RunState never carries a description over 140 code points")
  void runStateFits() {
    RunState s =
        new RunState(
            Phase.RUNNING, Cause.NONE, "x".repeat(300), null, null, 0, 0, 1, 1, false, null);
    assertEquals(140, s.description().length());
    assertEquals("", s.node());
  }
}
