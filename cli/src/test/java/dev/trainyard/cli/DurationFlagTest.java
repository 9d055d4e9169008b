package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link DurationFlag}: one grammar and one usage error for every duration flag. */
class DurationFlagTest {
  @TempDir Path work;

  @Test
  @DisplayName("a zero duration (0s, 0m0s, 00ms) is refused as zero, not as no duration")
  void zero() {
    for (String zero : List.of("0s", "0m0s", "00ms")) {
      MainTest.Run r = SubmitCommandTest.runIn(work, Map.of(), "status", "--interval", zero);
      assertEquals(2, r.exit(), r.err());
      assertEquals(
          "trainyard: --interval '"
              + zero
              + "' must be more than 0\nTry 'trainyard status --help' for more information.\n",
          r.err());
    }
  }

  @Test
  @DisplayName(
      "a duration flag that is no duration or over 36500d is exit 2 naming the flag, the value and the grammar, with the --help line")
  void refused() {
    Map<List<String>, String> cases =
        Map.of(
            List.of("run", "--local", "--timeout", "soon", "t.yaml"), "--timeout 'soon'",
            List.of("run", "--local", "--timeout", "0", "t.yaml"), "--timeout '0'",
            List.of("logs", "r", "--timeout", "36501d"), "--timeout '36501d'",
            List.of("status", "--interval", "5x"), "--interval '5x'",
            List.of("prune", "--older-than", "1w", "--include-running", "--gitops", "x"),
                "--older-than '1w'");
    for (var c : cases.entrySet()) {
      MainTest.Run r = SubmitCommandTest.runIn(work, Map.of(), c.getKey().toArray(String[]::new));
      assertEquals(2, r.exit(), c.getKey() + ": " + r.err());
      assertEquals(
          "trainyard: "
              + c.getValue()
              + " is not a duration like 500ms, 90s, 10m, 1h or 1h30m (at most 36500d)\n"
              + "Try 'trainyard "
              + c.getKey().get(0)
              + " --help' for more information.\n",
          r.err(),
          c.getKey().toString());
    }
  }
}
