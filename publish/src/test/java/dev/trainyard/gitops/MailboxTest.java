package dev.trainyard.gitops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The author trailer's mailbox ({@link SubmitMessage#mailbox}) read back by the parser Argo CD
 * uses, Go's {@code net/mail.ParseAddress} (argo-cd {@code util/git/client.go}), run with the real
 * Go toolchain: every name comes back as it was written.
 */
class MailboxTest {

  static final List<String> NAMES =
      List.of(
          "Test",
          "Jane Doe",
          "Doe, Jane",
          "Jane Q. Public",
          "O'Brien",
          "Zoë Ünal",
          "a \"quoted\" name",
          "back\\slash",
          "team (ml)",
          "x@y");

  @Test
  @DisplayName(
      "plain names stay unquoted; a comma, dot, quote or parenthesis gets an RFC 5322 quoted string")
  void quoting() {
    assertEquals("Jane Doe <j@example.com>", SubmitMessage.mailbox("Jane Doe", "j@example.com"));
    assertEquals(
        "\"Doe, Jane\" <j@example.com>", SubmitMessage.mailbox("Doe, Jane", "j@example.com"));
    assertEquals(
        "\"a \\\"q\\\" \\\\ b\" <j@example.com>",
        SubmitMessage.mailbox("a \"q\" \\ b", "j@example.com"));
    assertEquals("O'Brien <j@example.com>", SubmitMessage.mailbox("O'Brien", "j@example.com"));
    assertEquals(
        "\"Jane  Doe\" <j@example.com>", SubmitMessage.mailbox("Jane  Doe", "j@example.com"));
  }

  @Test
  @DisplayName("Go's net/mail.ParseAddress (Argo CD's parser) reads every mailbox back to its name")
  void goParsesEveryMailbox(@TempDir Path temp) throws Exception {
    assumeTrue(onPath("go"), "NOT RUN: go is not on PATH");
    Path program = temp.resolve("parse.go");
    Files.writeString(
        program,
        String.join(
            "\n",
            "package main",
            "import (\"bufio\"; \"fmt\"; \"net/mail\"; \"os\")",
            "func main() {",
            "  in := bufio.NewScanner(os.Stdin)",
            "  for in.Scan() {",
            "    a, err := mail.ParseAddress(in.Text())",
            "    if err != nil { fmt.Printf(\"ERROR %v\\n\", err); continue }",
            "    fmt.Printf(\"%s|%s\\n\", a.Name, a.Address)",
            "  }",
            "}",
            ""));
    List<String> lines = new ArrayList<>();
    for (String name : NAMES) {
      lines.add(SubmitMessage.mailbox(name, "dev@example.com"));
    }
    ProcessBuilder pb = new ProcessBuilder("go", "run", program.toString());
    pb.environment().put("GOTOOLCHAIN", "local");
    pb.environment().put("GOFLAGS", "-mod=mod");
    pb.redirectError(temp.resolve("go.err").toFile());
    Process p = pb.start();
    try (var out = p.getOutputStream()) {
      out.write((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
    }
    String answer = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(300, TimeUnit.SECONDS), "go run did not finish");
    assertEquals(0, p.exitValue(), Files.readString(temp.resolve("go.err")));
    List<String> expected = new ArrayList<>();
    for (String name : NAMES) {
      expected.add(name + "|dev@example.com");
    }
    assertEquals(expected, answer.lines().toList());
  }

  private static boolean onPath(String tool) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
        return true;
      }
    }
    return false;
  }
}
