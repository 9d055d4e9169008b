package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.trainyard.compiler.testing.GitCgiServer;
import dev.trainyard.compiler.testing.TrainProject;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code submit} through the resident server, with the real client in a JVM of its own (so it can
 * be signalled, as a terminal's Ctrl-C signals it) and the real server and CLI in this one, against
 * a GitOps repository behind real {@code git http-backend}: it lands as in its own JVM, and a
 * client told to stop, or killed, stops it before its push with the line a submit in its own JVM
 * prints.
 */
class ServedSubmitTest {
  private static final Pattern COMMITTED = Pattern.compile("committed ([0-9a-f]{12}) to ");

  @TempDir Path temp;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final StringWriter log = new StringWriter();
  private Path socket;
  private Future<ResidentServer.Ended> serving;
  private Path bare;
  private GitCgiServer git;
  private String url;
  private TrainProject project;

  @BeforeEach
  void setUp() throws Exception {
    bare = temp.resolve("git/gitops.git");
    Files.createDirectories(bare.getParent());
    CliJvm.git(temp, "init", "-q", "--bare", "-b", "main", bare.toString());
    git = new GitCgiServer(bare.getParent());
    url = git.url("gitops.git");
    project = TrainProject.create(temp.resolve("project"), "run: torchrun train.py\n");
    socket = temp.resolve("s/served.sock");
    ResidentServer server =
        new ResidentServer(
            socket, Duration.ofMinutes(5), Main::run, new PrintWriter(log, true), System::nanoTime);
    serving = threads.submit(() -> server.serve());
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!Files.exists(socket) && !serving.isDone() && System.nanoTime() < until) {
      TimeUnit.MILLISECONDS.sleep(20);
    }
    assertTrue(Files.exists(socket), "the server bound its socket; log: " + log);
  }

  @AfterEach
  void tearDown() throws Exception {
    git.release();
    Files.deleteIfExists(socket); // the server stops within a tick, after its calls
    serving.get(90, TimeUnit.SECONDS);
    threads.shutdown();
    git.close();
  }

  @Test
  @DisplayName(
      "a served submit of a relative train.yaml lands and says so as in its own JVM, authored as the source commit; the same commit again adds nothing; both are served")
  void lands() throws Exception {
    // A path relative to the caller's folder: the server's own folder is another.
    String relative = project.root().relativize(project.trainYaml()).toString();
    CliJvm.Result first = client(List.of("submit", relative)).await(timeout(), "submit");
    assertEquals(0, first.exit(), first.out() + log);
    Matcher committed = COMMITTED.matcher(first.out());
    assertTrue(committed.find(), first.out());
    assertTrue(CliJvm.tip(bare).startsWith(committed.group(1)), first.out());
    assertEquals(
        CliJvm.git(project.root(), "log", "-1", "--format=%an <%ae>").strip(),
        CliJvm.git(bare, "--git-dir", bare.toString(), "log", "-1", "--format=%an <%ae>").strip(),
        "the GitOps commit's author is the source commit's");
    CliJvm.Result again = client(submit()).await(timeout(), "submit");
    assertEquals(0, again.exit(), again.out());
    assertTrue(again.out().contains("nothing to submit: every run is already in"), again.out());
    assertEquals(
        2, CliJvm.count(log.toString(), "trainyard server: submit (exit 0) in "), log.toString());
  }

  @Test
  @DisplayName(
      "Ctrl-C while the served submit fetches: 'interrupted; nothing was pushed', exit 130; the server never pushes it; the next submit lands")
  void stoppedBeforeThePush() throws Exception {
    land();
    String tip = CliJvm.tip(bare);
    CountDownLatch stalled = git.stallFetches();
    CliJvm.Started client = client(resubmit());
    assertTrue(stalled.await(120, TimeUnit.SECONDS), "the submit never fetched; log: " + log);
    long signalled = System.nanoTime();
    CliJvm.Result cut = client.signal("INT");
    assertEquals(130, cut.exit(), cut.out());
    assertTrue(
        System.nanoTime() - signalled < TimeUnit.SECONDS.toNanos(8),
        "the client ended at the server's 'k', not after its 10 s grace");
    assertTrue(
        cut.out().contains("trainyard: interrupted; nothing was pushed to " + url + " (main)\n"),
        cut.out() + log);
    assertEquals(1, CliJvm.count(cut.out(), "trainyard: interrupted"), cut.out());
    git.release();
    awaitLog("submit (exit 3; its client asked to stop or went away)");
    assertEquals(tip, CliJvm.tip(bare), "the stopped submit pushed");
    CliJvm.Result next = client(resubmit()).await(timeout(), "submit");
    assertEquals(0, next.exit(), next.out());
    assertTrue(next.out().contains("committed " + CliJvm.tip(bare).substring(0, 12)), next.out());
  }

  @Test
  @DisplayName(
      "a client killed with SIGKILL while its submit fetches: the server reads the connection's end as a stop and pushes nothing")
  void killedClient() throws Exception {
    land();
    String tip = CliJvm.tip(bare);
    CountDownLatch stalled = git.stallFetches();
    CliJvm.Started client = client(resubmit());
    assertTrue(stalled.await(120, TimeUnit.SECONDS), "the submit never fetched; log: " + log);
    client.process().destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    git.release();
    awaitLog("submit (exit 3; its client asked to stop or went away)");
    assertEquals(tip, CliJvm.tip(bare), "the submit of a killed client pushed");
  }

  @Test
  @DisplayName(
      "SIGTERM while a pre-receive hook holds the served push: the line gives the sha and says the outcome is unknown; exit 143; that sha then lands")
  void stoppedWhilePushing() throws Exception {
    land();
    Path mark = temp.resolve("hook-started");
    Path release = temp.resolve("hook-release");
    CliJvm.holdingHook(bare, "pre-receive", mark, release);
    CliJvm.Started client = client(resubmit());
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (!Files.exists(mark) && client.process().isAlive() && System.nanoTime() < until) {
      TimeUnit.MILLISECONDS.sleep(100);
    }
    assertTrue(Files.exists(mark), "the hook never ran: " + client.out() + log);
    CliJvm.Result cut = client.signal("TERM");
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
    Files.writeString(release, "");
    awaitLog("submit (exit 0; its client asked to stop or went away)");
    assertEquals(
        line.group(1), CliJvm.tip(bare), "the push in flight did land: 'unknown' was right");
  }

  @Test
  @DisplayName(
      "the shell that started the client killed with SIGKILL while the submit fetches: the client sees its parent gone and stops the submit, nothing pushed")
  void killedParent() throws Exception {
    land();
    String tip = CliJvm.tip(bare);
    CountDownLatch stalled = git.stallFetches();
    List<String> command = new ArrayList<>(List.of("bash", "-c", "\"$@\" & wait", "shell"));
    command.addAll(clientCommand(socket, resubmit()));
    CliJvm.Started shell = start(command);
    assertTrue(stalled.await(120, TimeUnit.SECONDS), "the submit never fetched; log: " + log);
    ProcessHandle client =
        shell.process().children().findFirst().orElseThrow(() -> new AssertionError("no client"));
    shell.process().destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    assertTrue(
        client.onExit().get(60, TimeUnit.SECONDS) != null && !client.isAlive(),
        "the orphaned client ended");
    git.release();
    awaitLog("submit (exit 3; its client asked to stop or went away)");
    assertEquals(tip, CliJvm.tip(bare), "the submit of a killed shell's client pushed");
  }

  @Test
  @DisplayName(
      "Ctrl-C to a client whose server never confirms the stop: after 10 s a line says whether the submit pushed is unknown and how to look; exit 130")
  void stuckServer() throws Exception {
    Path stuck = temp.resolve("s/stuck.sock");
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      server.bind(UnixDomainSocketAddress.of(stuck));
      List<SocketChannel> held = new ArrayList<>(); // open till the end: the server hangs
      Future<Byte> go =
          threads.submit(
              () -> {
                SocketChannel c = server.accept();
                held.add(c);
                DataInputStream in = new DataInputStream(Channels.newInputStream(c));
                ServerProtocol.readRequest(in);
                DataOutputStream out = new DataOutputStream(Channels.newOutputStream(c));
                out.writeByte(ServerProtocol.ACCEPTED);
                out.flush();
                return in.readByte();
              });
      CliJvm.Started client = start(clientCommand(stuck, resubmit()));
      assertEquals(ServerProtocol.GO, go.get(60, TimeUnit.SECONDS));
      long started = System.nanoTime();
      CliJvm.Result cut = client.signal("INT");
      assertEquals(130, cut.exit(), cut.out());
      assertTrue(
          System.nanoTime() - started >= TimeUnit.SECONDS.toNanos(9),
          "waited the grace; exit " + cut.exit() + ", printed: " + cut.out());
      assertEquals(
          "trainyard: interrupted; the resident server did not confirm the stop within 10 s, so"
              + " whether the submit pushed is unknown: git ls-remote on the GitOps repository"
              + " shows its branch's tip, and the same submit again without --rerun adds only the"
              + " runs that are missing\n",
          cut.out());
      held.get(0).close();
    }
  }

  @Test
  @DisplayName(
      "a client in another mount namespace (unshare -m) is declined: exit 75, nothing run, so the launcher runs the call in its own JVM")
  void otherMountNamespace() throws Exception {
    Process probe =
        new ProcessBuilder("unshare", "-m", "--propagation", "private", "true")
            .redirectErrorStream(true)
            .start();
    assumeTrue(
        probe.waitFor(30, TimeUnit.SECONDS) && probe.exitValue() == 0,
        "NOT RUN: unshare -m does not work here (needs root or user namespaces)");
    List<String> command = new ArrayList<>(List.of("unshare", "-m", "--propagation", "private"));
    command.addAll(clientCommand(socket, submit()));
    CliJvm.Result declined = start(command).await(timeout(), "submit in another namespace");
    assertEquals(ServerClient.NOT_SERVED, declined.exit(), declined.out());
    assertEquals("", declined.out());
    awaitLog("declined a working folder this server sees as another folder");
    assertEquals("", CliJvm.git(bare, "--git-dir", bare.toString(), "branch", "--list").strip());
  }

  /** A first served submit, so that later ones are {@code --rerun}s of a known train.yaml. */
  private void land() throws Exception {
    CliJvm.Result first = client(submit()).await(timeout(), "submit");
    assertEquals(0, first.exit(), first.out() + log);
  }

  private List<String> submit() {
    return List.of("submit", project.trainYaml().toString());
  }

  private List<String> resubmit() {
    return List.of("submit", "--rerun", project.trainYaml().toString());
  }

  private static Duration timeout() {
    return Duration.ofSeconds(180);
  }

  /** Waits at most 120 s for the server's log to say {@code what}. */
  private void awaitLog(String what) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (!log.toString().contains(what) && System.nanoTime() < until) {
      TimeUnit.MILLISECONDS.sleep(100);
    }
    assertTrue(log.toString().contains(what), log.toString());
  }

  /**
   * The real client ({@link ServerClient}, JDK classes only) in a JVM of its own, in the project's
   * folder, handing {@code trainyard ARGS --gitops URL} to this test's server; its environment (the
   * cache under the test's folder, no git config of the machine's) is the call's.
   */
  private CliJvm.Started client(List<String> args) throws IOException {
    return start(clientCommand(socket, args));
  }

  /** The client's command line for {@code trainyard ARGS --gitops URL} on {@code at}. */
  private List<String> clientCommand(Path at, List<String> args) {
    List<String> command =
        new ArrayList<>(
            List.of(
                // A suite started in the background inherits SIGINT ignored (see CliJvm).
                "env",
                "--default-signal=INT,HUP,TERM",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                "dev.trainyard.cli.ServerClient",
                at.toString()));
    command.addAll(args);
    command.addAll(List.of("--gitops", url));
    return command;
  }

  private CliJvm.Started start(List<String> command) throws IOException {
    return CliJvm.launch(project.root(), temp, Map.of(), command);
  }
}
