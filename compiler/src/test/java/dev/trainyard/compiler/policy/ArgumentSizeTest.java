package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@link ArgumentSize}: a {@code run} or {@code setup} no process can be started with (E453). */
class ArgumentSizeTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path dir;

  /**
   * The longest value of TRAINYARD_RUN a process can be given: 131,072 − "TRAINYARD_RUN=" − NUL.
   */
  static final int LONGEST = ArgumentSize.MAX_ARG_STRLEN - "TRAINYARD_RUN=".length() - 1;

  /** A {@code run:} block of {@code bytes} bytes (lines of `echo` under 16 KiB each). */
  static String block(String field, int bytes) {
    StringBuilder text = new StringBuilder();
    while (text.length() < bytes) {
      String line = "echo " + "x".repeat(94) + "\n";
      text.append(line, 0, Math.min(line.length(), bytes - text.length()));
    }
    String body = text.toString();
    return field + ": |-\n  " + body.strip().replace("\n", "\n  ") + "\n";
  }

  private List<Diagnostic> e453(String yaml) {
    return TrainProject.create(dir, yaml).compile().diagnostics().stream()
        .filter(d -> d.code() == DiagnosticCode.RUN_TOO_LONG)
        .toList();
  }

  @Test
  @DisplayName(
      "the kernel's limit, measured: an environment string of 131,071 bytes starts a process, one more is 'Argument list too long'")
  void kernelLimit() throws Exception {
    ProcessBuilder fits = new ProcessBuilder("true");
    fits.environment().put("TRAINYARD_RUN", "x".repeat(LONGEST));
    Process p = fits.start();
    assertTrue(p.waitFor(10, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue());
    ProcessBuilder over = new ProcessBuilder("true");
    over.environment().put("TRAINYARD_RUN", "x".repeat(LONGEST + 1));
    IOException e = assertThrows(IOException.class, over::start);
    assertTrue(e.getMessage().contains("Argument list too long"), e.getMessage());
  }

  @Test
  @DisplayName(
      "a run of the longest size compiles; one byte more is E453 at run's value with the size, the limit and a script as the fix")
  void run() {
    assertEquals(List.of(), e453(block("run", LONGEST)));
    List<Diagnostic> found = e453(block("run", LONGEST + 1));
    assertEquals(1, found.size(), found.toString());
    Diagnostic d = found.get(0);
    assertTrue(d.isError());
    assertEquals("/run", d.pointer());
    assertEquals(List.of(1, 6), List.of(d.location().line(), d.location().column()));
    WORDING.approve(d.message());
    WORDING.approve(d.hint());
  }

  @Test
  @DisplayName(
      "setup is held to the same limit as its own variable, TRAINYARD_SETUP (two bytes longer a name), at its own field")
  void setup() {
    int longest = ArgumentSize.MAX_ARG_STRLEN - "TRAINYARD_SETUP=".length() - 1;
    assertEquals(131_055, longest);
    assertTrue(!ArgumentSize.tooLong("TRAINYARD_SETUP", "x".repeat(longest)));
    assertTrue(ArgumentSize.tooLong("TRAINYARD_SETUP", "x".repeat(longest + 1)));
    assertTrue(ArgumentSize.tooLong("TRAINYARD_SETUP", "é".repeat(longest / 2 + 1)), "UTF-8 bytes");
    List<Diagnostic> found = e453("run: torchrun train.py\n" + block("setup", longest + 1));
    assertEquals(1, found.size(), found.toString());
    assertEquals("/setup", found.get(0).pointer());
    assertTrue(found.get(0).message().startsWith("`setup` is 131,"), found.get(0).message());
    assertEquals(List.of(), e453("run: torchrun train.py\n" + block("setup", longest - 100)));
  }
}
