package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.controller.forge.FakeGitHubChecks;
import dev.trainyard.controller.forge.ForgeEndpoint;
import dev.trainyard.controller.forge.ForgeKind;
import dev.trainyard.controller.forge.JdkTransport;
import dev.trainyard.controller.forge.RetryPolicy;
import dev.trainyard.controller.forge.RetryingTransport;
import dev.trainyard.controller.forge.Sleeper;
import dev.trainyard.controller.forge.Token;
import dev.trainyard.gitops.GitOpsLocation;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** controller.yaml (process settings) and the platform.yaml {@code status:} it points at. */
class ConfigFileTest {

  static final String PLATFORM =
      """
            apiVersion: trainyard.dev/v1
            kind: Platform
            clusters: [{name: prod}]
            namespaces: [{name: team-a, cluster: prod, defaultQueue: q}]
            queues:
              resourceFlavors: [{name: f}]
              clusterQueues: [{name: cq, flavors: [{name: f, quota: {cpu: "8"}}]}]
              localQueues: [{name: q, namespace: team-a, clusterQueue: cq}]
            """;

  @TempDir Path dir;

  @BeforeEach
  void tokens() throws Exception {
    Files.createDirectories(dir.resolve("tokens/forge-tokens"));
    Files.writeString(dir.resolve("tokens/forge-tokens/github"), "ghp_secret\n");
    Files.writeString(dir.resolve("tokens/forge-tokens/gitlab"), "glpat_secret");
  }

  Path write(String controllerYaml, String status) throws Exception {
    Files.writeString(dir.resolve("platform.yaml"), PLATFORM + status);
    Path f = dir.resolve("controller.yaml");
    Files.writeString(
        f,
        "platform: "
            + dir.resolve("platform.yaml")
            + "\ntokens: "
            + dir.resolve("tokens")
            + "\n"
            + controllerYaml);
    return f;
  }

  @Test
  @DisplayName(
      "forges and the target URL come from platform.yaml status:, tokens from <tokens>/<secret>/<key>; durations and port from controller.yaml")
  void full() throws Exception {
    ControllerConfig c =
        ConfigFile.read(
            write(
                """
                stallAfter: 5m
                resync: 30s
                requestTimeout: 500ms
                requeueAfter: 1h
                port: 9090
                """,
                """
                status:
                  forges:
                  - {source: github.com, kind: github, api: https://api.github.com, token: {secret: forge-tokens, key: github}}
                  - {source: gitlab.example/ml, kind: gitlab, api: https://gitlab.example/api/v4, token: {secret: forge-tokens, key: gitlab}}
                  targetUrl: https://g.example/d?run={run}
                """));
    assertEquals(2, c.forges().size());
    assertEquals(ForgeKind.GITHUB, c.forges().get(0).kind());
    assertEquals(ForgeKind.GITLAB, c.forges().get(1).kind());
    assertEquals("gitlab.example/ml", c.forges().get(1).source());
    assertEquals(URI.create("https://gitlab.example/api/v4"), c.forges().get(1).api());
    assertEquals("Token[***]", c.forges().get(0).token().toString());
    assertEquals(
        "https://g.example/d?run=r1",
        c.targetUrl()
            .render(new RunKey("ns", "js"), new RunProvenance("", "abc", "", "prod", "r1")));
    assertEquals(Duration.ofMinutes(5), c.stallAfter());
    assertEquals(Duration.ofSeconds(30), c.resync());
    assertEquals(Duration.ofMillis(500), c.requestTimeout());
    assertEquals(Duration.ofHours(1), c.requeueAfter());
    assertEquals(9090, c.port());
    assertNull(c.election());
    assertEquals(7070, c.withPort(7070).port());
  }

  @Test
  @DisplayName(
      "progress: port and certificate folder (relative: from controller.yaml's); served only when"
          + " platform.yaml sets progressPush.enabled")
  void progress() throws Exception {
    ControllerConfig off = ConfigFile.read(write("", ""));
    assertEquals(ControllerConfig.ProgressSettings.DEFAULT, off.progress());
    assertEquals(8443, off.progress().port());
    assertEquals(Path.of("/var/run/secrets/trainyard/progress-tls"), off.progress().tls());
    assertFalse(off.pushesProgress());
    ControllerConfig on =
        ConfigFile.read(
            write("progress: {port: 9443, tls: certs}\n", "progressPush: {enabled: true}\n"));
    assertEquals(9443, on.progress().port());
    assertEquals(dir.resolve("certs").toAbsolutePath(), on.progress().tls());
    assertTrue(on.pushesProgress());
    assertEquals(on.progress(), on.withPort(1).withElection(null).progress());
    assertEquals(
        new ControllerConfig.ProgressSettings(1, dir),
        on.withProgress(new ControllerConfig.ProgressSettings(1, dir)).progress());
    ConfigException e =
        assertThrows(
            ConfigException.class, () -> ConfigFile.read(write("progress: {port: 70000}\n", "")));
    assertTrue(e.getMessage().contains("progress"), e.getMessage());
  }

  @Test
  @DisplayName(
      "relative platform: and tokens: are read from controller.yaml's folder, not the working directory")
  void relativePaths() throws Exception {
    Files.writeString(
        dir.resolve("platform.yaml"),
        PLATFORM
            + """
            status:
              forges:
              - {source: github.com, kind: github, api: https://api.github.com, token: {secret: forge-tokens, key: github}}
            """);
    Path f =
        Files.writeString(
            dir.resolve("controller.yaml"), "platform: platform.yaml\ntokens: tokens\n");
    assertFalse(Files.exists(Path.of("platform.yaml").toAbsolutePath()), "none in the working dir");
    ControllerConfig c = ConfigFile.read(f);
    assertEquals(1, c.forges().size());
    assertEquals(ForgeKind.GITHUB, c.forges().get(0).kind());
    Files.delete(dir.resolve("tokens/forge-tokens/github"));
    ConfigException e = assertThrows(ConfigException.class, () -> ConfigFile.read(f));
    assertTrue(
        e.getMessage().contains(dir.resolve("tokens/forge-tokens/github").toString()),
        e.getMessage());
  }

  @Test
  @DisplayName(
      "no status: in platform.yaml and nothing else: no forges, 10m stall, 60s resync, 10s timeout, requeue back-off up to 5m, port 8080")
  void defaults() throws Exception {
    ControllerConfig c = ConfigFile.read(write("", ""));
    assertTrue(c.forges().isEmpty());
    assertEquals(
        "",
        c.targetUrl()
            .render(new RunKey("ns", "js"), new RunProvenance("", "abc", "", "prod", "r1")));
    assertEquals(Duration.ofMinutes(10), c.stallAfter());
    assertEquals(Duration.ofSeconds(60), c.resync());
    assertEquals(Duration.ofSeconds(10), c.requestTimeout());
    assertEquals(Duration.ofMinutes(5), c.requeueAfter());
    assertEquals(8080, c.port());
  }

  @Test
  @DisplayName(
      "stallAfter: platform.yaml status.stallAfter when controller.yaml has none; the same in both is fine")
  void stallAfterFromPlatform() throws Exception {
    assertEquals(
        Duration.ofMinutes(25),
        ConfigFile.read(write("", "status: {stallAfter: 25m}\n")).stallAfter());
    assertEquals(
        Duration.ofMinutes(25),
        ConfigFile.read(write("stallAfter: 25m\n", "status: {stallAfter: 25m}\n")).stallAfter());
    assertEquals(
        Duration.ofMinutes(3), ConfigFile.read(write("stallAfter: 3m\n", "")).stallAfter());
  }

  @Test
  @DisplayName(
      "stallAfter set differently in controller.yaml and platform.yaml is refused, naming both, with a hint")
  void stallAfterConflict() throws Exception {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> ConfigFile.read(write("stallAfter: 5m\n", "status: {stallAfter: 25m}\n")));
    assertTrue(
        e.getMessage().contains("controller.yaml: stallAfter: 5m differs from "), e.getMessage());
    assertTrue(e.getMessage().contains("platform.yaml status.stallAfter (1500s)"), e.getMessage());
    assertTrue(
        e.getMessage().contains("hint: remove stallAfter from controller.yaml"), e.getMessage());
  }

  @Test
  @DisplayName("the defaults point at the Deployment's mounts")
  void mounts() {
    assertEquals("/etc/trainyard/platform/platform.yaml", ConfigFile.PLATFORM);
    assertEquals("/var/run/secrets/trainyard/forges", ConfigFile.TOKENS);
  }

  @Test
  @DisplayName(
      "controller.yaml mistakes name the file, the field and what is expected; forges/targetUrl say they moved")
  void mistakes() throws Exception {
    assertMessage(
        "stallAfter: ten minutes", "", ":3:13: error[E205]: `stallAfter` must be a duration like");
    assertMessage("colour: red", "", ":3:1: error[E201]: unknown field `colour`");
    assertMessage("port: 70000", "", ":3:7: error[E204]: `port` must be at most 65535, got 70000");
    assertMessage("port: -1", "", ":3:7: error[E204]: `port` must be at least 0, got -1");
    assertMessage("port: abc", "", ":3:7: error[E202]: `port` must be an integer");
    assertMessage(
        "stallAfter: 99999999999999999999s",
        "",
        "stallAfter: '99999999999999999999s' is not a duration like 500ms, 90s, 10m, 1h or 1h30m (at most 36500d)");
    assertMessage(
        "forges: []", "", ":3:1: error[E201]: `forges` moved to platform.yaml (status.forges)");
    assertMessage(
        "targetUrl: https://x",
        "",
        ":3:1: error[E201]: `targetUrl` moved to platform.yaml (status.targetUrl)");
    Path movedAndMore = write("forges: []\nport: -1", "");
    String moved =
        assertThrows(ConfigException.class, () -> ConfigFile.read(movedAndMore)).getMessage();
    assertTrue(
        moved.contains("`forges` moved to platform.yaml")
            && moved.contains("`port` must be at least 0"),
        "a moved field is one problem among the others, not the only one: " + moved);
    Path both = write("colour: red\nport: 70000\nresync: soon", "");
    String all = assertThrows(ConfigException.class, () -> ConfigFile.read(both)).getMessage();
    assertTrue(
        all.contains("error[E201]: unknown field `colour`")
            && all.contains("error[E204]: `port` must be at most 65535")
            && all.contains("error[E205]: `resync` must be a duration")
            && all.endsWith("3 errors, 0 warnings"),
        "every mistake at once, as train.yaml and platform.yaml get them: " + all);
    assertMessage("port: [unclosed", "", ":3:7: error[E101]: list opened with `[` is not closed");
    ConfigException e =
        assertThrows(ConfigException.class, () -> ConfigFile.read(dir.resolve("none")));
    assertTrue(e.getMessage().contains("cannot read"), e.getMessage());
  }

  @Test
  @DisplayName(
      "platform.yaml mistakes are the compiler's diagnostics, file:line:col: error[E304] with the hint")
  void platformMistakes() throws Exception {
    Path f = write("", "status:\n  targetUrl: https://x/{pod}\n");
    ConfigException e = assertThrows(ConfigException.class, () -> ConfigFile.read(f));
    assertEquals(
        dir.resolve("platform.yaml")
            + ":10:14: error[E304]: `status.targetUrl` uses unknown placeholder(s) {pod}"
            + "\n    at /status/targetUrl"
            + "\n    hint: known placeholders: {cluster}, {commit}, {jobset}, {namespace}, {run}"
            + "\n1 error, 0 warnings",
        e.getMessage());
    Path missing = dir.resolve("controller.yaml");
    Files.writeString(missing, "platform: " + dir.resolve("nope.yaml") + "\n");
    e = assertThrows(ConfigException.class, () -> ConfigFile.read(missing));
    assertTrue(e.getMessage().contains("nope.yaml"), e.getMessage());
  }

  @Test
  @DisplayName(
      "a GitHub App forge (app: instead of token:) reads its key from <tokens>/<secret>/<key> and"
          + " posts check runs; a missing or bad key names the file, never its content")
  void gitHubApp() throws Exception {
    Files.createDirectories(dir.resolve("tokens/gh-app"));
    FakeGitHubChecks.appKey(dir.resolve("tokens/gh-app"));
    String forge =
        """
        status:
          forges: [{source: github.com/acme, kind: github, api: https://api.github.com, app: {id: 42, privateKey: {secret: gh-app, key: %s}}}]
        """;
    ControllerConfig c = ConfigFile.read(write("", forge.formatted("app.pem")));
    assertEquals("GitHubApp[42]", c.forges().get(0).app().toString());
    assertNull(c.forges().get(0).token());
    RetryingTransport http =
        new RetryingTransport(
            new JdkTransport(Duration.ofSeconds(1)),
            RetryPolicy.standard(),
            Clock.systemUTC(),
            Sleeper.system(),
            new ControllerMetrics());
    assertTrue(c.forges().get(0).client(http).detailed());
    assertEquals("github", c.forges().get(0).client(http).kind());

    ConfigException missing =
        assertThrows(
            ConfigException.class, () -> ConfigFile.read(write("", forge.formatted("nope.pem"))));
    assertTrue(
        missing
            .getMessage()
            .contains(
                "status.forges[0].app.privateKey: Secret gh-app key nope.pem is not readable at "
                    + dir.resolve("tokens/gh-app/nope.pem")),
        missing.getMessage());
    assertTrue(missing.getMessage().contains("hint: mount the Secret gh-app at "));

    Files.writeString(dir.resolve("tokens/gh-app/bad.pem"), "hunter2-not-a-key");
    ConfigException bad =
        assertThrows(
            ConfigException.class, () -> ConfigFile.read(write("", forge.formatted("bad.pem"))));
    assertTrue(bad.getMessage().contains("holds no RSA private key in PEM"), bad.getMessage());
    assertFalse(bad.getMessage().contains("hunter2"), bad.getMessage());
  }

  @Test
  @DisplayName(
      "platform.yaml schema: app: only on a github forge and never beside token:, one of the two"
          + " required")
  void gitHubAppSchema() throws Exception {
    String both =
        "status:\n  forges: [{source: github.com, kind: github, api: https://api.github.com,"
            + " token: {secret: forge-tokens, key: github}, app: {id: 1, privateKey: {secret: a,"
            + " key: k}}}]\n";
    String gitlab =
        "status:\n  forges: [{source: gitlab.example, kind: gitlab, api: https://gitlab.example/api/v4,"
            + " app: {id: 1, privateKey: {secret: a, key: k}}}]\n";
    String neither =
        "status:\n  forges: [{source: github.com, kind: github, api: https://api.github.com}]\n";
    Map<String, String> expected =
        Map.of(
            both,
            ":10:12: error[E205]: `status.forges[0]` sets `app` together with `token`",
            gitlab,
            "error[E205]: `status.forges[0].kind` must be `github` with `app:`",
            neither,
            ":10:12: error[E203]: `status.forges[0]` is missing required field `token`\n"
                + "    at /status/forges/0/token\n"
                + "    hint: add `token:` — `token:` names the Secret holding the forge's token;"
                + " or, on GitHub, `app:` for check runs signed by a GitHub App");
    expected.forEach(
        (status, message) -> {
          ConfigException e =
              assertThrows(ConfigException.class, () -> ConfigFile.read(write("", status)));
          assertTrue(e.getMessage().contains(message), e.getMessage());
          assertTrue(e.getMessage().contains("1 error,"), e.getMessage());
        });
  }

  @Test
  @DisplayName(
      "a token Secret key that is not mounted names the Secret, key and path, never a token")
  void tokenMissing() throws Exception {
    Path f =
        write(
            "",
            """
                status:
                  forges: [{source: github.com, kind: github, api: https://api.github.com, token: {secret: other, key: github}}]
                """);
    ConfigException e = assertThrows(ConfigException.class, () -> ConfigFile.read(f));
    assertTrue(
        e.getMessage()
            .contains(
                "status.forges[0].token: Secret other key github is not readable at "
                    + dir.resolve("tokens/other/github")),
        e.getMessage());
    assertTrue(
        e.getMessage().contains("hint: mount the Secret other at " + dir.resolve("tokens/other")),
        e.getMessage());
    assertFalse(e.getMessage().contains("secret\n") || e.getMessage().contains("ghp_"));
    Files.writeString(dir.resolve("tokens/forge-tokens/empty"), "\n");
    Path g =
        write(
            "",
            """
                status:
                  forges: [{source: github.com, kind: github, api: https://api.github.com, token: {secret: forge-tokens, key: empty}}]
                """);
    assertTrue(
        assertThrows(ConfigException.class, () -> ConfigFile.read(g))
            .getMessage()
            .contains("(or is empty)"));
  }

  @Test
  @DisplayName(
      "an http:// forge API is refused (the token would travel in clear text) unless its host is loopback")
  void httpApi() throws Exception {
    Path f =
        write(
            "",
            """
                status:
                  forges: [{source: gitlab.example, kind: gitlab, api: http://gitlab.example/api/v4, token: {secret: forge-tokens, key: gitlab}}]
                """);
    ConfigException e = assertThrows(ConfigException.class, () -> ConfigFile.read(f));
    assertTrue(e.getMessage().contains("clear text"), e.getMessage());
    assertTrue(
        e.getMessage().contains("platform.yaml:"), "names the file and line: " + e.getMessage());
    for (String loopback :
        List.of(
            "http://127.0.0.1:8929/api/v4", "http://localhost/api/v4", "http://[::1]:80/api/v4")) {
      ControllerConfig c =
          ConfigFile.read(
              write(
                  "",
                  """
                    status:
                      forges: [{source: gitlab.example, kind: gitlab, api: "%s", token: {secret: forge-tokens, key: gitlab}}]
                    """
                      .formatted(loopback)));
      assertEquals(URI.create(loopback), c.forges().get(0).api());
    }
    assertEquals("", ForgeEndpoint.insecure(URI.create("https://gitlab.example")));
    assertTrue(
        ForgeEndpoint.insecure(URI.create("http://127.0.0.1.example.com")).contains("clear text"));
    assertTrue(ForgeEndpoint.insecure(URI.create("ftp://x/y")).contains("not an https://"));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new ForgeEndpoint(
                "gitlab.example",
                ForgeKind.GITLAB,
                URI.create("http://gitlab.example"),
                new Token("t")));
  }

  @Test
  @DisplayName(
      "prune: the GitOps repo, branch (main), pass interval (10m) and mirror folder; off when absent")
  void prune() throws Exception {
    RunPruningTest.git(dir, "init", "-q", "--bare", "gitops.git");
    String retention = "retention: {succeeded: 7d}\n";
    ControllerConfig c =
        ConfigFile.read(
            write(
                "prune: {gitops: "
                    + dir.resolve("gitops.git")
                    + ", every: 90s, cache: "
                    + dir.resolve("mirror")
                    + "}\n",
                retention));
    RunPruning.Settings p = c.prune().orElseThrow();
    assertEquals(
        GitOpsLocation.parse(dir.resolve("gitops.git").toString(), Path.of("")), p.gitops());
    assertEquals("main", p.branch());
    assertEquals(Duration.ofSeconds(90), p.every());
    assertEquals(dir.resolve("mirror"), p.cache());
    assertEquals(Optional.of(Duration.ofDays(7)), c.platform().retention().succeeded());
    RunPruning.Settings d =
        ConfigFile.read(
                write("prune: {gitops: https://git.example/gitops.git, branch: live}\n", retention))
            .prune()
            .orElseThrow();
    assertEquals("live", d.branch());
    assertEquals(Duration.ofMinutes(10), d.every());
    assertEquals(Path.of("/tmp/trainyard"), d.cache());
    assertTrue(ConfigFile.read(write("", retention)).prune().isEmpty());
    assertMessage(
        "prune: {branch: main}",
        retention,
        ":3:8: error[E203]: `prune` is missing required field `gitops`");
    assertMessage(
        "prune: {gitops: https://git.example/g.git, push: yes}",
        retention,
        ":3:44: error[E201]: unknown field `push` in `prune`");
    assertMessage("prune: {gitops: " + dir.resolve("missing") + "}", retention, "prune.gitops: ");
    assertMessage(
        "prune: {gitops: https://git.example/g.git}",
        "",
        "sets no retention, so nothing would ever be pruned");
  }

  private void assertMessage(String yaml, String status, String expected) throws Exception {
    Path f = write(yaml, status);
    ConfigException e = assertThrows(ConfigException.class, () -> ConfigFile.read(f));
    assertTrue(e.getMessage().startsWith(f.toString()), e.getMessage());
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }

  @Test
  @DisplayName(
      "durations: ms, s, m, h, and platform.yaml's compound form (1h30m, 2d); anything else is refused, naming the forms")
  void durations() {
    assertEquals(Duration.ofMillis(250), ConfigFile.parseDuration("250ms"));
    assertEquals(Duration.ofSeconds(90), ConfigFile.parseDuration(" 90s "));
    assertEquals(Duration.ofMinutes(10), ConfigFile.parseDuration("10m"));
    assertEquals(Duration.ofHours(2), ConfigFile.parseDuration("2h"));
    assertEquals(Duration.ofMinutes(90), ConfigFile.parseDuration("1h30m"));
    assertEquals(Duration.ofDays(2), ConfigFile.parseDuration("2d"));
    for (String bad : new String[] {"10", "1h30", "1x", "876001h0m"}) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> ConfigFile.parseDuration(bad), bad);
      assertEquals(
          "'" + bad + "' is not a duration like 500ms, 90s, 10m, 1h or 1h30m (at most 36500d)",
          e.getMessage());
    }
  }
}
