package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code compile --out}: what a folder that cannot be written to is, before anything is written.
 */
class CompileOutTest {
  @TempDir Path temp;

  @Test
  @DisplayName(
      "--out \"\" (an unset variable) and --out naming a file are usage errors (exit 2); nothing is written")
  void emptyOut() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: torchrun t.py\n");
    MainTest.Run empty = MainTest.run("compile", p.trainYaml().toString(), "--out", "");
    assertEquals(2, empty.exit(), empty.err());
    assertTrue(
        empty.err().startsWith("trainyard: --out got an empty value (an unset variable?)"),
        empty.err());
    assertFalse(Files.exists(Path.of("clusters")), "nothing in the current folder");
    Path file = Files.writeString(temp.resolve("a-file"), "x");
    MainTest.Run onFile =
        MainTest.run("compile", p.trainYaml().toString(), "--out", file.toString());
    assertEquals(2, onFile.exit(), onFile.err());
    assertTrue(
        onFile.err().startsWith("trainyard: --out " + file + " is a file, not a folder"),
        onFile.err());
  }
}
