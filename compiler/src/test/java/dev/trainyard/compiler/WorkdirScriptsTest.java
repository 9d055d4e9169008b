package dev.trainyard.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The run lint reads only regular UTF-8 files inside the working directory, never beyond it. */
class WorkdirScriptsTest {
  @TempDir Path dir;

  @Test
  @DisplayName("a script inside the working directory is read; absolute, .., symlinked-out, folders, non-UTF-8 and oversized are not")
  void readsOnlyInside() throws Exception {
    Path work = Files.createDirectories(dir.resolve("repo/jobs/demo"));
    Files.writeString(work.resolve("train.py"), "print('hi')\n");
    Files.createDirectories(work.resolve("src"));
    Files.writeString(work.resolve("src/main.py"), "x = 1\n");
    Path outside = Files.writeString(dir.resolve("secret.py"), "token\n");
    Files.createSymbolicLink(work.resolve("link.py"), outside);
    Files.write(work.resolve("latin1.py"), new byte[] {(byte) 0xe9, 0x0a});
    Files.write(work.resolve("big.py"), new byte[(int) WorkdirScripts.MAX_BYTES + 1]);
    WorkdirScripts scripts = new WorkdirScripts(work);

    assertEquals(Optional.of("print('hi')\n"), scripts.read("train.py"));
    assertEquals(Optional.of("x = 1\n"), scripts.read("src/main.py"));
    assertEquals(Optional.of("x = 1\n"), scripts.read("./src/main.py"));
    for (String refused : new String[] {outside.toString(), "../../../secret.py", "link.py", "src", "latin1.py", "big.py",
        "missing.py", "$SCRIPT", ""}) {
      assertEquals(Optional.empty(), scripts.read(refused), refused);
    }
  }

  @Test
  @DisplayName("paths the pod would resolve differently are not read even when they name a file inside: absolute, through .., or with a variable")
  void podPathsNotRead() throws Exception {
    Path work = Files.createDirectories(dir.resolve("repo/demo"));
    Files.writeString(work.resolve("train.py"), "print('hi')\n");
    Files.writeString(work.resolve("$X.py"), "literal name\n");
    WorkdirScripts scripts = new WorkdirScripts(work);
    assertEquals(Optional.empty(), scripts.read(work.resolve("train.py").toString()), "absolute: the pod's root differs");
    assertEquals(Optional.empty(), scripts.read("../demo/train.py"), "..: the pod's folder names differ");
    assertEquals(Optional.empty(), scripts.read("$X.py"), "the shell expands $X in the pod");
    assertEquals(Optional.of("print('hi')\n"), scripts.read("train.py"));
  }

  @Test
  @DisplayName("a script of exactly 1 MiB is read; a named pipe is not opened (reading it would block the compile)")
  void sizeLimitAndPipes() throws Exception {
    Path work = Files.createDirectories(dir.resolve("w"));
    byte[] limit = new byte[(int) WorkdirScripts.MAX_BYTES];
    java.util.Arrays.fill(limit, (byte) 'a');
    Files.write(work.resolve("limit.py"), limit);
    WorkdirScripts scripts = new WorkdirScripts(work);
    assertEquals((int) WorkdirScripts.MAX_BYTES, scripts.read("limit.py").orElseThrow().length());
    Process mkfifo = new ProcessBuilder("mkfifo", work.resolve("pipe.py").toString()).start();
    assertEquals(0, mkfifo.waitFor(), "mkfifo");
    assertEquals(Optional.empty(), org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(5),
        () -> scripts.read("pipe.py")));
  }
}
