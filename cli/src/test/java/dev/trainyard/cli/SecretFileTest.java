package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** {@code run --local --secret-file}: NAME=VALUE lines, comments, and mistakes named by line. */
class SecretFileTest {
  @TempDir Path temp;

  private static CommandSpec spec() {
    return new CommandLine(CommandSpec.create()).getCommandSpec();
  }

  @Test
  @DisplayName(
      "NAME=VALUE per line, names trimmed, values kept as written (with '=' and spaces); blank and # lines skipped; no file: none")
  void reads() throws Exception {
    Path file =
        Files.writeString(
            temp.resolve("s.env"), "# tokens\n\nA=1\n  HF_TOKEN = hf=abc \n  # x=y\nB=\n");
    assertEquals(Map.of("A", "1", "HF_TOKEN", " hf=abc", "B", ""), SecretFile.read(spec(), file));
    assertEquals(Map.of(), SecretFile.read(spec(), null));
  }

  @Test
  @DisplayName(
      "a line without a name before '=' is a usage error naming file and line, never the value; an unreadable file names the reason")
  void mistakes() throws Exception {
    Path file = Files.writeString(temp.resolve("s.env"), "A=1\n\n=secret-value\n");
    ParameterException e =
        assertThrows(ParameterException.class, () -> SecretFile.read(spec(), file));
    assertEquals(
        "--secret-file " + file + ":3: expected NAME=VALUE (the value is not shown)",
        e.getMessage());
    assertFalse(e.getMessage().contains("secret-value"));
    Path none = temp.resolve("none.env");
    ParameterException missing =
        assertThrows(ParameterException.class, () -> SecretFile.read(spec(), none));
    assertEquals(
        "--secret-file " + none + " cannot be read: no such file or folder: " + none,
        missing.getMessage());
  }
}
