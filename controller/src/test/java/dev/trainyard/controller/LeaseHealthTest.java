package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Readiness under leader election, and the log of why the Lease cannot be taken. */
class LeaseHealthTest {
  final List<String> log = new ArrayList<>();
  final LeaseHealth health = new LeaseHealth("me", log::add);

  @Test
  @DisplayName(
      "not ready until this replica leads or another is seen leading; the reason is the last failure")
  void readiness() {
    assertEquals("no leader: campaigning for the Lease", health.notReady(false));
    health.failed("cannot take Lease ns/l: namespaces \"ns\" not found");
    assertEquals(
        "no leader: cannot take Lease ns/l: namespaces \"ns\" not found", health.notReady(false));
    assertEquals("", health.notReady(true), "the leader is ready");
    health.leader("other");
    assertEquals("", health.notReady(false), "a standby of a known leader is ready");
    health.leader(null);
    assertEquals(
        "no leader: cannot take Lease ns/l: namespaces \"ns\" not found", health.notReady(false));
  }

  @Test
  @DisplayName("each distinct reason is logged once, and at most MAX_REASONS reasons in all")
  void loggedOnceBounded() {
    health.failed("a");
    health.failed("a");
    health.failed("b");
    health.failed("a");
    assertEquals(List.of("a", "b"), log);
    for (int i = 0; i < 3 * LeaseHealth.MAX_REASONS; i++) {
      health.failed("r" + i);
    }
    assertEquals(LeaseHealth.MAX_REASONS, log.size());
    assertEquals(
        "no leader: r" + (3 * LeaseHealth.MAX_REASONS - 1),
        health.notReady(false),
        "the reason still follows");
  }
}
