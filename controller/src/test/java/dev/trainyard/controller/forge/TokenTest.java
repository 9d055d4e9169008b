package dev.trainyard.controller.forge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A token from a mounted Secret follows the file, so a fixed token works without a restart. */
class TokenTest {
  @TempDir Path dir;

  @Test
  @DisplayName(
      "a file token is read again at each use; a missing or empty file keeps the last value; toString hides it")
  void followsTheFile() throws Exception {
    Path f = Files.writeString(dir.resolve("github"), "old-token\n");
    Token t = Token.fromFile(f);
    assertEquals("old-token", t.reveal());
    Files.writeString(f, "new-token\n");
    assertEquals("new-token", t.reveal());
    Files.writeString(f, "  \n");
    assertEquals("new-token", t.reveal(), "mid-rotation: an empty file is not a token");
    Files.delete(f);
    assertEquals("new-token", t.reveal());
    assertEquals("Token[***]", t.toString());
    assertEquals("fixed", new Token(" fixed\n").reveal());
    assertThrows(IllegalArgumentException.class, () -> new Token(" "));
  }
}
