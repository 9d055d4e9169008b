package dev.trainyard.cli;

import static dev.trainyard.cli.CliJvm.assertNoStackTrace;
import static dev.trainyard.cli.CliJvm.count;
import static dev.trainyard.cli.CliJvm.git;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeout;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.testing.FaultProxy;
import dev.trainyard.compiler.testing.FaultProxy.Fault;
import dev.trainyard.compiler.testing.GitCgiServer;
import dev.trainyard.compiler.testing.TrainProject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real CLI (a JVM of its own) runs {@code submit} and {@code prune} against a real GitOps
 * repository behind git's own http-backend, through {@link FaultProxy}, which breaks one kind of
 * request the way networks and forges do. Each test checks what the user sees (one line, the exit
 * code, no stack trace), what the remote holds afterwards (exactly one new commit, or none), and
 * that the next call with the same cache works.
 */
class GitFaultTest {
  private static final Pattern RUN = Pattern.compile("run (demo-[0-9a-f]{6}): ");
  private static final String TOKEN = "ghp_NotARealTokenButLongEnough0123456789";
  private static final Duration TIMEOUT = Duration.ofSeconds(120);
  @TempDir static Path shared;
  static GitCgiServer server;
  static Path template;
  static TrainProject project;
  static String firstRun;

  @TempDir Path temp;
  Path bare;
  FaultProxy proxy;
  String url;
  final Map<String, String> env = new HashMap<>();

  @BeforeAll
  static void firstSubmit() throws Exception {
    Files.createDirectories(shared.resolve("git"));
    template = shared.resolve("git/template.git");
    git(shared, "init", "-q", "--bare", "-b", "main", template.toString());
    server = new GitCgiServer(shared.resolve("git"));
    project = TrainProject.create(shared, "run: torchrun train.py\n");
    CliJvm.Result first =
        CliJvm.run(
            project.root(),
            shared,
            server.url("template.git"),
            Map.of(),
            List.of("submit", project.trainYaml().toString()),
            TIMEOUT);
    assertEquals(0, first.exit(), first.out());
    Matcher m = RUN.matcher(first.out());
    assertTrue(m.find(), first.out());
    firstRun = m.group(1);
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @BeforeEach
  void setUp() throws Exception {
    String name = "gitops-" + UUID.randomUUID() + ".git";
    bare = shared.resolve("git").resolve(name);
    git(shared, "clone", "-q", "--bare", template.toString(), bare.toString());
    proxy = new FaultProxy(server.port(), Duration.ofSeconds(30));
    url = proxy.url(name);
  }

  @AfterEach
  void tearDown() {
    proxy.close();
  }

  @Test
  @DisplayName(
      "reset while the pack is uploaded: the push is retried once, one commit lands, the note says so, exit 0")
  void resetDuringUpload() throws Exception {
    resubmitThrough(
        Fault.RESET_DURING_UPLOAD,
        2,
        "trainyard: note: cannot push main to " + url + ": ",
        "got no answer");
    nextSubmitWorks();
  }

  @Test
  @DisplayName(
      "reset after the server stored the pack: the branch holds the commit, so it is not pushed again; exit 0")
  void resetAfterStored() throws Exception {
    resubmitThrough(Fault.RESET_AFTER_STORED, 1, "the push had landed, so it was not sent again");
    nextSubmitWorks();
  }

  @Test
  @DisplayName(
      "500 after the server stored the pack, submit and prune: one commit each, no duplicate run, exit 0")
  void errorAfterStored() throws Exception {
    resubmitThrough(Fault.ERROR_AFTER_STORED, 1, "500");

    String beforePrune = tip();
    proxy.failNextPush(Fault.ERROR_AFTER_STORED);
    CliJvm.Result again = pruneOnce(beforePrune);
    assertEquals(tip(), revList(beforePrune).get(0), again.out());
  }

  @Test
  @DisplayName(
      "a fetch cut in the middle of the pack, then a reset push, for prune: retried, one commit, the next prune finds nothing")
  void pruneThroughResets() throws Exception {
    String before = tip();
    proxy.inject(
        r -> r.method().equals("POST") && r.target().endsWith("/git-upload-pack"),
        Fault.RESET_DURING_DOWNLOAD,
        1);
    proxy.failNextPush(Fault.RESET_DURING_UPLOAD);
    pruneOnce(before);
    assertEquals(1, revList(before).size());
  }

  @Test
  @DisplayName(
      "the push stalls 30 s and the client's 3 s timeout fires: it checks the branch, pushes once more, and the late stalled push never adds a second commit")
  void stalledPush() throws Exception {
    String before = tip();
    env.put("TRAINYARD_GITOPS_TIMEOUT", "3");
    proxy.failNextPush(Fault.STALL);
    CliJvm.Result cli =
        assertTimeout(Duration.ofSeconds(28), () -> cli(resubmit()), "waited for the stall");
    assertEquals(0, cli.exit(), cli.out());
    assertTrue(cli.out().contains("no answer within 3 s"), cli.out());
    assertTrue(proxy.awaitIdle(Duration.ofSeconds(60)), "the stalled request never ended");
    assertOneCommitOn(before, cli);
    assertNoStackTrace(cli);
    nextSubmitWorks();
  }

  @Test
  @DisplayName(
      "every fetch stalls past the 2 s timeout: bounded retries, then one line naming the timeout and its variable, exit 3, branch unchanged")
  void stalledFetches() throws Exception {
    env.put("TRAINYARD_GITOPS_TIMEOUT", "2");
    proxy.stallFetches(Duration.ofSeconds(8), 1_000);
    CliJvm.Result cli = assertTimeout(Duration.ofSeconds(30), this::failedResubmit);
    assertTrue(cli.out().contains("no answer within 2 s"), cli.out());
    assertTrue(cli.out().contains("TRAINYARD_GITOPS_TIMEOUT"), cli.out());
    newProxy();
    nextSubmitWorks();
  }

  @Test
  @DisplayName(
      "401 from the second request on, with a token: 'refused the token from TRAINYARD_GITOPS_TOKEN', never the token; exit 3; nothing pushed")
  void unauthorizedWithToken() throws Exception {
    env.put("TRAINYARD_GITOPS_TOKEN", TOKEN);
    proxy.inject(r -> r.index() >= 2, Fault.UNAUTHORIZED, 1_000);
    CliJvm.Result cli = failedResubmit();
    assertTrue(cli.out().contains("TRAINYARD_GITOPS_TOKEN"), cli.out());
    assertTrue(cli.out().contains("refused"), cli.out());
    assertFalse(cli.out().contains(TOKEN), cli.out());
    assertFalse(cli.out().contains(TOKEN.substring(4, 20)), cli.out());
    newProxy();
    nextSubmitWorks();
  }

  @Test
  @DisplayName(
      "one 401 on the second request is asked again and passes; 401 from then on without credentials says none were found and where it looked; exit 3; nothing pushed")
  void unauthorizedWithoutCredentials() throws Exception {
    proxy.inject(r -> r.index() == 2, Fault.UNAUTHORIZED, 1);
    nextSubmitWorks();
    proxy.inject(r -> r.index() >= 2, Fault.UNAUTHORIZED, 1_000);
    proxy.resetCount();
    CliJvm.Result cli = failedResubmit();
    assertTrue(cli.out().contains("TRAINYARD_GITOPS_TOKEN is not set"), cli.out());
    assertTrue(cli.out().contains("git credential"), cli.out());
  }

  /** {@code submit --rerun} of the project: a new run of the same train.yaml. */
  private List<String> resubmit() {
    return List.of("submit", "--rerun", project.trainYaml().toString());
  }

  /**
   * A re-submit with {@code fault} on its first push: exit 0, exactly one new commit, no stack
   * trace, {@code pushes} push packs in all, and each of {@code notes} in the output.
   */
  private void resubmitThrough(Fault fault, long pushes, String... notes) throws Exception {
    String before = tip();
    proxy.failNextPush(fault);
    CliJvm.Result cli = cli(resubmit());
    assertEquals(0, cli.exit(), cli.out());
    assertOneCommitOn(before, cli);
    assertNoStackTrace(cli);
    assertEquals(pushes, proxy.pushes(), "pushes: " + proxy.log());
    for (String note : notes) {
      assertTrue(cli.out().contains(note), cli.out());
    }
  }

  /**
   * A re-submit the environment refuses: exit 3, one error line, no stack trace, the branch as it
   * was.
   */
  private CliJvm.Result failedResubmit() throws Exception {
    String before = tip();
    CliJvm.Result cli = cli(resubmit());
    assertEquals(3, cli.exit(), cli.out() + proxy.log());
    assertEquals(1, count(cli.out(), "trainyard: error: "), cli.out());
    assertNoStackTrace(cli);
    assertEquals(before, tip());
    return cli;
  }

  /**
   * {@code prune} of the first run: exit 0, it says so, exactly one commit since {@code before}, no
   * stack trace; then the same prune again, which removes nothing. Returns the second.
   */
  private CliJvm.Result pruneOnce(String before) throws Exception {
    CliJvm.Result prune = cli(List.of("prune", firstRun));
    assertEquals(0, prune.exit(), prune.out());
    assertTrue(prune.out().contains("removed 1 run(s)"), prune.out());
    assertEquals(List.of(tip()), revList(before), "not exactly one prune commit");
    assertNoStackTrace(prune);
    CliJvm.Result again = cli(List.of("prune", firstRun));
    assertFalse(again.out().contains("removed 1 run(s)"), again.out());
    return again;
  }

  /** A proxy without faults in place of the one that broke every request. */
  private void newProxy() throws IOException {
    proxy.close();
    proxy = new FaultProxy(server.port(), Duration.ofSeconds(1));
    url = proxy.url(bare.getFileName().toString());
  }

  private void nextSubmitWorks() throws Exception {
    String before = tip();
    CliJvm.Result next = cli(resubmit());
    assertEquals(0, next.exit(), next.out());
    assertOneCommitOn(before, next);
    assertFalse(next.out().contains("note: "), next.out());
  }

  /** Exactly one commit since {@code before}, the one the CLI named, adding exactly one run. */
  private void assertOneCommitOn(String before, CliJvm.Result cli) throws Exception {
    List<String> added = revList(before);
    assertEquals(1, added.size(), "commits since the fault: " + added + "\n" + cli.out());
    assertTrue(cli.out().contains("committed " + added.get(0).substring(0, 12)), cli.out());
    String files =
        git(shared, "--git-dir", bare.toString(), "diff", "--name-only", before, added.get(0));
    List<String> runs = files.lines().filter(f -> f.matches(".*/jobset-[^/]+\\.yaml")).toList();
    assertEquals(1, runs.size(), files);
  }

  private List<String> revList(String since) throws Exception {
    return git(shared, "--git-dir", bare.toString(), "rev-list", since + "..main").lines().toList();
  }

  private String tip() throws Exception {
    return CliJvm.tip(bare);
  }

  private CliJvm.Result cli(List<String> args) throws Exception {
    return CliJvm.run(project.root(), temp, url, env, args, TIMEOUT);
  }
}
