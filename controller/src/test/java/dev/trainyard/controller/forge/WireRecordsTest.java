package dev.trainyard.controller.forge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The forge's wire records: absent texts read as "", headers case-insensitive, bodies never null.
 */
class WireRecordsTest {

  @Test
  @DisplayName("an absent description, target URL or body reads as empty; given ones are kept")
  void nulls() {
    CommitStatus s = new CommitStatus(CommitState.PENDING, null, "trainyard/c/r", null);
    assertEquals(List.of("", ""), List.of(s.description(), s.targetUrl()));
    CommitStatus t = new CommitStatus(CommitState.PENDING, "d", "trainyard/c/r", "https://u");
    assertEquals(List.of("d", "https://u"), List.of(t.description(), t.targetUrl()));
    PostedStatus p = new PostedStatus("pending", null, null);
    assertEquals(List.of("", ""), List.of(p.description(), p.targetUrl()));
    assertEquals(
        List.of("d", "u"),
        List.of(
            new PostedStatus("pending", "d", "u").description(),
            new PostedStatus("pending", "d", "u").targetUrl()));
    assertEquals("", new HttpCall("GET", URI.create("http://127.0.0.1/"), Map.of(), null).body());
    assertEquals("b", new HttpCall("GET", URI.create("http://127.0.0.1/"), Map.of(), "b").body());
    assertEquals("", new HttpAnswer(200, Map.of(), null).body());
    assertEquals("b", new HttpAnswer(200, Map.of(), "b").body());
  }

  @Test
  @DisplayName(
      "answer headers: found by any case, first value stripped; absent or empty header is empty")
  void headers() {
    HttpAnswer a =
        new HttpAnswer(429, Map.of("Retry-After", List.of(" 3 ", "9"), "X-Empty", List.of()), "");
    assertEquals(Optional.of("3"), a.header("retry-after"));
    assertEquals(Optional.of("3"), a.header("RETRY-AFTER"));
    assertTrue(a.header("x-empty").isEmpty());
    assertTrue(a.header("x-none").isEmpty());
  }
}
