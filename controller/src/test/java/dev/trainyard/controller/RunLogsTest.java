package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.io.BufferedWriter;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class RunLogsTest {

  static Pod pod(String name, String rjob, String jobIndex, String completion, int attempt) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .addToLabels(RunLogs.RJOB, rjob)
        .addToLabels(RunLogs.JOB_INDEX, jobIndex)
        .addToLabels(Snapshots.RESTART_ATTEMPT, Integer.toString(attempt))
        .addToAnnotations(RunLogs.COMPLETION_INDEX, completion)
        .endMetadata()
        .build();
  }

  static final Pod LAUNCHER = pod("r-launcher-0-0", "launcher", "0", "0", 0);
  static final Pod NODE0 = pod("r-node-0-0", "node", "0", "0", 0);
  static final Pod NODE1 = pod("r-node-0-1", "node", "0", "1", 0);

  static List<String> names(List<Pod> pods) {
    return pods.stream().map(p -> p.getMetadata().getName()).toList();
  }

  @Test
  @DisplayName("pods are labelled launcher, node-<rank>, or rjob-jobIndex-completionIndex")
  void labels() {
    assertEquals("launcher", RunLogs.label(LAUNCHER));
    assertEquals("node-1", RunLogs.label(NODE1));
    assertEquals("workers-2-3", RunLogs.label(pod("w", "workers", "2", "3", 0)));
    assertEquals("node-1-0", RunLogs.label(pod("n", "node", "1", "0", 0)));
    assertEquals(
        "pod-0-0",
        RunLogs.label(new PodBuilder().withNewMetadata().withName("bare").endMetadata().build()));
  }

  @Test
  @DisplayName(
      "by default the launcher, else node 0; --node N picks rank N; --all every pod, in label order")
  void choose() {
    List<Pod> mpi = List.of(NODE1, LAUNCHER, NODE0);
    assertEquals(
        List.of("r-launcher-0-0"),
        names(RunLogs.choose(mpi, 0, new RunLogs.Selection(false, null))));
    assertEquals(
        List.of("r-node-0-0"),
        names(RunLogs.choose(List.of(NODE1, NODE0), 0, new RunLogs.Selection(false, null))));
    assertEquals(
        List.of("r-node-0-1"), names(RunLogs.choose(mpi, 0, new RunLogs.Selection(false, 1))));
    assertEquals(
        List.of("r-node-0-0"), names(RunLogs.choose(mpi, 0, new RunLogs.Selection(false, 0))));
    assertEquals(
        List.of("r-launcher-0-0", "r-node-0-0", "r-node-0-1"),
        names(RunLogs.choose(mpi, 0, new RunLogs.Selection(true, null))));
    assertEquals(List.of(), names(RunLogs.choose(mpi, 0, new RunLogs.Selection(false, 7))));
  }

  @Test
  @DisplayName(
      "a pod without labels or annotations is pod-0-0 of attempt 0; a job-index label alone does not make a node rank")
  void unlabelled() {
    Pod bare =
        new PodBuilder()
            .withNewMetadata()
            .withName("bare")
            .withLabels(null)
            .withAnnotations(null)
            .endMetadata()
            .build();
    assertEquals("pod-0-0", RunLogs.label(bare));
    assertEquals(
        List.of("bare"),
        names(RunLogs.choose(List.of(bare), 0, new RunLogs.Selection(true, null))));
    assertEquals(
        List.of(),
        names(RunLogs.choose(List.of(bare), 0, new RunLogs.Selection(false, null))),
        "neither launcher nor node-0");
    Pod fromLabel =
        new PodBuilder()
            .withNewMetadata()
            .withName("l")
            .addToLabels(RunLogs.RJOB, "node")
            .addToLabels(RunLogs.JOB_INDEX, "0")
            .addToLabels(RunLogs.COMPLETION_INDEX, "4")
            .endMetadata()
            .build();
    assertEquals(
        "node-4", RunLogs.label(fromLabel), "the completion index label when no annotation");
  }

  @Test
  @DisplayName("only pods of the current attempt are chosen")
  void currentAttempt() {
    Pod retry0 = pod("r-node-0-0-a2", "node", "0", "0", 2);
    assertEquals(
        List.of("r-node-0-0-a2"),
        names(RunLogs.choose(List.of(NODE0, retry0), 2, new RunLogs.Selection(true, null))));
  }

  @Test
  @DisplayName(
      "each line gets the node prefix; a final newline adds no empty line, blank lines inside stay")
  void prefixed() {
    StringWriter s = new StringWriter();
    // Buffered as a terminal's writer is: each call flushes, so lines show as they come.
    PrintWriter out = new PrintWriter(new BufferedWriter(s));
    RunLogs.prefixed("[node-0] ", "step 1\n\nstep 2\n", out);
    RunLogs.prefixed("[node-1] ", "no newline", out);
    RunLogs.prefixed("[node-2] ", "", out);
    RunLogs.prefixed("[node-3] ", null, out);
    assertEquals(
        "[node-0] step 1\n[node-0] \n[node-0] step 2\n[node-1] no newline\n",
        s.toString().replace(System.lineSeparator(), "\n"));
  }
}
