package dev.trainyard.compiler.render;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The working directory reaches launch.sh's mpirun line as exactly one shell word, whatever the
 * repository's folder names are.
 */
class ShellWordsTest {
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        "/workspace/src/jobs/mpi|/workspace/src/jobs/mpi",
        "/workspace/src/a_b-c.d@e%f+g=h:i,j|/workspace/src/a_b-c.d@e%f+g=h:i,j",
        "/workspace/src/sub dir|'/workspace/src/sub dir'",
        "/workspace/src/s$(id)|'/workspace/src/s$(id)'",
        "/workspace/src/it's|'/workspace/src/it'\\''s'"
      })
  @DisplayName("a plain path is written as it is; anything else is single-quoted, each ' as '\\''")
  void written(String value, String word) {
    assertEquals(word, ShellWords.quote(value));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "/workspace/src/sub dir",
        "/workspace/src/s$(id)",
        "/workspace/src/`id`",
        "/workspace/src/it's \"q\"",
        "/workspace/src/a;b|c&d>e<f",
        "/workspace/src/*?[x]",
        "/workspace/src/~x ${HOME}",
        "/workspace/src/tab\there"
      })
  @DisplayName(
      "bash reads the word back as one argument equal to the path: nothing is expanded, split or run")
  void bashReadsOneWord(String value) throws Exception {
    Process bash;
    try {
      bash =
          new ProcessBuilder("bash", "-c", "printf '[%s]' " + ShellWords.quote(value))
              .redirectErrorStream(true)
              .start();
    } catch (IOException e) {
      Assumptions.abort("NOT RUN: bash cannot be started: " + e.getMessage());
      return;
    }
    String out = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(true, bash.waitFor(10, TimeUnit.SECONDS));
    assertEquals("[" + value + "]", out);
  }
}
