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
  @DisplayName(
      "a script inside the working directory is read; absolute, .., symlinked-out, folders, non-UTF-8 and oversized are not")
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
    for (String refused :
        new String[] {
          outside.toString(),
          "../../../secret.py",
          "link.py",
          "src",
          "latin1.py",
          "big.py",
          "missing.py",
          "$SCRIPT",
          ""
        }) {
      assertEquals(Optional.empty(), scripts.read(refused), refused);
    }
  }

  @Test
  @DisplayName(
      "a symlink to a file inside is read through it; in a subfolder a file of MAX_BYTES is read, a larger one is not")
  void symlinkInsideAndSubfolderLimit() throws Exception {
    Path work = Files.createDirectories(dir.resolve("repo/jobs/demo"));
    Files.createDirectories(work.resolve("src"));
    Files.writeString(work.resolve("src/main.py"), "x = 1\n");
    Files.createSymbolicLink(work.resolve("main.py"), Path.of("src/main.py"));
    Files.write(work.resolve("src/big.py"), new byte[(int) WorkdirScripts.MAX_BYTES + 1]);
    Files.write(work.resolve("src/exact.py"), new byte[(int) WorkdirScripts.MAX_BYTES]);
    WorkdirScripts scripts = new WorkdirScripts(work);
    assertEquals(Optional.of("x = 1\n"), scripts.read("main.py"));
    assertEquals(Optional.empty(), scripts.read("src/big.py"));
    assertEquals(
        (int) WorkdirScripts.MAX_BYTES, scripts.read("src/exact.py").orElseThrow().length());
  }

  @Test
  @DisplayName(
      "one instance (one compile) reads each file once however often the rules ask: a later change is not seen by it, a new instance sees it")
  void readOncePerCompile() throws Exception {
    Path work = Files.createDirectories(dir.resolve("work"));
    Files.writeString(work.resolve("requirements.txt"), "torch\n");
    WorkdirScripts scripts = new WorkdirScripts(work);
    assertEquals(Optional.of("torch\n"), scripts.read("requirements.txt"));
    assertEquals(Optional.empty(), scripts.read("pyproject.toml"));
    Files.writeString(work.resolve("requirements.txt"), "jax\n");
    Files.writeString(work.resolve("pyproject.toml"), "[project]\n");
    assertEquals(Optional.of("torch\n"), scripts.read("requirements.txt"));
    assertEquals(Optional.empty(), scripts.read("pyproject.toml"));
    WorkdirScripts next = new WorkdirScripts(work);
    assertEquals(Optional.of("jax\n"), next.read("requirements.txt"));
    assertEquals(Optional.of("[project]\n"), next.read("pyproject.toml"));
  }
}
