package dev.trainyard.gitops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeout;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.testing.FaultProxy;
import dev.trainyard.compiler.testing.FaultProxy.Fault;
import dev.trainyard.compiler.testing.FaultProxy.Request;
import dev.trainyard.compiler.testing.GitCgiServer;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.random.RandomGenerator;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Publisher} through {@link FaultProxy} in front of git's own http-backend ({@link
 * GitCgiServer}): what is retried, what is checked before a push is sent again, and what the user
 * reads. The CLI's view of the same faults is {@code cli.GitFaultTest}.
 */
class PublishFaultTest {
  private static final String TOKEN = "glpat-NotARealTokenButLongEnough01";
  @TempDir Path temp;
  GitCgiServer server;
  FaultProxy proxy;
  Path bare;
  String url;
  final Map<String, String> env = new HashMap<>();
  final List<String> notes = new CopyOnWriteArrayList<>();
  PublishProgress progress = new PublishProgress(notes::add);

  /** The publisher's retry unit: the first pause, doubled on each later retry. */
  long retryUnitMillis = 10;

  @BeforeEach
  void setUp() throws Exception {
    Files.createDirectories(temp.resolve("git"));
    bare = GitCli.bare(temp.resolve("git/gitops.git"));
    GitCli.pushFiles(bare, temp.resolve("w"), Map.of("README.md", "ops\n"), "first");
    server = new GitCgiServer(temp.resolve("git"));
    proxy = new FaultProxy(server.port(), Duration.ofSeconds(4));
    url = proxy.url("gitops.git");
    env.put("GIT_CONFIG_GLOBAL", temp.resolve("no-gitconfig").toString());
    env.put("GIT_CONFIG_NOSYSTEM", "1");
  }

  @AfterEach
  void tearDown() {
    proxy.close();
    server.close();
  }

  /** Publishes one new file, {@code runs/NAME.txt}, through the proxy with fast retries. */
  Publisher.Published<String> publish(String name) throws GitOpsException {
    try (GitOpsRepository repo =
        GitOpsRepository.mirror(GitOpsLocation.parse(url, temp), temp.resolve("cache"), env)) {
      Publisher publisher =
          new Publisher(
              repo, "main", RandomGenerator.of("L64X128MixRandom"), attempt -> {}, progress);
      publisher.retryUnitMillis = retryUnitMillis;
      return publisher.publish(
          base -> {
            CommitText.Person p = new CommitText.Person("a", "a@example.com", Instant.EPOCH);
            return new Change<>(
                List.of(
                    new TreeEdit.ReplaceFolder(
                        "runs/" + name, new TreeMap<>(Map.of("run.txt", name + "\n")))),
                Optional.of(new CommitText("add " + name, "", List.of(), p, p)),
                List.of(),
                name);
          },
          false);
    }
  }

  /**
   * Publishes {@code runs/a} with {@code fault} on the first push: it lands as the one commit on
   * top of "first", and the result names it.
   */
  Publisher.Published<String> throughFault(Fault fault) throws GitOpsException {
    proxy.failNextPush(fault);
    Publisher.Published<String> done = publish("a");
    assertTrue(done.pushed());
    assertEquals(Optional.of(tip()), done.commit());
    assertEquals(List.of("add a", "first"), subjects());
    return done;
  }

  /** {@link #throughFault(Fault)}, and the proxy saw {@code pushes} push packs in all. */
  Publisher.Published<String> throughFault(Fault fault, long pushes) throws GitOpsException {
    Publisher.Published<String> done = throughFault(fault);
    assertEquals(pushes, proxy.pushes(), proxy.log().toString());
    return done;
  }

  String tip() {
    return GitCli.git(bare, "rev-parse", "main").strip();
  }

  List<String> subjects() {
    return GitCli.log(bare);
  }

  @Test
  @DisplayName(
      "a reset while the pack is uploaded: nothing stored, the note says so, one retry lands one commit")
  void resetDuringUpload() throws Exception {
    throughFault(Fault.RESET_DURING_UPLOAD, 2);
    assertEquals(1, notes.size(), notes.toString());
    assertTrue(
        notes
            .get(0)
            .matches(
                "cannot push main to "
                    + Pattern.quote(url)
                    + ": (connection reset|broken pipe.*|the connection ended early) \\(the push of"
                    + " [0-9a-f]{12} got no answer: the branch is read before any new push\\);"
                    + " trying again in 10 ms \\(1 of 3\\)"),
        notes.get(0));
    assertEquals(PublishProgress.Phase.PUSHED, progress.phase());
  }

  @Test
  @DisplayName("a pause of whole seconds is said in seconds: trying again in 1 s, not 1000 ms")
  void pauseInSeconds() throws Exception {
    retryUnitMillis = 1_000;
    throughFault(Fault.RESET_DURING_UPLOAD, 2);
    assertEquals(1, notes.size(), notes.toString());
    assertTrue(notes.get(0).endsWith("; trying again in 1 s (1 of 3)"), notes.get(0));
  }

  @Test
  @DisplayName(
      "a reset after the server stored the pack: the branch holds the commit, it is not sent again")
  void resetAfterStored() throws Exception {
    Publisher.Published<String> done = throughFault(Fault.RESET_AFTER_STORED, 1);
    assertEquals("a", done.change().summary());
    assertEquals(2, notes.size(), notes.toString());
    assertEquals(
        "main of "
            + url
            + " holds "
            + tip().substring(0, 12)
            + ": the push had landed, so it was"
            + " not sent again",
        notes.get(1));
    assertEquals(
        "interrupted after the push: " + tip() + " landed in " + url + " (main)",
        progress.interruptedLine());
    assertTrue(done.after().orElseThrow().hasFolder("runs/a"));
  }

  @Test
  @DisplayName(
      "500 after the pack was stored: one commit, the note names the answer; a later publish works")
  void errorAfterStored() throws Exception {
    throughFault(Fault.ERROR_AFTER_STORED, 1);
    assertTrue(
        notes.get(0).contains(": the server answered 500 Internal Server Error ("), notes.get(0));
    publish("b");
    assertEquals(List.of("add b", "add a", "first"), subjects());
  }

  @Test
  @DisplayName(
      "a landed push found below another writer's commit still counts: no second commit of ours")
  void landedBelowAnotherPush() throws Exception {
    proxy.failNextPush(Fault.ERROR_AFTER_STORED);
    Path other = temp.resolve("other");
    // After the 500, another writer pushes on top before we read the branch again.
    progress =
        new PublishProgress(
            line -> {
              notes.add(line);
              if (notes.size() == 1) {
                GitCli.pushFiles(bare, other, Map.of("other.txt", "x\n"), "other");
              }
            });
    Publisher.Published<String> done = publish("a");
    assertTrue(done.pushed());
    assertEquals(List.of("other", "add a", "first"), subjects());
    assertEquals(GitCli.git(bare, "rev-parse", "main~1").strip(), done.commit().orElseThrow());
  }

  @Test
  @DisplayName("a fetch cut in the middle of the pack is tried again; the mirror stays usable")
  void fetchCut() throws Exception {
    publish("a");
    GitCli.pushFiles(bare, temp.resolve("w"), Map.of("big.txt", "x\n".repeat(50_000)), "big");
    proxy.inject(
        r -> r.method().equals("POST") && r.target().endsWith("/git-upload-pack"),
        Fault.RESET_DURING_DOWNLOAD,
        1);
    notes.clear();
    publish("b");
    assertEquals(List.of("add b", "big", "add a", "first"), subjects());
    assertEquals(1, notes.size(), notes.toString());
    assertTrue(notes.get(0).startsWith("cannot fetch main from " + url + ": "), notes.get(0));
    assertTrue(notes.get(0).endsWith("; trying again in 10 ms (1 of 3)"), notes.get(0));
  }

  @Test
  @DisplayName(
      "resets on every push: three retries, then one error that says the outcome is unknown and how to check")
  void retriesRunOut() throws Exception {
    String before = tip();
    proxy.inject(Request::receivePackPost, Fault.RESET_DURING_UPLOAD, 100);
    GitOpsException e = assertThrows(GitOpsException.class, () -> publish("a"));
    assertEquals(4, proxy.pushes());
    assertEquals(3, notes.size(), notes.toString());
    assertTrue(notes.get(2).endsWith("trying again in 40 ms (3 of 3)"), notes.get(2));
    assertTrue(
        e.getMessage()
            .matches(
                "cannot push main to .*; tried 4 times; whether the push of"
                    + " [0-9a-f]{40} landed is unknown"),
        e.getMessage());
    assertEquals(
        "check with git ls-remote " + url + " refs/heads/main before running it again", e.hint());
    assertFalse(e.isUsage());
    assertEquals(before, tip());
    assertEquals(PublishProgress.Phase.PUSHING, progress.phase());
  }

  @Test
  @DisplayName(
      "every fetch times out: the timeout comes from TRAINYARD_GITOPS_TIMEOUT, 4 tries, the hint names the variable")
  void fetchTimesOut() throws Exception {
    env.put("TRAINYARD_GITOPS_TIMEOUT", "1");
    proxy.stallFetches(Duration.ofSeconds(3), 100);
    GitOpsException e =
        assertTimeout(
            Duration.ofSeconds(20), () -> assertThrows(GitOpsException.class, () -> publish("a")));
    assertEquals(
        "cannot fetch main from "
            + url
            + ": no answer within 1 s (TRAINYARD_GITOPS_TIMEOUT); tried 4 times",
        e.getMessage());
    assertEquals(
        "check that the server is up; a slow server needs a larger TRAINYARD_GITOPS_TIMEOUT"
            + " (seconds, default 60)",
        e.hint());
    assertEquals(List.of("first"), subjects());
  }

  @Test
  @DisplayName(
      "the push stalls past the timeout and is served later: checked, pushed again, and only one of the two lands")
  void stalledPush() throws Exception {
    env.put("TRAINYARD_GITOPS_TIMEOUT", "1");
    Publisher.Published<String> done = throughFault(Fault.STALL);
    assertTrue(notes.get(0).contains("no answer within 1 s"), notes.toString());
    assertTrue(proxy.awaitIdle(Duration.ofSeconds(30)), proxy.log().toString());
    assertEquals(List.of("add a", "first"), subjects());
    assertEquals(Optional.of(tip()), done.commit());
  }

  @Test
  @DisplayName(
      "401 from the second request on with a token: refused, names TRAINYARD_GITOPS_TOKEN, never the token, not retried")
  void refusedToken() throws Exception {
    env.put("TRAINYARD_GITOPS_TOKEN", TOKEN);
    proxy.inject(r -> r.index() >= 2, Fault.UNAUTHORIZED, 100);
    GitOpsException e = assertThrows(GitOpsException.class, () -> publish("a"));
    assertEquals(
        "cannot fetch main from "
            + url
            + ": the server refused the token from TRAINYARD_GITOPS_TOKEN (user x-access-token)",
        e.getMessage());
    assertTrue(e.hint().startsWith("check that TRAINYARD_GITOPS_TOKEN holds a current token"));
    assertFalse((e.getMessage() + e.hint() + notes).contains(TOKEN.substring(6)));
    assertEquals(List.of(), notes);
    assertFalse(e.isTransient());
    assertEquals(List.of("first"), subjects());
  }

  @Test
  @DisplayName(
      "401 with a credential helper's password: names the helper and how to drop its entry")
  void refusedHelper() throws Exception {
    Path config = temp.resolve("gitconfig");
    Files.writeString(
        config, "[credential]\n\thelper = \"!f() { echo username=ada; echo password=pw; }; f\"\n");
    env.put("GIT_CONFIG_GLOBAL", config.toString());
    proxy.inject(r -> r.index() >= 2, Fault.UNAUTHORIZED, 100);
    GitOpsException e = assertThrows(GitOpsException.class, () -> publish("a"));
    assertTrue(
        e.getMessage()
            .endsWith(": the server refused the credentials git credential fill gave (user ada)"),
        e.getMessage());
    assertTrue(e.hint().contains("git credential reject"), e.hint());
  }

  @Test
  @DisplayName(
      "a 500 after the pack was stored, then a 401: the error says the push's outcome is unknown")
  void refusedAfterUnanswered() throws Exception {
    proxy.failNextPush(Fault.ERROR_AFTER_STORED);
    proxy.inject(r -> proxy.pushes() >= 1, Fault.UNAUTHORIZED, 100);
    GitOpsException e = assertThrows(GitOpsException.class, () -> publish("a"));
    assertTrue(
        e.getMessage()
            .matches(
                "cannot fetch main from .*: the server wants credentials and none were found: .*;"
                    + " whether the push of [0-9a-f]{40} landed is unknown"),
        e.getMessage() + proxy.log());
  }

  @Test
  @DisplayName(
      "TRAINYARD_GITOPS_TIMEOUT: whole seconds from 1 to 3600, default 60; anything else is a usage error naming it")
  void timeoutSetting() throws Exception {
    assertEquals(60, GitOpsRepository.timeoutSeconds(Map.of()));
    assertEquals(60, GitOpsRepository.timeoutSeconds(Map.of("TRAINYARD_GITOPS_TIMEOUT", " ")));
    assertEquals(1, GitOpsRepository.timeoutSeconds(Map.of("TRAINYARD_GITOPS_TIMEOUT", "1")));
    assertEquals(
        3600, GitOpsRepository.timeoutSeconds(Map.of("TRAINYARD_GITOPS_TIMEOUT", " 3600 ")));
    for (String bad : List.of("0", "3601", "-5", "10s", "abc")) {
      GitOpsException e =
          assertThrows(
              GitOpsException.class,
              () -> GitOpsRepository.timeoutSeconds(Map.of("TRAINYARD_GITOPS_TIMEOUT", bad)));
      assertTrue(e.isUsage());
      assertEquals(
          "TRAINYARD_GITOPS_TIMEOUT=\"" + bad + "\" is not a number of seconds from 1 to 3600",
          e.getMessage());
      assertEquals(
          "set it to the seconds a GitOps server may stay silent, or unset it for 60", e.hint());
    }
    env.put("TRAINYARD_GITOPS_TIMEOUT", "soon");
    assertTrue(assertThrows(GitOpsException.class, () -> publish("a")).isUsage());
  }

  @Test
  @DisplayName(
      "which failures are transient: timeouts, resets, early ends, 5xx and 429; not refused connections, unknown hosts or 404")
  void transientReasons() {
    assertEquals(
        "no answer within 7 s (TRAINYARD_GITOPS_TIMEOUT)",
        GitOpsRepository.transientReason(
            new IOException(new SocketTimeoutException("Read timed out")), "", 7));
    assertEquals(
        "", GitOpsRepository.transientReason(new ConnectException("Connection refused"), "", 7));
    assertEquals(
        "connection reset",
        GitOpsRepository.transientReason(new SocketException("Connection reset"), "", 7));
    assertEquals(
        "the connection ended early", GitOpsRepository.transientReason(new EOFException(), "", 7));
    assertEquals(
        "", GitOpsRepository.transientReason(new UnknownHostException("git.example"), "", 7));
    assertEquals(
        "",
        GitOpsRepository.transientReason(
            new IOException(new URISyntaxException("x", "bad")), "", 7));
    IOException plain = new IOException("x");
    assertEquals(
        "the server answered 429 Too Many Requests",
        GitOpsRepository.transientReason(plain, "429 Too Many Requests", 7));
    assertEquals(
        "the server answered 503 Service Unavailable",
        GitOpsRepository.transientReason(plain, "503 Service Unavailable: try later", 7));
    assertEquals("", GitOpsRepository.transientReason(plain, "404 Not Found", 7));
    assertEquals("", GitOpsRepository.transientReason(plain, "repository not found", 7));
    assertEquals("", GitOpsRepository.transientReason(plain, "port 5000 is odd", 7));
    assertEquals(
        "no answer within 7 s (TRAINYARD_GITOPS_TIMEOUT)",
        GitOpsRepository.transientReason(plain, "Read timed out", 7));
    assertEquals(
        "no answer within 7 s (TRAINYARD_GITOPS_TIMEOUT)",
        GitOpsRepository.transientReason(plain, "connect timed out", 7));
    assertEquals(
        "connection reset", GitOpsRepository.transientReason(plain, "Connection reset", 7));
    for (String early :
        List.of(
            "Premature EOF", "Unexpected end of stream", "Short read", "Packfile is truncated")) {
      assertEquals(
          "the connection ended early", GitOpsRepository.transientReason(plain, early, 7), early);
    }
  }

  @Test
  @DisplayName(
      "contains: a commit is in a tip's history when it is the tip or an ancestor, not a child")
  void contains() throws Exception {
    publish("a");
    String a = tip();
    publish("b");
    String b = tip();
    try (GitOpsRepository repo = GitOpsRepository.local(bare)) {
      assertTrue(repo.contains(b, b));
      assertTrue(repo.contains(b, a));
      assertFalse(repo.contains(a, b));
      GitOpsException e =
          assertThrows(GitOpsException.class, () -> repo.contains(a, "1".repeat(40)));
      assertTrue(e.getMessage().startsWith("cannot read the history of "), e.getMessage());
    }
  }
}
