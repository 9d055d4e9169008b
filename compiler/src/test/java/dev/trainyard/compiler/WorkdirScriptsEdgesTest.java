package dev.trainyard.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The limits of {@link WorkdirScripts} at their edges: the size limit itself, paths that lead back
 * inside, and files that are not regular.
 */
class WorkdirScriptsEdgesTest {
  @TempDir Path dir;

  @Test
  @DisplayName("a script of exactly MAX_BYTES (1 MiB) is read; one byte more is not")
  void sizeLimitIsInclusive() throws Exception {
    Path work = Files.createDirectories(dir.resolve("work"));
    byte[] exact = new byte[(int) WorkdirScripts.MAX_BYTES];
    Arrays.fill(exact, (byte) 'a');
    Files.write(work.resolve("exact.py"), exact);
    assertEquals(
        Optional.of("a".repeat((int) WorkdirScripts.MAX_BYTES)),
        new WorkdirScripts(work).read("exact.py"));
  }

  @Test
  @DisplayName(
      "an absolute path, a .. path and a $ path are refused even when they name a file inside the working directory")
  void refusedShapesInside() throws Exception {
    Path work = Files.createDirectories(dir.resolve("repo/demo"));
    Files.writeString(work.resolve("train.py"), "x\n");
    Files.writeString(work.resolve("$X.py"), "x\n");
    WorkdirScripts scripts = new WorkdirScripts(work);
    assertEquals(Optional.of("x\n"), scripts.read("train.py"));
    for (String refused :
        new String[] {work.resolve("train.py").toString(), "../demo/train.py", "$X.py"}) {
      assertEquals(Optional.empty(), scripts.read(refused), refused);
    }
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  @DisplayName(
      "a named pipe inside the working directory is not read (reading it would block the compile)")
  void namedPipeIsNotRead() throws Exception {
    Path work = Files.createDirectories(dir.resolve("work"));
    Process mkfifo;
    try {
      mkfifo =
          new ProcessBuilder("mkfifo", work.resolve("pipe.py").toString())
              .redirectErrorStream(true)
              .start();
    } catch (IOException e) {
      Assumptions.abort("NOT RUN: mkfifo (coreutils) cannot be started: " + e.getMessage());
      return;
    }
    assertTrue(mkfifo.waitFor(10, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo failed");
    assertEquals(Optional.empty(), new WorkdirScripts(work).read("pipe.py"));
  }
}
