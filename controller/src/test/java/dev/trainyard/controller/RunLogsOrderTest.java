package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@code logs --all} reads node by node in index order, numbers compared as numbers. */
class RunLogsOrderTest {
  @Test
  @DisplayName("--all chooses launcher, node-0, node-2, node-10 (not node-10 before node-2)")
  void indexOrder() {
    List<Pod> pods =
        List.of(
            RunLogsTest.pod("n10", "node", "0", "10", 0),
            RunLogsTest.pod("n2", "node", "0", "2", 0),
            RunLogsTest.LAUNCHER,
            RunLogsTest.NODE0);
    assertEquals(
        List.of("launcher", "node-0", "node-2", "node-10"),
        RunLogs.choose(pods, 0, new RunLogs.Selection(true, null)).stream()
            .map(RunLogs::label)
            .toList());
    assertTrue(RunLogs.byIndex("workers-1-2", "workers-1-10") < 0);
    assertTrue(RunLogs.byIndex("node-3", "node-3") == 0);
    assertTrue(RunLogs.byIndex("node-3", "node-3-1") < 0);
    assertTrue(RunLogs.byIndex("node-b", "node-a") > 0);
  }
}
