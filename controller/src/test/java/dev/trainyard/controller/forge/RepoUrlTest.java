package dev.trainyard.controller.forge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RepoUrlTest {

  @Test
  @DisplayName("https, ssh:// and scp-style remotes give the host and the project without .git")
  void forms() {
    assertEquals(
        Optional.of(new RepoUrl("github.com", "acme/llm")),
        RepoUrl.parse("https://github.com/acme/llm.git"));
    assertEquals(
        Optional.of(new RepoUrl("gitlab.example", "ml/team-a/llm")),
        RepoUrl.parse("ssh://git@gitlab.example:2222/ml/team-a/llm.git"));
    assertEquals(
        Optional.of(new RepoUrl("codeberg.org", "acme/llm")),
        RepoUrl.parse("git@codeberg.org:acme/llm.git"));
    assertEquals(
        Optional.of(new RepoUrl("github.com", "acme/llm")),
        RepoUrl.parse(" https://GitHub.com/acme/llm/ "));
  }

  @Test
  @DisplayName("blank, hostless, project-less or malformed URLs parse to nothing")
  void invalid() {
    for (String bad :
        new String[] {
          null,
          "",
          "  ",
          "/local/path/repo",
          "https://github.com/acme",
          "https://github.com/",
          "http://[bad",
          "file:///tmp/x/y"
        }) {
      assertEquals(Optional.empty(), RepoUrl.parse(bad), String.valueOf(bad));
    }
  }

  @Test
  @DisplayName("the forge is chosen by the repo URL's host; an unknown host has no route")
  void directory() {
    RetryingTransport http =
        new RetryingTransport(
            c -> null, RetryPolicy.standard(), Clock.systemUTC(), d -> {}, ForgeEvents.NONE);
    ForgeDirectory d =
        new ForgeDirectory(
            List.of(
                new ForgeEndpoint(
                    "GitHub.com",
                    ForgeKind.GITHUB,
                    URI.create("https://api.github.com"),
                    new Token("t")),
                new ForgeEndpoint(
                    "gitlab.example",
                    ForgeKind.GITLAB,
                    URI.create("https://gitlab.example/api/v4"),
                    new Token("t")),
                new ForgeEndpoint(
                    "codeberg.org",
                    ForgeKind.GITEA,
                    URI.create("https://codeberg.org/api/v1"),
                    new Token("t"))),
            http);
    assertEquals("github", d.route("https://github.com/acme/llm.git").orElseThrow().forge().kind());
    assertEquals("acme/llm", d.route("https://github.com/acme/llm.git").orElseThrow().project());
    assertEquals("gitlab", d.route("git@gitlab.example:ml/llm.git").orElseThrow().forge().kind());
    assertEquals("gitea", d.route("https://codeberg.org/acme/llm").orElseThrow().forge().kind());
    assertTrue(d.route("https://bitbucket.org/acme/llm").isEmpty());
    assertTrue(d.route("not a url").isEmpty());
  }

  @Test
  @DisplayName(
      "source prefixes: the longest prefix on a path-segment boundary wins, whatever the list order")
  void longestPrefix() {
    RetryingTransport http =
        new RetryingTransport(
            c -> null, RetryPolicy.standard(), Clock.systemUTC(), d -> {}, ForgeEvents.NONE);
    ForgeEndpoint all =
        new ForgeEndpoint(
            "github.com", ForgeKind.GITHUB, URI.create("https://api.github.com"), new Token("t"));
    ForgeEndpoint acme =
        new ForgeEndpoint(
            "GitHub.com/acme/",
            ForgeKind.GITEA,
            URI.create("https://mirror.example"),
            new Token("t"));
    for (List<ForgeEndpoint> order : List.of(List.of(all, acme), List.of(acme, all))) {
      ForgeDirectory d = new ForgeDirectory(order, http);
      assertEquals("gitea", d.route("https://github.com/acme/llm").orElseThrow().forge().kind());
      assertEquals(
          "github",
          d.route("https://github.com/acmes/llm").orElseThrow().forge().kind(),
          "acme is a segment, not a string prefix");
      assertEquals("github", d.route("https://github.com/other/llm").orElseThrow().forge().kind());
    }
    assertEquals("github.com/acme", acme.prefix());
    assertEquals(
        "/Acme",
        new ForgeEndpoint("/Acme", ForgeKind.GITHUB, URI.create("https://x"), new Token("t"))
            .prefix(),
        "only the host part is lower-cased");
    assertTrue(acme.serves("github.com/acme"));
    assertFalse(acme.serves("github.com/acmex/y"));
    assertTrue(
        new ForgeDirectory(List.of(acme), http).route("https://github.com/other/llm").isEmpty());
  }

  @Test
  @DisplayName(
      "a token never shows its value in toString; it is read stripped from a file or an env variable")
  void token(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("token");
    Files.writeString(file, "s3cr3t\n");
    Token t = Token.fromFile(file);
    assertEquals("Token[***]", t.toString());
    assertFalse(t.toString().contains("s3cr3t"));
    assertEquals("s3cr3t", t.reveal());
    assertEquals("e", Token.fromEnv(Map.of("GH", "e"), "GH").orElseThrow().reveal());
    assertTrue(Token.fromEnv(Map.of("GH", " "), "GH").isEmpty());
    assertTrue(Token.fromEnv(Map.of(), "GH").isEmpty());
    assertThrows(IllegalArgumentException.class, () -> new Token(" \n"));
  }
}
