package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * init's train.yaml and compile's run folders get the modes the umask gives new files and folders
 * (as {@code touch}/{@code mkdir} make them), not the 0600/0700 of Java's temp files. The expected
 * modes are read from a file and a folder made the ordinary way in the same place, so the test
 * holds under any umask.
 */
class FileModesTest {
  @TempDir Path temp;

  private Set<PosixFilePermission> ordinaryFile() throws Exception {
    return Files.getPosixFilePermissions(Files.writeString(temp.resolve("ordinary.txt"), "x"));
  }

  private Set<PosixFilePermission> ordinaryFolder() throws Exception {
    return Files.getPosixFilePermissions(Files.createDirectory(temp.resolve("ordinary-dir")));
  }

  @Test
  @DisplayName("init writes train.yaml with the umask's file mode (not 0600)")
  void initMode() throws Exception {
    Path dir = temp.resolve("proj");
    MainTest.Run r = MainTest.run("init", dir.toString());
    assertEquals(0, r.exit(), r.err());
    assertEquals(
        PosixFilePermissions.toString(ordinaryFile()),
        PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("train.yaml"))));
  }

  @Test
  @DisplayName("compile's run and queue folders get the umask's folder mode (not 0700)")
  void runFolderMode() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: torchrun t.py\n");
    Path out = temp.resolve("gitops");
    assertEquals(
        0, MainTest.run("compile", p.trainYaml().toString(), "--out", out.toString()).exit());
    String expected = PosixFilePermissions.toString(ordinaryFolder());
    try (var runs = Files.list(out.resolve("clusters/local/default"))) {
      for (Path folder : runs.toList()) {
        assertEquals(
            expected,
            PosixFilePermissions.toString(Files.getPosixFilePermissions(folder)),
            folder.toString());
      }
    }
  }
}
