package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.IntFunction;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * How the newest lines are kept within a byte budget: the asks made and the text returned, against
 * a reader that answers as the kubelet does (the last N lines, then the first {@code limit} bytes
 * of those; {@link LiveKubelet} serves the same through a real API server in {@code
 * RunReaderLiveTest} and {@code ClusterWatchTest}).
 */
class LogTailTest {

  /** Serves {@code lines} as the kubelet would, recording each ask's line count. */
  static final class Kubelet implements IntFunction<String> {
    final List<String> lines;
    final int limit;
    final List<Integer> asked = new ArrayList<>();

    Kubelet(int limit, String... lines) {
      this.lines = List.of(lines);
      this.limit = limit;
    }

    @Override
    public String apply(int tail) {
      asked.add(tail);
      String text =
          String.join(
              "",
              lines.subList(Math.max(0, lines.size() - tail), lines.size()).stream()
                  .map(l -> l + "\n")
                  .toList());
      return text.length() > limit ? text.substring(0, limit) : text;
    }
  }

  static String[] lines(int n, int length) {
    String[] out = new String[n];
    for (int i = 0; i < n; i++) {
      String head = "step " + (i + 1) + " ";
      out[i] = head + "x".repeat(Math.max(0, length - head.length()));
    }
    return out;
  }

  @Test
  @DisplayName("a tail within the budget is read with one ask, all its lines")
  void fitsAtOnce() {
    Kubelet k = new Kubelet(1000, lines(5, 20));
    Optional<String> log = LogTail.newest(k, 200, 1000);
    assertEquals(List.of(200), k.asked);
    assertEquals(5, log.orElseThrow().lines().count());
  }

  @Test
  @DisplayName(
      "long lines that overflow the budget: asked again with half the lines until they fit, so the newest line is in the text (the first reply ended 110 lines before it)")
  void halvesUntilTheNewestFit() {
    Kubelet k = new Kubelet(4096, lines(200, 45));
    String log = LogTail.newest(k, 200, 4096).orElseThrow();
    assertEquals(List.of(200, 100, 50), k.asked);
    assertTrue(log.endsWith("step 200 " + "x".repeat(36) + "\n"), log);
    assertTrue(log.startsWith("step 151 "), log);
    String first = k.apply(200);
    assertFalse(first.contains("step 200 "), "what one ask returned: " + first.length() + " bytes");
  }

  @Test
  @DisplayName(
      "one line longer than the budget: halved down to one line and no further (8 asks for 200), its first bytes returned")
  void stopsAtOneLine() {
    Kubelet k = new Kubelet(100, lines(200, 300));
    String log = LogTail.newest(k, 200, 100).orElseThrow();
    assertEquals(List.of(200, 100, 50, 25, 12, 6, 3, 1), k.asked);
    assertEquals("step 200 " + "x".repeat(91), log);
  }

  @Test
  @DisplayName("a log that cannot be read is empty, with one ask")
  void unreadable() {
    List<Integer> asked = new ArrayList<>();
    assertEquals(
        Optional.empty(),
        LogTail.newest(
            n -> {
              asked.add(n);
              return null;
            },
            200,
            100));
    assertEquals(List.of(200), asked);
  }

  @Test
  @DisplayName(
      "a later ask that fails (the pod went away between asks) keeps the reply before it, cut as it is")
  void laterFailureKeepsTheCutReply() {
    Kubelet k = new Kubelet(100, lines(200, 30));
    List<Integer> asked = new ArrayList<>();
    String log =
        LogTail.newest(
                n -> {
                  asked.add(n);
                  return asked.size() == 1 ? k.apply(n) : null;
                },
                200,
                100)
            .orElseThrow();
    assertEquals(List.of(200, 100), asked);
    assertEquals(k.apply(200), log);
  }

  @Test
  @DisplayName(
      "a reply counts as cut from 15/16 of the budget (the API allows one slightly short of it), in UTF-8 bytes, not characters")
  void cutThreshold() {
    assertTrue(LogTail.cut("a".repeat(1600), 1600));
    assertTrue(LogTail.cut("a".repeat(1500), 1600));
    assertFalse(LogTail.cut("a".repeat(1499), 1600));
    char[] bars = new char[500];
    Arrays.fill(bars, '█'); // 3 bytes each in UTF-8: 1,500 bytes
    assertTrue(LogTail.cut(new String(bars), 1600));
    assertFalse(LogTail.cut(new String(bars, 0, 499), 1600));
  }
}
