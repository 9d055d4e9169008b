package dev.trainyard.controller.forge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.spec.RSAPublicKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link GitHubChecks} and {@link GitHubApp} against {@link FakeGitHubChecks}, with an app key made
 * by the real {@code openssl genrsa -traditional} (the PKCS#1 PEM GitHub hands out).
 */
class GitHubChecksTest {

  static final String SHA = ForgeFixture.SHA;
  static final String CONTEXT = "trainyard/dev/team-a/llama-ft-7f3a9c";
  static final CommitRef COMMIT = new CommitRef(FakeGitHubChecks.REPO, SHA);

  @TempDir Path temp;
  private final TestTime time = new TestTime(ForgeFixture.T0);
  private FakeGitHubChecks github;
  private Path key;
  private RetryingTransport http;

  @BeforeEach
  void start() throws Exception {
    key = openssl(temp, "app.pem", "genrsa", "-traditional");
    github =
        FakeGitHubChecks.start(publicKey(GitHubApp.parse(Files.readString(key))), time::instant);
    http =
        new RetryingTransport(
            new JdkTransport(Duration.ofSeconds(5)),
            RetryPolicy.standard(),
            time,
            time,
            new RecordingEvents());
  }

  @AfterEach
  void stop() {
    github.close();
  }

  private GitHubChecks checks() throws ForgeException {
    return new GitHubChecks(github.api(), new GitHubApp(FakeGitHubChecks.APP_ID, key), http, time);
  }

  private static CommitStatus status(CommitState state, String description) {
    return new CommitStatus(state, description, CONTEXT, "https://grafana.example/d/runs");
  }

  @Test
  @DisplayName(
      "a run is one check run: created queued, then updated in place to in_progress and a failure"
          + " with its details; the installation token is bought once")
  void lifecycle() throws Exception {
    GitHubChecks checks = checks();
    assertEquals(Optional.empty(), checks.current(COMMIT, CONTEXT));
    checks.post(COMMIT, status(CommitState.PENDING, "queued in team-a"));
    checks.post(COMMIT, status(CommitState.RUNNING, "running: 2 of 2 nodes ready"));
    checks.post(
        COMMIT,
        status(CommitState.FAILURE, "failed (user error): exit code 1 on node node-1")
            .withDetails("**Failed (user error)**: exit code 1\n\n- node: `node-1`", false));

    assertEquals(List.of(), github.rejected());
    List<FakeGitHubChecks.CheckRun> runs = github.runs();
    assertEquals(1, runs.size());
    FakeGitHubChecks.CheckRun run = runs.get(0);
    assertEquals("completed", run.status());
    assertEquals("failure", run.conclusion());
    assertEquals(CONTEXT, run.name());
    assertEquals("https://grafana.example/d/runs", run.detailsUrl());
    assertEquals("failed (user error): exit code 1 on node node-1", run.output().get("title"));
    assertEquals(
        "**Failed (user error)**: exit code 1\n\n- node: `node-1`", run.output().get("text"));
    List<String> calls = github.calls();
    assertEquals(
        List.of(
            "GET /repos/acme/llm/installation",
            "POST /app/installations/77/access_tokens",
            "GET /repos/acme/llm/commits/" + SHA + "/check-runs",
            "POST /repos/acme/llm/check-runs",
            "PATCH /repos/acme/llm/check-runs/" + run.id(),
            "PATCH /repos/acme/llm/check-runs/" + run.id()),
        calls);
    assertEquals(
        Optional.of(
            new PostedStatus(
                "failure",
                "failed (user error): exit code 1 on node node-1",
                "https://grafana.example/d/runs")),
        checks.current(COMMIT, CONTEXT));
  }

  @Test
  @DisplayName(
      "in_progress is a real state; a timeout is timed_out, a deleted run cancelled, a platform"
          + " error failure")
  void states() throws Exception {
    GitHubChecks checks = checks();
    assertEquals("queued", checks.wireState(CommitState.PENDING));
    assertEquals("in_progress", checks.wireState(CommitState.RUNNING));
    assertEquals("success", checks.wireState(CommitState.SUCCESS));
    assertEquals("failure", checks.wireState(CommitState.ERROR));
    assertEquals("cancelled", checks.wireState(CommitState.CANCELED));
    assertEquals("failure", checks.wireState(status(CommitState.FAILURE, "x")));
    assertEquals(
        "timed_out",
        checks.wireState(
            status(CommitState.FAILURE, "x").withDetails("ran past its timeout", true)));
    assertEquals(
        "success", checks.wireState(status(CommitState.SUCCESS, "x").withDetails("", true)));
    assertTrue(checks.detailed());

    checks.post(COMMIT, status(CommitState.RUNNING, "running"));
    assertEquals("in_progress", github.runs().get(0).status());
    checks.post(
        COMMIT,
        status(CommitState.FAILURE, "failed (user error): timed out").withDetails("t", true));
    assertEquals("timed_out", github.runs().get(0).conclusion());
    CommitRef other = new CommitRef(FakeGitHubChecks.REPO, "a".repeat(40));
    checks.post(other, status(CommitState.CANCELED, "deleted before it finished"));
    assertEquals("cancelled", github.runs().get(1).conclusion());
    assertEquals(List.of(), github.rejected());
  }

  @Test
  @DisplayName("after a restart the check run is found by name and updated, not created twice")
  void restartFindsTheCheckRun() throws Exception {
    checks().post(COMMIT, status(CommitState.RUNNING, "running"));
    GitHubChecks restarted = checks();
    assertEquals(
        Optional.of(new PostedStatus("in_progress", "running", "https://grafana.example/d/runs")),
        restarted.current(COMMIT, CONTEXT));
    restarted.post(COMMIT, status(CommitState.SUCCESS, "succeeded in 1h 2m"));
    assertEquals(1, github.runs().size());
    assertEquals("success", github.runs().get(0).conclusion());
  }

  @Test
  @DisplayName("a revoked installation token is replaced once (401), and an hour later renewed")
  void tokenRenewal() throws Exception {
    GitHubChecks checks = checks();
    checks.post(COMMIT, status(CommitState.PENDING, "queued"));
    github.revokeTokens();
    checks.post(COMMIT, status(CommitState.RUNNING, "running"));
    assertEquals("in_progress", github.runs().get(0).status());
    assertEquals(
        2,
        github.calls().stream().filter(c -> c.endsWith("/access_tokens")).count(),
        github.calls().toString());
    time.sleep(Duration.ofMinutes(56));
    checks.post(COMMIT, status(CommitState.SUCCESS, "succeeded"));
    assertEquals(3, github.calls().stream().filter(c -> c.endsWith("/access_tokens")).count());
    assertEquals("success", github.runs().get(0).conclusion());
  }

  @Test
  @DisplayName("a repo the app is not installed on is REJECTED (404), nothing is posted")
  void notInstalled() throws Exception {
    ForgeException e =
        assertThrows(
            ForgeException.class,
            () ->
                checks()
                    .post(new CommitRef("acme/other", SHA), status(CommitState.PENDING, "queued")));
    assertEquals(404, e.httpStatus());
    assertEquals(List.of(), github.runs());
  }

  @Test
  @DisplayName("a key of another app is refused by GitHub (401), not retried as a rate limit")
  void wrongKey() throws Exception {
    Path other = openssl(temp, "other.pem", "genrsa", "-traditional");
    GitHubChecks checks =
        new GitHubChecks(github.api(), new GitHubApp(FakeGitHubChecks.APP_ID, other), http, time);
    ForgeException e =
        assertThrows(
            ForgeException.class, () -> checks.post(COMMIT, status(CommitState.PENDING, "q")));
    assertEquals(401, e.httpStatus());
    assertFalse(e.retryable());
  }

  @Test
  @DisplayName(
      "PKCS#8 keys work too; an unreadable or non-key file says which file, not its content")
  void keyFormats() throws Exception {
    Path pkcs8 = openssl(temp, "app8.pem", "genpkey", "-algorithm", "RSA");
    assertTrue(Files.readString(pkcs8).contains("BEGIN PRIVATE KEY"));
    GitHubApp app = new GitHubApp(7, pkcs8);
    String jwt = app.jwt(Instant.parse("2026-12-01T08:00:00Z"));
    String claims =
        new String(Base64.getUrlDecoder().decode(jwt.split("\\.")[1]), StandardCharsets.UTF_8);
    assertEquals("{\"exp\":1796112540,\"iat\":1796111940,\"iss\":\"7\"}", claims);

    Path junk = temp.resolve("junk.pem");
    Files.writeString(junk, "not a key: s3cr3t-value");
    ForgeException e = assertThrows(ForgeException.class, () -> new GitHubApp(7, junk));
    assertTrue(e.getMessage().contains(junk.toString()), e.getMessage());
    assertFalse(e.getMessage().contains("s3cr3t"), e.getMessage());
    ForgeException missing =
        assertThrows(ForgeException.class, () -> new GitHubApp(7, temp.resolve("nope.pem")));
    assertTrue(missing.getMessage().contains("cannot read its private key"), missing.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new GitHubApp(0, pkcs8));
    assertEquals("GitHubApp[7]", app.toString());
  }

  @Test
  @DisplayName("DER lengths: short form below 128, long form with 1 to 3 length bytes")
  void derLengths() {
    assertEquals("7f", hex(GitHubApp.length(127)));
    assertEquals("8180", hex(GitHubApp.length(128)));
    assertEquals("81ff", hex(GitHubApp.length(255)));
    assertEquals("820100", hex(GitHubApp.length(256)));
    assertEquals("82ffff", hex(GitHubApp.length(65_535)));
    assertEquals("83010000", hex(GitHubApp.length(65_536)));
    assertEquals("83ffffff", hex(GitHubApp.length(0xFFFFFF)));
    assertEquals("8401000000", hex(GitHubApp.length(0x1000000)));
  }

  @Test
  @DisplayName("output text over 65,535 characters is cut with a mark; GitHub accepts it")
  void longDetails() throws Exception {
    String details = "line of log\n".repeat(7_000);
    checks()
        .post(
            COMMIT, status(CommitState.FAILURE, "failed (user error)").withDetails(details, false));
    assertEquals(List.of(), github.rejected());
    String text = (String) github.runs().get(0).output().get("text");
    assertEquals(GitHubChecks.OUTPUT, text.length());
    assertTrue(text.endsWith("… (cut at 65535 characters)"), text.substring(text.length() - 40));
    assertEquals("short", GitHubChecks.fit("short"));
    String emoji = "x".repeat(GitHubChecks.OUTPUT - 29) + "😀".repeat(20);
    assertFalse(
        Character.isHighSurrogate(GitHubChecks.fit(emoji).charAt(GitHubChecks.OUTPUT - 29)));
  }

  @Test
  @DisplayName("a status with no description is titled by its context")
  void titleFallsBackToContext() {
    assertEquals(CONTEXT, GitHubChecks.output(status(CommitState.PENDING, "")).get("title"));
    assertFalse(GitHubChecks.output(status(CommitState.PENDING, "q")).containsKey("text"));
  }

  @Test
  @DisplayName(
      "the client names its kind, serves owner/repo only, and reads the check run of its own name"
          + " among others on the commit")
  void identityAndNames() throws Exception {
    GitHubChecks checks = checks();
    assertEquals("github", checks.kind());
    assertTrue(checks.serves("acme/llm"));
    assertFalse(checks.serves("group/sub/project"));
    checks.post(COMMIT, status(CommitState.RUNNING, "running a"));
    String other = CONTEXT + "-b";
    checks.post(
        COMMIT,
        new CommitStatus(CommitState.PENDING, "queued b", other, "https://grafana.example/d/b"));
    assertEquals("running a", checks.current(COMMIT, CONTEXT).orElseThrow().description());
    assertEquals("queued b", checks.current(COMMIT, other).orElseThrow().description());
    assertEquals(7, new GitHubApp(7, key).appId());
    assertEquals(1, new GitHubApp(1, key).appId());
    assertTrue(checks.toString().startsWith("GitHubChecks[http://127.0.0.1:"), checks.toString());
  }

  @Test
  @DisplayName(
      "a refusal other than 401 is thrown after one request (no token retry); after a revoked"
          + " token the retried read still returns the check run")
  void refusalsAndRetriedRead() throws Exception {
    GitHubChecks checks = checks();
    checks.post(COMMIT, status(CommitState.PENDING, "queued"));
    long before = github.calls().size();
    ForgeException e =
        assertThrows(
            ForgeException.class,
            () ->
                checks.post(
                    COMMIT,
                    new CommitStatus(CommitState.RUNNING, "running", CONTEXT, "ftp://not-http")));
    assertEquals(422, e.httpStatus());
    assertEquals(1, github.calls().size() - before, github.calls().toString());
    github.revokeTokens();
    assertEquals("queued", checks.current(COMMIT, CONTEXT).orElseThrow().description());
  }

  @Test
  @DisplayName("the caches keep the newest 10,000 entries, least recently used out first")
  void boundedCaches() {
    Map<Integer, Integer> m = GitHubChecks.bounded();
    for (int i = 0; i < GitHubChecks.MAX_CACHED; i++) {
      m.put(i, i);
    }
    assertEquals(GitHubChecks.MAX_CACHED, m.size());
    m.get(0);
    m.put(-1, -1);
    assertEquals(GitHubChecks.MAX_CACHED, m.size());
    assertTrue(m.containsKey(0), "recently read stays");
    assertFalse(m.containsKey(1), "least recently used goes");
  }

  @Test
  @DisplayName("a cut never splits a surrogate pair: the pair before the mark goes whole")
  void cutKeepsSurrogatePairs() {
    String mark = "\n… (cut at " + GitHubChecks.OUTPUT + " characters)";
    int end = GitHubChecks.OUTPUT - mark.length();
    String text = "x".repeat(end - 1) + "😀" + "y".repeat(50);
    String cut = GitHubChecks.fit(text);
    assertEquals("x".repeat(end - 1) + mark, cut);
    assertEquals(
        "z".repeat(GitHubChecks.OUTPUT), GitHubChecks.fit("z".repeat(GitHubChecks.OUTPUT)));
    assertEquals(
        GitHubChecks.OUTPUT, GitHubChecks.fit("z".repeat(GitHubChecks.OUTPUT + 1)).length());
  }

  private static String hex(byte[] b) {
    StringBuilder s = new StringBuilder();
    for (byte x : b) {
      s.append(String.format("%02x", x));
    }
    return s.toString();
  }

  static PublicKey publicKey(PrivateKey key) throws Exception {
    RSAPrivateCrtKey rsa = (RSAPrivateCrtKey) key;
    return KeyFactory.getInstance("RSA")
        .generatePublic(new RSAPublicKeySpec(rsa.getModulus(), rsa.getPublicExponent()));
  }

  /** Runs the real {@code openssl} to write a 2048-bit RSA key to {@code name}. */
  static Path openssl(Path dir, String name, String... command) throws Exception {
    Path out = dir.resolve(name);
    List<String> args = new ArrayList<>(List.of("openssl"));
    args.addAll(List.of(command));
    if (command[0].equals("genpkey")) {
      args.addAll(List.of("-pkeyopt", "rsa_keygen_bits:2048", "-out", out.toString()));
    } else {
      args.addAll(List.of("-out", out.toString(), "2048"));
    }
    Process p = new ProcessBuilder(args).redirectErrorStream(true).start();
    String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "openssl did not finish");
    assertEquals(0, p.exitValue(), log);
    return out;
  }
}
