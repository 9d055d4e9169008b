package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class LeadershipTest {

  final List<String> calls = new ArrayList<>();
  final AtomicBoolean closing = new AtomicBoolean();
  final ControllerMetrics metrics = new ControllerMetrics();
  final Leadership l =
      new Leadership(
          () -> calls.add("reset" + leading()),
          () -> calls.add("enqueue" + leading()),
          () -> calls.add("lost"),
          closing::get,
          metrics);

  private String leading() {
    return l == null ? "" : (l.leading() ? "+" : "-");
  }

  @Test
  @DisplayName(
      "starting: reset before leading, then lead, say so in /metrics, then enqueue every run")
  void start() {
    assertFalse(l.leading());
    l.start();
    assertTrue(l.leading());
    assertEquals(List.of("reset-", "enqueue+"), calls);
    assertTrue(metrics.render().contains("\ntrainyard_leader 1.0\n"));
  }

  @Test
  @DisplayName(
      "losing held leadership stops posting and runs onLost; a stop without leadership, or while closing, does not")
  void stop() {
    l.stop();
    assertEquals(List.of(), calls, "never led: nothing lost");
    l.start();
    calls.clear();
    l.stop();
    assertFalse(l.leading());
    assertEquals(List.of("lost"), calls);
    assertTrue(metrics.render().contains("\ntrainyard_leader 0.0\n"));
    l.start();
    calls.clear();
    closing.set(true);
    l.stop();
    assertFalse(l.leading());
    assertEquals(List.of(), calls, "closing: the Lease is released on purpose");
  }
}
