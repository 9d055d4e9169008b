package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Reporting#ioReason}: the words a file error gets instead of a bare path. */
class IoReasonTest {
  @TempDir Path tmp;

  @Test
  @DisplayName("each JDK file exception gets its words and the path; others keep their message")
  void words() {
    assertEquals("no such file or folder: /a", Reporting.ioReason(new NoSuchFileException("/a")));
    assertEquals("permission denied: /a", Reporting.ioReason(new AccessDeniedException("/a")));
    assertEquals(
        "a file is in the way: /a", Reporting.ioReason(new FileAlreadyExistsException("/a")));
    assertEquals("not a folder: /a", Reporting.ioReason(new NotDirectoryException("/a")));
    assertEquals("folder not empty: /a", Reporting.ioReason(new DirectoryNotEmptyException("/a")));
    assertEquals(
        "/a: Read-only file system",
        Reporting.ioReason(new FileSystemException("/a", null, "Read-only file system")));
    assertEquals("/a", Reporting.ioReason(new FileSystemException("/a")));
    assertEquals("not UTF-8 text", Reporting.ioReason(new MalformedInputException(1)));
    assertEquals("disk full", Reporting.ioReason(new IOException("disk full")));
  }

  @Test
  @DisplayName("what the JDK really throws: a missing file, a file where a folder is asked for")
  void real() throws IOException {
    Path missing = tmp.resolve("missing");
    try {
      Files.readAllLines(missing);
    } catch (IOException e) {
      assertEquals("no such file or folder: " + missing, Reporting.ioReason(e));
    }
    Path file = Files.writeString(tmp.resolve("file"), "x");
    try {
      Files.createDirectories(file);
    } catch (IOException e) {
      assertEquals("a file is in the way: " + file, Reporting.ioReason(e));
    }
  }
}
