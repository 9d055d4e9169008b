package dev.trainyard.controller.forge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link ForgeEndpoint}'s rules and {@link ForgeDirectory}'s routing, in the forge package. */
class ForgeEndpointTest {

  static final Token TOKEN = new Token("t0ken");
  @TempDir Path temp;

  @Test
  @DisplayName(
      "exactly one of token and GitHub App; an app only on GitHub; its client posts check runs,"
          + " a token's the kind's statuses")
  void credentials() throws Exception {
    URI api = URI.create("https://api.github.com");
    GitHubApp app = new GitHubApp(7, FakeGitHubChecks.appKey(temp));
    assertThrows(
        IllegalArgumentException.class,
        () -> new ForgeEndpoint("github.com", ForgeKind.GITHUB, api, null, null));
    assertThrows(
        IllegalArgumentException.class,
        () -> new ForgeEndpoint("github.com", ForgeKind.GITHUB, api, TOKEN, app));
    IllegalArgumentException gitlab =
        assertThrows(
            IllegalArgumentException.class,
            () -> new ForgeEndpoint("gitlab.example", ForgeKind.GITLAB, api, null, app));
    assertEquals("a GitHub App posts to GitHub only, not GITLAB", gitlab.getMessage());
    assertThrows(
        NullPointerException.class,
        () -> new ForgeEndpoint("github.com", ForgeKind.GITHUB, api, (Token) null));
    RetryingTransport http =
        new RetryingTransport(
            new JdkTransport(Duration.ofSeconds(1)),
            RetryPolicy.standard(),
            Clock.systemUTC(),
            Sleeper.system(),
            new RecordingEvents());
    Forge checks = new ForgeEndpoint("github.com", ForgeKind.GITHUB, api, null, app).client(http);
    assertTrue(checks instanceof GitHubChecks);
    Forge statuses = new ForgeEndpoint("github.com", ForgeKind.GITHUB, api, TOKEN).client(http);
    assertTrue(statuses instanceof CommitStatusApi);
    assertFalse(statuses.detailed());
    assertTrue(
        new ForgeEndpoint("gitlab.example", ForgeKind.GITLAB, api, TOKEN).client(http)
            instanceof GitLabForge);
  }

  @Test
  @DisplayName(
      "https always; http only for loopback hosts (localhost, 127.x.y.z, [::1]); anything else is"
          + " refused with the reason")
  void insecure() {
    for (String ok :
        List.of(
            "https://api.github.com",
            "http://localhost:8080",
            "http://127.0.0.1:1/x",
            "http://127.10.20.30",
            "http://[::1]:9000")) {
      assertEquals("", ForgeEndpoint.insecure(URI.create(ok)), ok);
    }
    assertTrue(
        ForgeEndpoint.insecure(URI.create("http://gitlab.example/api/v4"))
            .contains("would send the token in clear text"));
    assertTrue(
        ForgeEndpoint.insecure(URI.create("http://127.0.0.1.nip.io"))
            .contains("would send the token in clear text"));
    assertEquals(
        "api ftp://x is not an https:// URL", ForgeEndpoint.insecure(URI.create("ftp://x")));
    assertEquals(
        "api https:///x is not an https:// URL", ForgeEndpoint.insecure(URI.create("https:///x")));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new ForgeEndpoint(
                "github.com", ForgeKind.GITHUB, URI.create("http://example.com"), TOKEN));
  }

  @Test
  @DisplayName(
      "the longest matching prefix routes a repo; a path GitHub cannot hold, an unknown host and a"
          + " non-URL each say why")
  void routing() {
    RetryingTransport http =
        new RetryingTransport(
            new JdkTransport(Duration.ofSeconds(1)),
            RetryPolicy.standard(),
            Clock.systemUTC(),
            Sleeper.system(),
            new RecordingEvents());
    ForgeDirectory d =
        new ForgeDirectory(
            List.of(
                new ForgeEndpoint(
                    "github.com", ForgeKind.GITHUB, URI.create("https://api.github.com"), TOKEN),
                new ForgeEndpoint(
                    "github.com/acme", ForgeKind.GITEA, URI.create("https://acme.example"), TOKEN)),
            http);
    assertEquals("gitea", d.route("https://github.com/acme/llm.git").orElseThrow().forge().kind());
    assertEquals(
        "github", d.route("https://github.com/other/llm.git").orElseThrow().forge().kind());
    assertEquals("", d.unrouted("https://github.com/other/llm.git"));
    assertTrue(d.route("https://github.com/other/llm/tree/main").isEmpty());
    assertTrue(
        d.unrouted("https://github.com/other/llm/tree/main")
            .contains("whose repos are owner/repo, but its path is other/llm/tree/main"));
    assertTrue(d.route("https://gitlab.example/g/p.git").isEmpty());
    assertEquals(
        "no forge in platform.yaml status.forges matches source repo https://gitlab.example/g/p.git",
        d.unrouted("https://gitlab.example/g/p.git"));
    assertTrue(d.unrouted("not a url").contains("is not a git remote URL"));
  }
}
