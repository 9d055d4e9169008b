package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.gitops.PublishProgress;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The resident server and its client over a real Unix domain socket, running the real CLI: what a
 * served call prints, writes and exits with is what the same call run in-process does; what is not
 * served is declined before anything runs; and the server stops when told by its socket, its idle
 * time or a changed jar.
 */
class ResidentServerTest {
  private static final long WAIT_SECONDS = 30;

  @TempDir Path temp;

  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final StringWriter log = new StringWriter();
  private final List<Path> sockets = new ArrayList<>();

  @AfterEach
  void stopServers() throws Exception {
    for (Path socket : sockets) {
      Files.deleteIfExists(socket); // a server stops within a tick once its socket file goes
    }
    threads.shutdown();
    assertTrue(threads.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS), "servers stopped");
  }

  /** A call's outcome through the client: exit code, stdout and stderr. */
  record Call(int exit, String out, String err) {}

  private Call call(Path socket, Path cwd, Map<String, String> env, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        ServerClient.call(
            socket, new ServerProtocol.Request(cwd.toString(), env, List.of(args)), out, err);
    return new Call(
        exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private static Call inProcess(Path cwd, Map<String, String> env, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = Main.run(new Invocation(cwd, env), new PrintWriter(out), new PrintWriter(err), args);
    return new Call(exit, out.toString(), err.toString());
  }

  /** Starts a server on {@code socket} and waits until it accepts calls. */
  private Future<ResidentServer.Ended> start(Path socket, ResidentServer server) throws Exception {
    sockets.add(socket);
    Future<ResidentServer.Ended> ended = threads.submit(() -> server.serve());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (!Files.exists(socket) && !ended.isDone() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertTrue(Files.exists(socket), "the server bound " + socket + "; log: " + log);
    return ended;
  }

  /** A server on {@code socket} that runs calls with {@code runner}, stops after 5 idle minutes. */
  private ResidentServer serving(Path socket, ResidentServer.Runner runner) {
    return new ResidentServer(
        socket, Duration.ofMinutes(5), runner, new PrintWriter(log, true), System::nanoTime);
  }

  private ResidentServer cli(Path socket) {
    return serving(socket, Main::run);
  }

  @Test
  @DisplayName(
      "a served compile prints, writes and exits as in-process, with relative paths read in the caller's folder, not the server's")
  void compileAsInProcess() throws Exception {
    Path socket = temp.resolve("s/one.sock");
    start(socket, cli(socket));
    TrainProject p = TrainProject.create(temp.resolve("p"), "run: torchrun train.py\nnodes: 2\n");
    Path cwd = p.root();
    String[] args = {"compile", "jobs/demo/train.yaml", "--out", "gitops"};
    Call served = call(socket, cwd, Map.of(), args);
    assertEquals(0, served.exit(), served.err());
    Path servedTree = temp.resolve("served");
    Files.move(cwd.resolve("gitops"), servedTree);
    Call local = inProcess(cwd, Map.of(), args);
    assertEquals(local, served);
    assertTrue(served.out().contains("wrote "), served.out());
    assertEquals(tree(cwd.resolve("gitops")), tree(servedTree));
    assertTrue(log.toString().contains("trainyard server: compile (exit 0) in "), log.toString());
  }

  private static Map<String, String> tree(Path root) throws IOException {
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path f : walk.filter(Files::isRegularFile).toList()) {
        files.put(root.relativize(f).toString(), Files.readString(f));
      }
    }
    assertFalse(files.isEmpty(), "files under " + root);
    return files;
  }

  @Test
  @DisplayName(
      "a train.yaml with errors gets the same diagnostics and exit code 1 served; -o json too")
  void diagnosticsAsInProcess() throws Exception {
    Path socket = temp.resolve("s/two.sock");
    start(socket, cli(socket));
    Path cwd = Files.createDirectories(temp.resolve("bad"));
    Files.writeString(cwd.resolve("train.yaml"), "run: torchrun t.py\nnodes: \"010\"\n");
    for (String[] args :
        List.of(
            new String[] {"validate", "train.yaml"},
            new String[] {"validate", "train.yaml", "-o", "json"},
            new String[] {"compile", "--nope"})) {
      Call served = call(socket, cwd, Map.of(), args);
      assertEquals(inProcess(cwd, Map.of(), args), served, String.join(" ", args));
      assertTrue(served.exit() == 1 || served.exit() == 2, served.toString());
    }
  }

  @Test
  @DisplayName(
      "the caller's environment and folder reach the command (PWD set to the folder, for git's child processes); each call runs on its own thread, so two run at once")
  void environmentAndConcurrency() throws Exception {
    Path socket = temp.resolve("s/three.sock");
    CountDownLatch both = new CountDownLatch(2);
    List<String> seen = Collections.synchronizedList(new ArrayList<>());
    ResidentServer server =
        serving(
            socket,
            (invocation, out, err, args) -> {
              both.countDown();
              try {
                if (!both.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
                  return 9; // the other call never ran beside this one
                }
              } catch (InterruptedException e) {
                return 8;
              }
              seen.add(
                  invocation.workingDirectory()
                      + " "
                      + new TreeMap<>(invocation.environment())
                      + " "
                      + Thread.currentThread().getName());
              out.print(args[1]);
              err.print("é on stderr");
              return 0;
            });
    start(socket, server);
    Future<Call> a = threads.submit(() -> call(socket, temp, Map.of("A", "1"), "compile", "x"));
    Future<Call> b =
        threads.submit(() -> call(socket, Path.of("/"), Map.of("B", "2=3"), "validate", "y"));
    assertEquals(new Call(0, "x", "é on stderr"), a.get(WAIT_SECONDS, TimeUnit.SECONDS));
    assertEquals(new Call(0, "y", "é on stderr"), b.get(WAIT_SECONDS, TimeUnit.SECONDS));
    assertEquals(
        List.of(
            "/ {B=2=3, PWD=/} trainyard-call", temp + " {A=1, PWD=" + temp + "} trainyard-call"),
        seen.stream().sorted().toList(),
        seen.toString());
  }

  @Test
  @DisplayName(
      "commands that are not served (status, run, none) and a relative working folder are declined: exit 75, nothing run or printed")
  void declined() throws Exception {
    Path socket = temp.resolve("s/four.sock");
    AtomicLong runs = new AtomicLong();
    ResidentServer server =
        serving(socket, (invocation, out, err, args) -> (int) runs.incrementAndGet());
    start(socket, server);
    Call none = new Call(ServerClient.NOT_SERVED, "", "");
    assertEquals(none, call(socket, temp, Map.of(), "status"));
    assertEquals(none, call(socket, temp, Map.of(), "run", "train.yaml"));
    assertEquals(none, call(socket, temp, Map.of()));
    assertEquals(none, call(socket, Path.of("relative"), Map.of(), "compile"));
    assertEquals(none, call(socket, temp, Map.of(), "validate", "/dev/stdin"));
    assertEquals(none, call(socket, temp, Map.of(), "validate", "t.yaml", "--cluster"));
    assertEquals(0, runs.get());
    assertEquals(new Call(1, "", ""), call(socket, temp, Map.of(), "check-secrets"));
    assertTrue(log.toString().contains("declined status"), log.toString());
    assertTrue(log.toString().contains("declined (no command)"), log.toString());
    assertTrue(log.toString().contains("declined a relative working folder"), log.toString());
    assertTrue(log.toString().contains("declined validate with /dev/..."), log.toString());
    assertTrue(log.toString().contains("declined validate --cluster"), log.toString());
  }

  @Test
  @DisplayName(
      "no server, a stale socket file or a plain file at the path: exit 75, so the launcher runs the call itself")
  void noServer() throws Exception {
    Path missing = temp.resolve("none.sock");
    assertEquals(ServerClient.NOT_SERVED, call(missing, temp, Map.of(), "compile").exit());
    Path plain = Files.writeString(temp.resolve("plain.sock"), "x");
    assertEquals(ServerClient.NOT_SERVED, call(plain, temp, Map.of(), "compile").exit());
    Path tooLong = temp.resolve("x".repeat(200) + ".sock");
    assertEquals(ServerClient.NOT_SERVED, call(tooLong, temp, Map.of(), "compile").exit());
    assertTrue(Files.exists(plain), "a plain file is not a stale socket");
  }

  @Test
  @DisplayName(
      "a socket file no server listens on (one killed with SIGKILL left it) is deleted by the call it refuses: the launcher counts socket files towards its 3 servers")
  void staleSocketDropped() throws Exception {
    Path stale = temp.resolve("stale.sock");
    try (ServerSocketChannel gone = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      gone.bind(UnixDomainSocketAddress.of(stale));
    }
    assertTrue(Files.exists(stale, LinkOption.NOFOLLOW_LINKS), "closing leaves the file");
    assertEquals(ServerClient.NOT_SERVED, call(stale, temp, Map.of(), "compile").exit());
    assertFalse(Files.exists(stale, LinkOption.NOFOLLOW_LINKS), "the stale socket stayed");
  }

  @Test
  @DisplayName(
      "a server stopped by SIGTERM or SIGINT removes its socket in its exit hook, not a newer server's socket at the path; a server that stops by itself leaves no hook behind")
  void exitHookRemovesSocket() throws Exception {
    Path socket = temp.resolve("s/hook.sock");
    ResidentServer server = cli(socket);
    Future<ResidentServer.Ended> ended = start(socket, server);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (server.exitHook().isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    Thread hook = server.exitHook().orElseThrow();
    hook.run();
    assertFalse(Files.exists(socket, LinkOption.NOFOLLOW_LINKS), "the exit hook left the socket");
    assertEquals(ResidentServer.Ended.SOCKET_GONE, ended.get(WAIT_SECONDS, TimeUnit.SECONDS));
    assertFalse(Runtime.getRuntime().removeShutdownHook(hook), "the stopped server's hook stayed");
    Thread.sleep(50); // a newer server binds seconds later: a new file time, even on the same inode
    Files.writeString(socket, "a newer server's socket");
    hook.run();
    assertTrue(Files.exists(socket), "the exit hook removed a socket that was not its own");
  }

  @Test
  @DisplayName(
      "a server that ends a call before printing lets the launcher run it (75); after printing, exit 4 with a line saying so")
  void serverEndsMidCall() throws Exception {
    Path socket = temp.resolve("s/five.sock");
    ResidentServer server =
        serving(
            socket,
            (invocation, out, err, args) -> {
              if (args[0].equals("validate")) {
                out.println("half of it");
                out.flush();
              }
              throw new IllegalStateException("boom");
            });
    start(socket, server);
    assertEquals(new Call(75, "", ""), call(socket, temp, Map.of(), "compile"));
    Call half = call(socket, temp, Map.of(), "validate");
    assertEquals(Main.EXIT_INTERNAL, half.exit());
    assertEquals("half of it\n", half.out());
    assertEquals(
        "trainyard: error: the resident server ended before the command finished; run the command"
            + " again (TRAINYARD_SERVER=off runs it without the server)\n",
        half.err());
    assertTrue(log.toString().contains("validate failed: java.lang.IllegalStateException: boom"));
  }

  @Test
  @DisplayName("output over one 64 KiB frame arrives whole and in order")
  void largeOutput() throws Exception {
    Path socket = temp.resolve("s/six.sock");
    String big = "0123456789abcdef".repeat(20_000); // 320,000 characters: five frames
    ResidentServer server =
        serving(
            socket,
            (invocation, out, err, args) -> {
              out.print(big);
              err.print("done");
              out.print("!");
              return 3;
            });
    start(socket, server);
    assertEquals(new Call(3, big + "!", "done"), call(socket, temp, Map.of(), "preview"));
  }

  @Test
  @DisplayName(
      "the server stops when its socket file is removed, and a second server for one socket returns at once")
  void socketGoneAndSecondServer() throws Exception {
    Path socket = temp.resolve("s/seven.sock");
    Future<ResidentServer.Ended> first = start(socket, cli(socket));
    assertEquals(ResidentServer.Ended.ALREADY_SERVING, cli(socket).serve());
    assertTrue(Files.exists(socket), "the second server left the first one's socket");
    Files.delete(socket);
    assertEquals(ResidentServer.Ended.SOCKET_GONE, first.get(WAIT_SECONDS, TimeUnit.SECONDS));
  }

  @Test
  @DisplayName(
      "the server stops after its idle time without a call (its clock), removing its socket, and not while a call runs")
  void idle() throws Exception {
    Path socket = temp.resolve("s/eight.sock");
    AtomicLong now = new AtomicLong();
    CountDownLatch inCall = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ResidentServer server =
        new ResidentServer(
            socket,
            Duration.ofMinutes(30),
            (invocation, out, err, args) -> {
              inCall.countDown();
              try {
                release.await(WAIT_SECONDS, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return 0;
            },
            new PrintWriter(log, true),
            now::get);
    Future<ResidentServer.Ended> ended = start(socket, server);
    now.set(Duration.ofMinutes(29).toNanos());
    Future<Call> running = threads.submit(() -> call(socket, temp, Map.of(), "compile"));
    assertTrue(inCall.await(WAIT_SECONDS, TimeUnit.SECONDS));
    now.set(Duration.ofMinutes(90).toNanos());
    Thread.sleep(1_200); // two ticks: a running call keeps the server up
    assertFalse(ended.isDone(), "stopped during a call");
    release.countDown();
    assertEquals(0, running.get(WAIT_SECONDS, TimeUnit.SECONDS).exit());
    Thread.sleep(1_200);
    assertFalse(ended.isDone(), "the call just ended: idle counts from then");
    now.set(Duration.ofMinutes(90 + 30).toNanos());
    assertEquals(ResidentServer.Ended.IDLE, ended.get(WAIT_SECONDS, TimeUnit.SECONDS));
    assertFalse(Files.exists(socket), "an idle server removes its socket");
    assertEquals(
        List.of(
            "trainyard server: listening on " + socket + " (stops after PT30M idle)",
            "trainyard server: compile (exit 0) in 3660000 ms", // 29 → 90 minutes on its clock
            "trainyard server: stopping (IDLE)"),
        log.toString().lines().toList());
  }

  @Test
  @DisplayName("the server stops when a jar on its class path changes, removing its socket")
  void jarChanged() throws Exception {
    Path socket = temp.resolve("s/nine.sock");
    Path jar = Files.writeString(temp.resolve("lib.jar"), "v1");
    ResidentServer server =
        new ResidentServer(
            socket,
            Duration.ofMinutes(5),
            Main::run,
            new PrintWriter(log, true),
            System::nanoTime,
            List.of(jar));
    Future<ResidentServer.Ended> ended = start(socket, server);
    Thread.sleep(600);
    assertFalse(ended.isDone());
    Files.writeString(jar, "v2 is longer");
    assertEquals(ResidentServer.Ended.JARS_CHANGED, ended.get(WAIT_SECONDS, TimeUnit.SECONDS));
    assertFalse(Files.exists(socket));
    assertTrue(
        log.toString().endsWith("trainyard server: stopping (JARS_CHANGED)\n"), log.toString());

    Path gone = Files.writeString(temp.resolve("gone.jar"), "v1");
    Path other = temp.resolve("s/nine-b.sock");
    Future<ResidentServer.Ended> second =
        start(
            other,
            new ResidentServer(
                other,
                Duration.ofMinutes(5),
                Main::run,
                new PrintWriter(log, true),
                System::nanoTime,
                List.of(gone)));
    Files.delete(gone);
    assertEquals(ResidentServer.Ended.JARS_CHANGED, second.get(WAIT_SECONDS, TimeUnit.SECONDS));
  }

  @Test
  @DisplayName("the class path's jars are watched: every .jar entry, absolute, nothing else")
  void classPathJars() {
    List<Path> jars = ResidentServer.classPathJars();
    List<String> expected =
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(e -> e.endsWith(".jar"))
            .map(e -> Path.of(e).toAbsolutePath().toString())
            .toList();
    assertFalse(expected.isEmpty(), "surefire runs the tests with a jar on the class path");
    assertEquals(expected, jars.stream().map(Path::toString).toList());
  }

  @Test
  @DisplayName(
      "the warm-up runs once the lock is held and before the socket is bound; a socket file a killed server left is replaced")
  void warmupFirst() throws Exception {
    Path socket = temp.resolve("s/eleven.sock");
    Files.createDirectories(
        socket.getParent(),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    Files.writeString(socket, "left by a killed server");
    List<String> warm = Collections.synchronizedList(new ArrayList<>());
    sockets.add(socket);
    Future<ResidentServer.Ended> ended =
        threads.submit(
            () ->
                cli(socket)
                    .serve(
                        () ->
                            warm.add(
                                Files.isRegularFile(socket)
                                    ? "before binding"
                                    : "socket already bound")));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (Files.isRegularFile(socket) && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertEquals(List.of("before binding"), warm);
    assertEquals(ServerClient.NOT_SERVED, call(socket, temp, Map.of(), "status").exit());
    Files.delete(socket);
    assertEquals(ResidentServer.Ended.SOCKET_GONE, ended.get(WAIT_SECONDS, TimeUnit.SECONDS));
    assertTrue(
        log.toString().startsWith("trainyard server: listening on " + socket), log.toString());
    assertTrue(
        log.toString().endsWith("trainyard server: stopping (SOCKET_GONE)\n"), log.toString());
  }

  @Test
  @DisplayName("a declined call gets the 'd' frame and then the end of the stream")
  void declinedFrame() throws Exception {
    Path socket = temp.resolve("s/twelve.sock");
    start(socket, cli(socket));
    try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      channel.connect(UnixDomainSocketAddress.of(socket));
      DataOutputStream out = new DataOutputStream(Channels.newOutputStream(channel));
      ServerProtocol.writeRequest(
          out, new ServerProtocol.Request(temp.toString(), Map.of(), List.of("logs", "x")));
      InputStream in = Channels.newInputStream(channel);
      assertEquals(ServerProtocol.DECLINED, in.read());
      assertEquals(-1, in.read());
    }
  }

  @Test
  @DisplayName(
      "a client that gets 'a' and goes away without 'g' (it gave up waiting and runs the call itself): the server runs nothing")
  void noGoNothingRun() throws Exception {
    Path socket = temp.resolve("s/go.sock");
    AtomicLong runs = new AtomicLong();
    start(socket, serving(socket, (invocation, out, err, args) -> (int) runs.incrementAndGet()));
    try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      channel.connect(UnixDomainSocketAddress.of(socket));
      ServerProtocol.writeRequest(
          new DataOutputStream(Channels.newOutputStream(channel)),
          new ServerProtocol.Request(temp.toString(), Map.of(), List.of("submit")));
      assertEquals(ServerProtocol.ACCEPTED, Channels.newInputStream(channel).read());
    }
    awaitLog("submit not run: the client gave up before it went");
    assertEquals(0, runs.get());
    // A client that goes on is served as before.
    assertEquals(new Call(1, "", ""), call(socket, temp, Map.of(), "submit"));
    assertEquals(1, runs.get());
  }

  @Test
  @DisplayName(
      "a request whose working folder the server sees as another (another mount namespace) is declined: nothing run, the launcher runs it")
  void otherFolderDeclined() throws Exception {
    Path socket = temp.resolve("s/ns.sock");
    AtomicLong runs = new AtomicLong();
    start(socket, serving(socket, (invocation, out, err, args) -> (int) runs.incrementAndGet()));
    String where = ServerProtocol.folderKey(temp.resolve("none").toString());
    assertTrue(where.matches("mnt:\\[[0-9]+\\] / "), where); // namespace, root, no folder
    assertTrue(
        ServerProtocol.folderKey(temp.toString()).matches("mnt:\\[[0-9]+\\] / \\(dev=.*"),
        ServerProtocol.folderKey(temp.toString()));
    try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      channel.connect(UnixDomainSocketAddress.of(socket));
      ServerProtocol.writeRequest(
          new DataOutputStream(Channels.newOutputStream(channel)),
          new ServerProtocol.Request(
              temp.toString(), "(dev=1,ino=2)", Map.of(), List.of("submit", "train.yaml")));
      InputStream in = Channels.newInputStream(channel);
      assertEquals(ServerProtocol.DECLINED, in.read());
      assertEquals(-1, in.read());
    }
    assertEquals(0, runs.get());
    assertTrue(
        log.toString().contains("declined a working folder this server sees as another folder"),
        log.toString());
  }

  @Test
  @DisplayName(
      "a served submit whose server ends before printing: exit 4 and a line that its push may have landed, never run again by the launcher (75)")
  void submitServerDied() throws Exception {
    Path socket = temp.resolve("s/died.sock");
    start(
        socket,
        serving(
            socket,
            (invocation, out, err, args) -> {
              throw new IllegalStateException("boom");
            }));
    Call died = call(socket, temp, Map.of(), "submit", "train.yaml");
    assertEquals(
        new Call(
            Main.EXIT_INTERNAL,
            "",
            "trainyard: error: the resident server ended before the command finished; whether it"
                + " pushed is unknown: git ls-remote on the GitOps repository shows its branch's"
                + " tip, and the same submit again without --rerun adds only the runs that are"
                + " missing (TRAINYARD_SERVER=off runs it without the server)\n"),
        died);
    assertEquals(new Call(75, "", ""), call(socket, temp, Map.of(), "preview"));
  }

  @Test
  @DisplayName(
      "a served call's stop: with no publish registered the client is let go at once; with one, it is stopped, its line printed, then the client let go; once only; a publish registered later is stopped at once")
  void servedStop() {
    List<String> events = new ArrayList<>();
    ResidentServer.ServedStop idle = new ResidentServer.ServedStop(() -> events.add("let go"));
    assertFalse(idle.requested());
    idle.request();
    assertTrue(idle.requested());
    assertEquals(List.of("let go"), events);
    PublishProgress late = new PublishProgress();
    StringWriter lateErr = new StringWriter();
    idle.watch(late, new PrintWriter(lateErr, true)).close();
    assertTrue(late.isStopped(), "a publish registered after the stop is stopped");
    assertEquals("", lateErr.toString());

    events.clear();
    StringWriter err = new StringWriter();
    PublishProgress progress = new PublishProgress();
    progress.publishing("https://git.example.com/g.git", "main");
    ResidentServer.ServedStop stop =
        new ResidentServer.ServedStop(() -> events.add("let go after: " + err));
    CallStop.Watch watch = stop.watch(progress, new PrintWriter(err, true));
    stop.request();
    stop.request();
    watch.close();
    assertTrue(progress.isStopped());
    assertEquals(
        List.of(
            "let go after: trainyard: interrupted; nothing was pushed to"
                + " https://git.example.com/g.git (main)\n"),
        events);

    ResidentServer.ServedStop closed = new ResidentServer.ServedStop(() -> events.add("closed"));
    PublishProgress done = new PublishProgress();
    closed.watch(done, new PrintWriter(new StringWriter(), true)).close();
    closed.request();
    assertFalse(done.isStopped(), "a publish that returned is not stopped afterwards");
  }

  @Test
  @DisplayName(
      "the client's go and its stop hook in one order: go sent before the JVM stops means the hook stops the call; a JVM stopping first never sends go")
  void goGate() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ServerClient.GoGate sent = new ServerClient.GoGate();
    assertTrue(sent.send(new DataOutputStream(bytes)));
    assertEquals(List.of(ServerProtocol.GO), List.of(bytes.toByteArray()[0]));
    assertTrue(sent.stopping(), "go was sent: the hook stops the call");

    ByteArrayOutputStream none = new ByteArrayOutputStream();
    ServerClient.GoGate early = new ServerClient.GoGate();
    assertFalse(early.stopping(), "no go yet: nothing to stop");
    assertFalse(early.send(new DataOutputStream(none)));
    assertEquals(0, none.size(), "no go once the JVM stops");
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  @DisplayName(
      "a call that returned waits, before its exit, for a stop being handled to have printed its line and let the client go; without a stop it does not wait")
  void exitAfterTheStopsLine() throws Exception {
    ResidentServer.ServedStop none = new ResidentServer.ServedStop(() -> {});
    long t0 = System.nanoTime();
    none.awaitHandled();
    assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(1), "no stop: no wait");

    CountDownLatch letGo = new CountDownLatch(1);
    ResidentServer.ServedStop slow =
        new ResidentServer.ServedStop(
            () -> {
              try {
                letGo.await(WAIT_SECONDS, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    Thread stopper = new Thread(slow::request);
    stopper.start();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (!slow.requested() && System.nanoTime() < until) {
      Thread.sleep(10);
    }
    CountDownLatch exited = new CountDownLatch(1);
    Thread call =
        new Thread(
            () -> {
              try {
                slow.awaitHandled();
                exited.countDown();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    call.start();
    assertFalse(exited.await(300, TimeUnit.MILLISECONDS), "the exit waits for the stop's handling");
    letGo.countDown();
    assertTrue(exited.await(WAIT_SECONDS, TimeUnit.SECONDS), "and goes on once it is done");
    stopper.join();
  }

  /**
   * A runner whose call registers a publish and reports, by its exit code, whether it was stopped
   * (5) or not (6) within the wait; it prints nothing itself.
   */
  private static ResidentServer.Runner publishing(CountDownLatch registered) {
    return (invocation, out, err, args) -> {
      PublishProgress progress = new PublishProgress();
      progress.publishing("https://git.example.com/g.git", "main");
      try (CallStop.Watch watch = invocation.stop().watch(progress, err)) {
        registered.countDown();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!progress.isStopped() && System.nanoTime() < until) {
          Thread.sleep(10);
        }
      } catch (InterruptedException e) {
        return 8;
      }
      return progress.isStopped() ? 5 : 6;
    };
  }

  /** Connects, sends a request for {@code args}, reads 'a'; the caller goes on. */
  private static SocketChannel accepted(Path socket, Path cwd, String... args) throws IOException {
    SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
    channel.connect(UnixDomainSocketAddress.of(socket));
    ServerProtocol.writeRequest(
        new DataOutputStream(Channels.newOutputStream(channel)),
        new ServerProtocol.Request(cwd.toString(), Map.of(), List.of(args)));
    ByteBuffer a = ByteBuffer.allocate(1);
    assertEquals(1, channel.read(a));
    assertEquals(ServerProtocol.ACCEPTED, a.get(0));
    return channel;
  }

  /** What the server sends after 'a' until it closes: frame kinds and texts, the exit code. */
  private static String frames(SocketChannel channel) throws IOException {
    DataInputStream in = new DataInputStream(Channels.newInputStream(channel));
    StringBuilder seen = new StringBuilder();
    while (true) {
      int kind = in.read();
      if (kind < 0) {
        return seen.toString();
      }
      seen.append((char) kind);
      if (kind == ServerProtocol.OUT || kind == ServerProtocol.ERR) {
        seen.append('[')
            .append(new String(ServerProtocol.readBytes(in), StandardCharsets.UTF_8))
            .append(']');
      } else if (kind == ServerProtocol.EXIT) {
        seen.append(in.readInt());
      }
    }
  }

  @Test
  @DisplayName(
      "go and stop in one write (Ctrl-C right after go): the server reads the buffered stop, stops the publish, prints the line, answers 'k', then the exit")
  void goAndStopTogether() throws Exception {
    Path socket = temp.resolve("s/gs.sock");
    CountDownLatch registered = new CountDownLatch(1);
    start(socket, serving(socket, publishing(registered)));
    try (SocketChannel channel = accepted(socket, temp, "submit")) {
      channel.write(ByteBuffer.wrap(new byte[] {ServerProtocol.GO, ServerProtocol.STOP}));
      // The stop comes before the publish is registered (nothing to say) or after (its line).
      String frames = frames(channel);
      assertTrue(
          frames.equals("kx5")
              || frames.equals(
                  "e[trainyard: interrupted; nothing was pushed to https://git.example.com/g.git"
                      + " (main)\n]kx5"),
          frames);
    }
    awaitLog("submit (exit 5; its client asked to stop or went away)");
  }

  @Test
  @DisplayName(
      "stop while the publish is registered: the line 'interrupted; nothing was pushed to …' comes before 'k'; a client gone without a word (EOF) stops it too")
  void stopAfterRegistered() throws Exception {
    Path socket = temp.resolve("s/sr.sock");
    CountDownLatch registered = new CountDownLatch(2);
    start(socket, serving(socket, publishing(registered)));
    try (SocketChannel channel = accepted(socket, temp, "submit")) {
      channel.write(ByteBuffer.wrap(new byte[] {ServerProtocol.GO}));
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
      while (registered.getCount() == 2 && System.nanoTime() < until) {
        Thread.sleep(10);
      }
      channel.write(ByteBuffer.wrap(new byte[] {ServerProtocol.STOP}));
      assertEquals(
          "e[trainyard: interrupted; nothing was pushed to https://git.example.com/g.git (main)\n]"
              + "kx5",
          frames(channel));
    }
    try (SocketChannel channel = accepted(socket, temp, "submit")) {
      channel.write(ByteBuffer.wrap(new byte[] {ServerProtocol.GO}));
      assertTrue(registered.await(WAIT_SECONDS, TimeUnit.SECONDS));
    } // closed: the client is gone
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (CliJvm.count(log.toString(), "(exit 5; its client asked to stop") < 2
        && System.nanoTime() < until) {
      Thread.sleep(20);
    }
    assertEquals(
        2, CliJvm.count(log.toString(), "(exit 5; its client asked to stop"), log.toString());
  }

  @Test
  @DisplayName("a byte other than go after 'a' runs nothing")
  void notGo() throws Exception {
    Path socket = temp.resolve("s/ng.sock");
    AtomicLong runs = new AtomicLong();
    start(socket, serving(socket, (invocation, out, err, args) -> (int) runs.incrementAndGet()));
    try (SocketChannel channel = accepted(socket, temp, "submit")) {
      channel.write(ByteBuffer.wrap(new byte[] {ServerProtocol.STOP}));
      assertEquals("", frames(channel));
    }
    awaitLog("submit not run: the client gave up before it went");
    assertEquals(0, runs.get());
  }

  @Test
  @DisplayName(
      "the client's stop: sends 's'; a submit whose stop is not confirmed within the grace gets the 'unknown' line, a rerunnable call none, a confirmed one none; a gone server nothing")
  void clientStop() throws Exception {
    Path socket = temp.resolve("s/cs.sock");
    ResidentServer.privateFolder(socket.getParent());
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      server.bind(UnixDomainSocketAddress.of(socket));
      for (int round = 0; round < 3; round++) {
        try (SocketChannel client = SocketChannel.open(StandardProtocolFamily.UNIX)) {
          client.connect(UnixDomainSocketAddress.of(socket));
          try (SocketChannel end = server.accept()) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            CountDownLatch settled = new CountDownLatch(round == 2 ? 0 : 1);
            long started = System.nanoTime();
            ServerClient.stop(
                client, settled, round == 1, new ServerClient.Sink(err), Duration.ofMillis(300));
            ByteBuffer got = ByteBuffer.allocate(1);
            assertEquals(1, end.read(got));
            assertEquals(ServerProtocol.STOP, got.get(0));
            String line = err.toString(StandardCharsets.UTF_8);
            if (round == 0) {
              assertTrue(System.nanoTime() - started >= TimeUnit.MILLISECONDS.toNanos(300));
              assertEquals(
                  "trainyard: interrupted; the resident server did not confirm the stop within 0 s,"
                      + " so whether the submit pushed is unknown: git ls-remote on the GitOps"
                      + " repository shows its branch's tip, and the same submit again without"
                      + " --rerun adds only the runs that are missing\n",
                  line);
            } else {
              assertEquals("", line, "round " + round);
            }
          }
        }
      }
      SocketChannel closed = SocketChannel.open(StandardProtocolFamily.UNIX);
      closed.close();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      ServerClient.stop(
          closed, new CountDownLatch(1), false, new ServerClient.Sink(err), Duration.ofSeconds(30));
      assertEquals(0, err.size(), "a server gone: nothing to say, no wait");
    }
  }

  /** Waits at most {@link #WAIT_SECONDS} for the server's log to say {@code what}. */
  private void awaitLog(String what) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (!log.toString().contains(what) && System.nanoTime() < until) {
      TimeUnit.MILLISECONDS.sleep(20);
    }
    assertTrue(log.toString().contains(what), log.toString());
  }

  @Test
  @DisplayName(
      "an unknown frame: before any output the launcher runs the call (75); after output, exit 4 naming it; output is flushed as it comes")
  void unknownFrame() throws Exception {
    Path socket = temp.resolve("s/thirteen.sock");
    ResidentServer.privateFolder(socket.getParent());
    try (ServerSocketChannel fake = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      fake.bind(UnixDomainSocketAddress.of(socket));
      for (boolean printFirst : new boolean[] {false, true}) {
        Future<?> answer =
            threads.submit(
                () -> {
                  try (SocketChannel c = fake.accept()) {
                    ServerProtocol.readRequest(new DataInputStream(Channels.newInputStream(c)));
                    DataOutputStream out = new DataOutputStream(Channels.newOutputStream(c));
                    if (printFirst) {
                      out.writeByte(ServerProtocol.OUT);
                      ServerProtocol.writeText(out, "some");
                    }
                    out.writeByte('z');
                    out.flush();
                  }
                  return null;
                });
        ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        BufferedOutputStream out = new BufferedOutputStream(outBytes);
        BufferedOutputStream err = new BufferedOutputStream(errBytes);
        int exit =
            ServerClient.call(
                socket,
                new ServerProtocol.Request(temp.toString(), Map.of(), List.of("compile")),
                out,
                err);
        answer.get(WAIT_SECONDS, TimeUnit.SECONDS);
        if (printFirst) {
          assertEquals(Main.EXIT_INTERNAL, exit);
          assertEquals("some", outBytes.toString(StandardCharsets.UTF_8));
          assertEquals(
              "trainyard: error: the resident server failed: unknown frame 122; run the command"
                  + " again (TRAINYARD_SERVER=off runs it without the server)\n",
              errBytes.toString(StandardCharsets.UTF_8));
        } else {
          assertEquals(ServerClient.NOT_SERVED, exit);
          assertEquals(0, outBytes.size() + errBytes.size());
        }
      }
    }
  }

  @Test
  @DisplayName(
      "ServerClient without SOCKET: exit 75 and a usage line; with one, the process's folder and environment are sent")
  void clientUsage() throws Exception {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    assertEquals(
        ServerClient.NOT_SERVED,
        ServerClient.run(new String[0], temp, Map.of(), new ByteArrayOutputStream(), err));
    assertEquals("usage: ServerClient SOCKET ARGS...\n", err.toString(StandardCharsets.UTF_8));
    Path socket = temp.resolve("s/fourteen.sock");
    List<String> seen = Collections.synchronizedList(new ArrayList<>());
    start(
        socket,
        new ResidentServer(
            socket,
            Duration.ofMinutes(5),
            (invocation, out, e, args) -> {
              seen.add(
                  invocation.workingDirectory()
                      + " "
                      + new TreeMap<>(invocation.environment())
                      + " "
                      + List.of(args));
              return 7;
            },
            new PrintWriter(log, true),
            System::nanoTime));
    assertEquals(
        7,
        ServerClient.run(
            new String[] {socket.toString(), "compile", "a b"},
            temp,
            Map.of("K", "v"),
            new ByteArrayOutputStream(),
            new ByteArrayOutputStream()));
    ByteArrayOutputStream noCommandErr = new ByteArrayOutputStream();
    assertEquals(
        ServerClient.NOT_SERVED,
        ServerClient.run(
            new String[] {socket.toString()},
            temp,
            Map.of(),
            new ByteArrayOutputStream(),
            noCommandErr));
    assertEquals(0, noCommandErr.size(), "SOCKET alone is a call without a command: declined");
    assertEquals(List.of(temp + " {K=v, PWD=" + temp + "} [compile, a b]"), seen);
  }

  @Test
  @DisplayName(
      "the socket's folder is made rwx------; one open to others, not a folder, or a symlink is refused with a reason")
  void privateFolder() throws Exception {
    Path made = temp.resolve("a/b/server");
    ResidentServer.privateFolder(made);
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(made)));
    Path open = Files.createDirectories(temp.resolve("open"));
    Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-x---"));
    IOException e = assertThrows(IOException.class, () -> ResidentServer.privateFolder(open));
    assertEquals(
        open
            + " is open to others (rwxr-x---): chmod 700 it, or remove it and let Trainyard make it",
        e.getMessage());
    Path file = Files.writeString(temp.resolve("file"), "x");
    assertEquals(
        file + " is not a folder",
        assertThrows(IOException.class, () -> ResidentServer.privateFolder(file)).getMessage());
    Path foreign = Files.createDirectories(temp.resolve("foreign"));
    Files.setPosixFilePermissions(foreign, PosixFilePermissions.fromString("rwx------"));
    var nobody =
        foreign.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
    Files.setOwner(foreign, nobody);
    assertEquals(
        foreign + " belongs to nobody, not to " + System.getProperty("user.name"),
        assertThrows(IOException.class, () -> ResidentServer.privateFolder(foreign)).getMessage());
    Path link = Files.createSymbolicLink(temp.resolve("link"), made);
    assertEquals(
        link + " is not a folder",
        assertThrows(IOException.class, () -> ResidentServer.privateFolder(link)).getMessage());
  }

  @Test
  @DisplayName(
      "trainyard server in a folder open to others: exit 3, the reason on stderr and in SOCKET.failed; --idle 0s is a usage error")
  void serverCommandRefuses() throws Exception {
    Path open = Files.createDirectories(temp.resolve("open"));
    Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
    Path socket = open.resolve("x.sock");
    MainTest.Run r = MainTest.run("server", "--socket", socket.toString());
    assertEquals(3, r.exit(), r.err());
    String reason =
        "the resident server cannot serve "
            + socket
            + ": "
            + open
            + " is open to others (rwxrwxrwx): chmod 700 it, or remove it and let Trainyard make it";
    assertEquals("trainyard: error: " + reason + "\n", r.err());
    assertEquals(reason + "\n", Files.readString(open.resolve("x.sock.failed")));
    MainTest.Run zero = MainTest.run("server", "--socket", socket.toString(), "--idle", "0s");
    assertEquals(2, zero.exit(), zero.err());
    assertTrue(zero.err().startsWith("trainyard: --idle '0s' must be more than 0"), zero.err());
  }

  @Test
  @DisplayName("a request that is not Trainyard's is dropped without running anything")
  void foreignRequest() throws Exception {
    Path socket = temp.resolve("s/ten.sock");
    AtomicReference<String> ran = new AtomicReference<>();
    ResidentServer server =
        serving(
            socket,
            (invocation, out, err, args) -> {
              ran.set(args[0]);
              return 0;
            });
    start(socket, server);
    try (var channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      channel.connect(UnixDomainSocketAddress.of(socket));
      channel.write(ByteBuffer.wrap("GET / HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
      assertEquals(-1, channel.read(ByteBuffer.allocate(16)), "closed, nothing sent");
    }
    assertEquals(null, ran.get());
    assertTrue(
        log.toString().contains("? failed: java.io.IOException: not a Trainyard client request"));
  }

  @Test
  @DisplayName(
      "a closed stdout of ours (| head -1) drops the rest of stdout, keeps stderr and returns the command's own exit code")
  void closedPipe() throws Exception {
    Path socket = temp.resolve("s/fifteen.sock");
    start(
        socket,
        serving(
            socket,
            (invocation, out, err, args) -> {
              for (int i = 0; i < 100; i++) {
                out.println("line " + i);
              }
              err.println("problems");
              return 1;
            }));
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    OutputStream closed =
        new OutputStream() {
          @Override
          public void write(int b) throws IOException {
            throw new IOException("Broken pipe");
          }
        };
    int exit =
        ServerClient.call(
            socket,
            new ServerProtocol.Request(temp.toString(), Map.of(), List.of("validate")),
            closed,
            err);
    assertEquals(1, exit);
    assertEquals("problems\n", err.toString(StandardCharsets.UTF_8));
  }

  @Test
  @DisplayName(
      "a server that accepts the connection but never answers: after the answer timeout, 75, a warning, and its socket removed")
  void stuckServer() throws Exception {
    Path socket = temp.resolve("s/sixteen.sock");
    ResidentServer.privateFolder(socket.getParent());
    try (ServerSocketChannel stuck = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      stuck.bind(UnixDomainSocketAddress.of(socket)); // the kernel queues the connection
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      long started = System.nanoTime();
      int exit =
          ServerClient.call(
              socket,
              new ServerProtocol.Request(temp.toString(), Map.of(), List.of("compile")),
              new ByteArrayOutputStream(),
              err,
              Duration.ofMillis(300));
      assertEquals(ServerClient.NOT_SERVED, exit);
      assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(WAIT_SECONDS));
      assertEquals(
          "trainyard: warning: the resident server at "
              + socket
              + " did not answer in 0 s; running without it (it stops when it runs again)\n",
          err.toString(StandardCharsets.UTF_8));
      assertFalse(Files.exists(socket), "the stuck server's socket is removed");
    }
  }

  @Test
  @DisplayName(
      "another user behind the socket (its folder opened after the server started): the client sends nothing and runs the call itself; the server answers another user's call with nothing")
  void otherUser() throws Exception {
    Path setpriv = Path.of("/usr/bin/setpriv");
    assumeTrue(
        Files.isExecutable(setpriv)
            && Files.isExecutable(Path.of("/usr/bin/python3"))
            && "root".equals(System.getProperty("user.name")),
        "NOT RUN: needs root, util-linux's setpriv and /usr/bin/python3 to run a process as user"
            + " nobody");
    Path open = Files.createDirectories(temp.resolve("open"));
    Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
    // A process of user nobody listens where a server of ours would, and records what it is sent.
    Path socket = open.resolve("evil.sock");
    Path got = open.resolve("got");
    String listen =
        "import socket,sys\n"
            + "s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1)\n"
            + "c,_=s.accept(); c.settimeout(5)\n"
            + "data=b''\n"
            + "try:\n"
            + "  while True:\n"
            + "    b=c.recv(65536)\n"
            + "    if not b: break\n"
            + "    data+=b\n"
            + "except Exception: pass\n"
            + "open(sys.argv[2],'wb').write(data)\n";
    Process evil =
        new ProcessBuilder(
                setpriv.toString(),
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "/usr/bin/python3",
                "-c",
                listen,
                socket.toString(),
                got.toString())
            .redirectErrorStream(true)
            .start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (!Files.exists(socket) && evil.isAlive() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertTrue(
        Files.exists(socket),
        () -> "user nobody's listener: " + new String(readAll(evil), StandardCharsets.UTF_8));
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        ServerClient.call(
            socket,
            new ServerProtocol.Request(
                temp.toString(), Map.of("TOKEN", "s3cret"), List.of("compile")),
            new ByteArrayOutputStream(),
            err);
    assertEquals(ServerClient.NOT_SERVED, exit);
    assertEquals(
        "trainyard: warning: "
            + socket
            + " is answered by user nobody, not by root; running without the resident server\n",
        err.toString(StandardCharsets.UTF_8));
    assertTrue(evil.waitFor(WAIT_SECONDS, TimeUnit.SECONDS), "the listener ended");
    assertEquals(0, Files.size(got), "nothing was sent to the other user's process");

    // The other way: our server, its folder opened later; a call from user nobody gets nothing.
    Path ours = open.resolve("ours/s.sock");
    Files.createDirectories(ours.getParent());
    Files.setPosixFilePermissions(ours.getParent(), PosixFilePermissions.fromString("rwx------"));
    AtomicLong runs = new AtomicLong();
    start(ours, serving(ours, (invocation, out, e, args) -> (int) runs.incrementAndGet()));
    // The server narrows the socket's mode right after binding it (its folder, rwx------, guards
    // it meanwhile): wait for that, at load 12 the test looked first.
    long narrowed = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (!PosixFilePermissions.toString(Files.getPosixFilePermissions(ours)).equals("rw-------")
        && System.nanoTime() < narrowed) {
      Thread.sleep(10);
    }
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(ours)));
    Files.setPosixFilePermissions(ours.getParent(), PosixFilePermissions.fromString("rwxrwxrwx"));
    Files.setPosixFilePermissions(ours, PosixFilePermissions.fromString("rwxrwxrwx"));
    String call =
        "import socket,struct,sys\n"
            + "c=socket.socket(socket.AF_UNIX); c.connect(sys.argv[1])\n"
            + "def t(x): b=x.encode(); return struct.pack('>i',len(b))+b\n"
            + "try:\n"
            + "  c.sendall(struct.pack('>i',0x54595331)+t('/')+struct.pack('>i',0)+struct.pack('>i',1)+t('compile'))\n"
            + "  print(len(c.recv(100)))\n"
            + "except (ConnectionResetError, BrokenPipeError): print(0)\n";
    Process caller =
        new ProcessBuilder(
                setpriv.toString(),
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "/usr/bin/python3",
                "-c",
                call,
                ours.toString())
            .redirectErrorStream(true)
            .start();
    assertTrue(caller.waitFor(WAIT_SECONDS, TimeUnit.SECONDS));
    assertEquals("0\n", new String(caller.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    assertEquals(0, runs.get());
    assertTrue(
        log.toString().contains("trainyard server: refused a call from user nobody"),
        log.toString());
  }

  private static byte[] readAll(Process process) {
    try {
      return process.getInputStream().readAllBytes();
    } catch (IOException e) {
      return e.toString().getBytes(StandardCharsets.UTF_8);
    }
  }
}
