package dev.trainyard.gitops.leaks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * How text is cut into base64 runs: which characters join a run, which end it, and where each
 * character came from.
 */
class Base64RunsTest {
  private static final String A = "abcdefgh";
  private static final String B = "ijklmnop";

  private static List<String> runs(String text) {
    return Base64Runs.of(text).stream().map(Base64Runs.Run::chars).toList();
  }

  @Test
  @DisplayName("a run needs 16 characters: 16 is one run, 15 none")
  void minimumLength() {
    assertEquals(List.of(A + B), runs(A + B));
    assertEquals(List.of(), runs(A + B.substring(1)));
    assertEquals(16, Base64Runs.MIN_LENGTH);
  }

  @Test
  @DisplayName(
      "white space, #, quotes, a list dash and \\n/\\r/\\t escapes join the pieces of one run")
  void joiners() {
    for (String joiner :
        List.of(
            " ", "\t", "\n", "\r", "#", "\"", "'", "\n- ", "\n-\t", "\\n", "\\r", "\\t",
            " \n  # ")) {
      assertEquals(
          List.of(A + B), runs(A + joiner + B), "joined by " + joiner.replace("\n", "\\n"));
    }
  }

  @Test
  @DisplayName(":, comma, =, period, a lone backslash and a dash without a space end a run")
  void enders() {
    for (String ender :
        List.of(":", ",", "=", ".", "\\%", "\\", "-:", "@", "[", "`", "{", "\u0000")) {
      assertEquals(List.of(), runs(A + ender + B), "ended by " + ender);
      assertEquals(List.of(A + A, B + B), runs(A + A + ender + B + B), "ended by " + ender);
    }
  }

  @Test
  @DisplayName(
      "every character of both base64 alphabets joins a run; a - only between two of them (RFC 4648 §5)")
  void alphabets() {
    String all = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_";
    assertEquals(List.of(all), runs(all));
    assertEquals(List.of(A + "-" + B), runs(A + "-" + B));
    assertEquals(List.of(A + B), runs("-" + A + B));
    assertEquals(List.of(A + B), runs(A + B + "-"));
    assertEquals(List.of(A + A, B + B), runs(A + A + "--" + B + B));
    assertEquals(List.of(A + "9-0" + B), runs(A + "9-0" + B));
  }

  @Test
  @DisplayName(
      "each character keeps its offset in the text; origin() clamps below 0 and past the end; long runs grow")
  void origins() {
    Base64Runs.Run run = Base64Runs.of("x: " + A + "\n  " + B).get(0);
    int[] expected = new int[16];
    for (int i = 0; i < 8; i++) {
      expected[i] = 3 + i;
      expected[8 + i] = 14 + i;
    }
    assertEquals(Arrays.toString(expected), Arrays.toString(run.origins()));
    assertEquals(3, run.origin(-5));
    assertEquals(21, run.origin(99));
    assertEquals(14, run.origin(8));
    String longRun = "Q".repeat(300);
    Base64Runs.Run big = Base64Runs.of(". " + longRun).get(0);
    assertEquals(longRun, big.chars());
    assertEquals(301, big.origin(299));
    assertEquals(2, big.origin(0));
  }

  @Test
  @DisplayName(
      "a backslash or a dash as the text's last character ends the run (a cut-off escape, a PEM without a final line break)")
  void lastCharacter() {
    assertEquals(List.of(A + B), runs(A + B + "\\"));
    assertEquals(List.of(A + B), runs(A + B + "-"));
  }
}
