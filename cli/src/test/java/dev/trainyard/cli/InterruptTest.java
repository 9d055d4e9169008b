package dev.trainyard.cli;

import static dev.trainyard.cli.CliJvm.count;
import static dev.trainyard.cli.CliJvm.git;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.testing.GitCgiServer;
import dev.trainyard.compiler.testing.TrainProject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ctrl-C (SIGINT) and SIGTERM sent to the real CLI (a JVM of its own) during {@code submit} and
 * {@code prune} against a real GitOps repository behind git's own http-backend: the one line says
 * whether the commit landed, the exit code is 128 + the signal, and the next call works.
 */
class InterruptTest {
  private static final Pattern RUN = Pattern.compile("run (demo-[0-9a-f]{6}): ");
  @TempDir Path temp;
  Path bare;
  GitCgiServer server;
  String url;
  TrainProject project;

  @BeforeEach
  void setUp() throws Exception {
    bare = temp.resolve("git/gitops.git");
    Files.createDirectories(bare.getParent());
    git(temp, "init", "-q", "--bare", "-b", "main", bare.toString());
    server = new GitCgiServer(bare.getParent());
    url = server.url("gitops.git");
    project = TrainProject.create(temp, "run: torchrun train.py\n");
    CliJvm.Result first = cli(List.of("submit", project.trainYaml().toString()));
    assertEquals(0, first.exit(), first.out());
  }

  @AfterEach
  void tearDown() {
    server.close();
  }

  @Test
  @DisplayName(
      "SIGINT while the server holds the fetch: 'interrupted; nothing was pushed', exit 130, branch unchanged; the next submit and prune work; prune interrupted the same way")
  void beforeThePush() throws Exception {
    String tip = tip();
    CountDownLatch stalled = server.stallFetches();
    CliJvm.Started p = start(resubmit());
    assertTrue(stalled.await(120, TimeUnit.SECONDS), "the submit never fetched");
    CliJvm.Result cut = p.signal("INT");
    assertEquals(130, cut.exit(), cut.out());
    assertTrue(
        cut.out().contains("trainyard: interrupted; nothing was pushed to " + url + " (main)\n"),
        cut.out());
    assertEquals(1, count(cut.out(), "trainyard: interrupted"), cut.out());
    assertEquals(tip, tip(), "the branch moved");
    server.release();

    CliJvm.Result next = cli(resubmit());
    assertEquals(0, next.exit(), next.out());
    assertTrue(next.out().contains("committed " + tip().substring(0, 12)), next.out());

    Matcher run = RUN.matcher(next.out());
    assertTrue(run.find(), next.out());
    String before = tip();
    stalled = server.stallFetches();
    p = start(List.of("prune", run.group(1)));
    assertTrue(stalled.await(120, TimeUnit.SECONDS), "the prune never fetched");
    cut = p.signal("TERM");
    assertEquals(143, cut.exit(), cut.out());
    assertTrue(
        cut.out().contains("trainyard: interrupted; nothing was pushed to " + url + " (main)\n"),
        cut.out());
    assertEquals(before, tip(), "the prune moved the branch");
    server.release();
    CliJvm.Result pruned = cli(List.of("prune", run.group(1)));
    assertEquals(0, pruned.exit(), pruned.out());
    assertTrue(pruned.out().contains("removed 1 run(s)"), pruned.out());
  }

  @Test
  @DisplayName(
      "SIGTERM while a pre-receive hook holds the push: the line gives the sha, says the outcome is unknown and how to check (git ls-remote); exit 143; that sha then lands")
  void duringThePush() throws Exception {
    String before = tip();
    Path mark = temp.resolve("hook-started");
    Path release = temp.resolve("hook-release");
    CliJvm.holdingHook(bare, "pre-receive", mark, release);
    CliJvm.Started p = start(resubmit());
    awaitFile(mark, p);
    CliJvm.Result cut = p.signal("TERM");
    assertEquals(143, cut.exit(), cut.out());
    Matcher line =
        Pattern.compile(
                "trainyard: interrupted while pushing ([0-9a-f]{40}) to "
                    + Pattern.quote(url)
                    + " \\(main\\): whether it landed is unknown; check with git ls-remote "
                    + Pattern.quote(url)
                    + " refs/heads/main\n")
            .matcher(cut.out());
    assertTrue(line.find(), cut.out());
    assertEquals(before, tip(), "landed before the hook let it");
    Files.writeString(release, "");
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!tip().equals(line.group(1)) && System.nanoTime() < until) {
      TimeUnit.MILLISECONDS.sleep(200);
    }
    assertEquals(line.group(1), tip(), "the push in flight did land: 'unknown' was right");
    Files.delete(bare.resolve("hooks/pre-receive"));
    CliJvm.Result next = cli(resubmit());
    assertEquals(0, next.exit(), next.out());
    assertTrue(next.out().contains("committed " + tip().substring(0, 12)), next.out());
  }

  @Test
  @DisplayName(
      "SIGINT while a post-receive hook holds the answer, which then comes: 'interrupted after the push: <sha> landed in <repo> (main)', exit 130")
  void afterThePush() throws Exception {
    Path mark = temp.resolve("hook-started");
    Path release = temp.resolve("hook-release");
    CliJvm.holdingHook(bare, "post-receive", mark, release);
    CliJvm.Started p = start(resubmit());
    awaitFile(mark, p);
    new ProcessBuilder("kill", "-INT", Long.toString(p.process().pid()))
        .start()
        .waitFor(10, TimeUnit.SECONDS);
    TimeUnit.MILLISECONDS.sleep(300);
    Files.writeString(release, "");
    CliJvm.Result cut = p.await(Duration.ofSeconds(60), "the CLI after SIGINT");
    assertEquals(130, cut.exit(), cut.out());
    assertTrue(
        cut.out()
            .contains(
                "trainyard: interrupted after the push: "
                    + tip()
                    + " landed in "
                    + url
                    + " (main)\n"),
        cut.out());
    Files.delete(bare.resolve("hooks/post-receive"));
    CliJvm.Result next = cli(resubmit());
    assertEquals(0, next.exit(), next.out());
  }

  private static void awaitFile(Path file, CliJvm.Started cli) throws Exception {
    Process p = cli.process();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (!Files.exists(file) && p.isAlive() && System.nanoTime() < until) {
      TimeUnit.MILLISECONDS.sleep(100);
    }
    assertTrue(Files.exists(file), "the hook never ran; alive: " + p.isAlive());
  }

  private String tip() throws Exception {
    return CliJvm.tip(bare);
  }

  /** {@code submit --rerun} of the project: a new run of the same train.yaml. */
  private List<String> resubmit() {
    return List.of("submit", "--rerun", project.trainYaml().toString());
  }

  private CliJvm.Result cli(List<String> args) throws Exception {
    return start(args).await(Duration.ofSeconds(180), "trainyard " + args);
  }

  private CliJvm.Started start(List<String> args) throws IOException {
    return CliJvm.start(project.root(), temp, url, Map.of(), args);
  }
}
