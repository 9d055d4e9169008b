package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedWriter;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The controller's command line: overrides of the file, the Lease timings, and the exit code of a
 * bad config.
 */
class ControllerMainTest {

  @TempDir Path dir;

  ControllerConfig config() throws Exception {
    Files.writeString(dir.resolve("platform.yaml"), ConfigFileTest.PLATFORM);
    Path f = dir.resolve("controller.yaml");
    Files.writeString(f, "platform: " + dir.resolve("platform.yaml") + "\nport: 8080\n");
    return ConfigFile.read(f);
  }

  @Test
  @DisplayName(
      "--port overrides the file; the Lease is named, owned by --identity, 15 s by default: renew 10 s, retry 2.243 s")
  void overrides() throws Exception {
    ControllerMain main = new ControllerMain();
    new CommandLine(main)
        .parseArgs("--port=9090", "--lease-namespace=ops", "--lease-name=ty", "--identity=pod-a");
    ControllerConfig c = main.configure(config());
    assertEquals(9090, c.port());
    assertEquals(
        new LeaseElection.Settings(
            "ops",
            "ty",
            "pod-a",
            Duration.ofSeconds(15),
            Duration.ofSeconds(10),
            Duration.ofNanos(2_242_857_142L)),
        c.election());
  }

  @Test
  @DisplayName("--port=0 (any free port) overrides the file's port too")
  void anyFreePort() throws Exception {
    ControllerMain main = new ControllerMain();
    new CommandLine(main).parseArgs("--port=0");
    assertEquals(0, main.configure(config()).port());
  }

  @Test
  @DisplayName(
      "a usage error reaches a buffered stderr whole: the error and the --help pointer, flushed")
  void usageFlushed() {
    StringWriter err = new StringWriter();
    CommandLine cl = ControllerMain.commandLine();
    cl.setErr(new PrintWriter(new BufferedWriter(err), false));
    assertEquals(2, cl.execute("--frobnicate"));
    assertEquals(
        List.of(
            "trainyard-controller: Unknown option: '--frobnicate'",
            "  try: trainyard-controller --help"),
        err.toString().lines().toList());
  }

  @Test
  @DisplayName(
      "a --kubeconfig that is not YAML: exit 3 naming file:line:col, after the warning that no forge is configured; the token never printed")
  void brokenKubeconfig() throws Exception {
    String token = "sha256~CONTROLLERsecretTOKEN42";
    Path k =
        Files.writeString(
            dir.resolve("kubeconfig"),
            "apiVersion: v1\nusers:\n- name: me\n  user:\n    token: \"" + token + "\n");
    Outcome o =
        execute(
            "--kubeconfig=" + k, "--config=" + configFile(), "--no-leader-election", "--port=0");
    assertEquals(3, o.code(), o.err());
    List<String> lines = o.err().lines().toList();
    assertTrue(
        lines
            .get(0)
            .startsWith(
                "trainyard-controller: warning: platform.yaml has no status.forges, so no commit"
                    + " status will be posted"),
        o.err());
    assertTrue(lastLine(o.err()).startsWith("trainyard-controller: "), o.err());
    assertTrue(lastLine(o.err()).contains(k + ":5:"), o.err());
    assertFalse(o.err().contains(token), o.err());
    assertFalse(o.err().contains("\tat "), "no stack trace: " + o.err());
  }

  @Test
  @DisplayName(
      "without --port the file's port stays; --no-leader-election leaves the Lease out (this replica always posts)")
  void noElection() throws Exception {
    ControllerMain main = new ControllerMain();
    new CommandLine(main).parseArgs("--no-leader-election");
    ControllerConfig c = main.configure(config());
    assertEquals(8080, c.port());
    assertNull(c.election());
  }

  @Test
  @DisplayName(
      "Lease timings scale with --lease-seconds: renew within 2/3, retry every 1/7 + 100 ms")
  void scaled() {
    LeaseElection.Settings s = LeaseElection.Settings.scaled("n", "l", "i", Duration.ofSeconds(3));
    assertEquals(Duration.ofSeconds(2), s.renewDeadline());
    assertEquals(Duration.ofNanos(528_571_428), s.retryPeriod());
    assertEquals(Duration.ofSeconds(3), s.leaseDuration());
  }

  /**
   * Runs the command line, returning its exit code and what it wrote to stderr (restored
   * afterwards).
   */
  record Outcome(int code, String err) {}

  static synchronized Outcome execute(String... args) {
    PrintStream saved = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      CommandLine cl = ControllerMain.commandLine();
      cl.setErr(new PrintWriter(System.err, true));
      int code = cl.execute(args);
      return new Outcome(code, err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setErr(saved);
    }
  }

  Path configFile() throws Exception {
    config();
    return dir.resolve("controller.yaml");
  }

  @Test
  @DisplayName("a configuration mistake exits 1 before any cluster is contacted, naming the file")
  void badConfig() {
    Outcome o = execute("--config=" + dir.resolve("missing.yaml"));
    assertEquals(1, o.code());
    assertTrue(o.err().startsWith("trainyard-controller: "), o.err());
    assertTrue(o.err().contains("missing.yaml"), o.err());
    assertFalse(o.err().contains("\tat "), "no stack trace: " + o.err());
  }

  @Test
  @DisplayName(
      "a port outside 0..65535, a lease under 1 s, or an unknown option is a usage error: exit 2 with the option named")
  void usage() throws Exception {
    Outcome port = execute("--config=" + configFile(), "--port=70000");
    assertEquals(2, port.code());
    assertTrue(
        port.err().contains("--port must be 0 to 65535 (0: any free port), got 70000"), port.err());
    Outcome negative = execute("--config=" + configFile(), "--port=-2");
    assertEquals(2, negative.code(), negative.err());
    Outcome lease = execute("--config=" + configFile(), "--lease-seconds=0");
    assertEquals(2, lease.code());
    assertTrue(lease.err().contains("--lease-seconds must be at least 1, got 0"), lease.err());
    Outcome edges =
        execute("--config=" + dir.resolve("missing.yaml"), "--port=65535", "--lease-seconds=1");
    assertEquals(
        1,
        edges.code(),
        "port 65535 and a 1 s lease are valid: the missing file is what fails: " + edges.err());
    StringWriter version = new StringWriter();
    CommandLine withOut = ControllerMain.commandLine();
    withOut.setOut(new PrintWriter(version, true));
    assertEquals(0, withOut.execute("--version"));
    assertEquals("trainyard-controller 0.1.0", version.toString().strip());
    Outcome unknown = execute("--frobnicate");
    assertEquals(2, unknown.code());
    assertEquals(
        List.of(
            "trainyard-controller: Unknown option: '--frobnicate'",
            "  try: trainyard-controller --help"),
        unknown.err().lines().toList());
    assertEquals(
        List.of(
            "trainyard-controller: --port must be 0 to 65535 (0: any free port), got 70000",
            "  try: trainyard-controller --help"),
        port.err().lines().toList());
  }

  @Test
  @DisplayName(
      "an API server that does not answer exits 3 with one line saying so, without the token")
  void unreachable() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    Path kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(
        kubeconfig,
        """
                apiVersion: v1
                kind: Config
                clusters: [{name: c, cluster: {server: "https://127.0.0.1:%d", insecure-skip-tls-verify: true}}]
                users: [{name: u, user: {token: not-a-real-token}}]
                contexts: [{name: c, context: {cluster: c, user: u}}]
                current-context: c
                """
            .formatted(port));
    Outcome o =
        withKubeconfig(
            kubeconfig,
            () ->
                execute(
                    "--kubeconfig=" + kubeconfig,
                    "--config=" + configFile(),
                    "--no-leader-election",
                    "--port=0"));
    assertEquals(3, o.code(), o.err());
    assertEquals(
        "trainyard-controller: cannot start: cannot reach the cluster at https://127.0.0.1:"
            + port
            + "/: connection refused",
        lastLine(o.err()));
    assertFalse(o.err().contains("not-a-real-token"), o.err());
  }

  @Test
  @DisplayName("a health port already taken exits 3 naming the address, after the cluster answered")
  void portTaken() throws Exception {
    Path kubeconfig = LiveApiServer.kubeconfig();
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Outcome o =
          withKubeconfig(
              kubeconfig,
              () ->
                  execute(
                      "--kubeconfig=" + kubeconfig,
                      "--config=" + configFile(),
                      "--no-leader-election",
                      "--port=" + taken.getLocalPort()));
      assertEquals(3, o.code(), o.err());
      assertEquals(
          "trainyard-controller: cannot listen on 127.0.0.1:"
              + taken.getLocalPort()
              + ": address already in use; pass --port N (0: any free port)",
          lastLine(o.err()));
    }
  }

  @Test
  @DisplayName(
      "a replica that loses its Lease stops and exits 0 (its Deployment starts a fresh one), after saying where it served")
  void lostLeaseExitsZero() throws Exception {
    Path kubeconfig = LiveApiServer.kubeconfig();
    String ns = LiveApiServer.namespace("main");
    // One forge whose source no run has (nothing is posted), at a loopback port nothing serves.
    Files.createDirectories(dir.resolve("tokens/forge-tokens"));
    Files.writeString(dir.resolve("tokens/forge-tokens/github"), "ghp_secret\n");
    Files.writeString(
        dir.resolve("platform.yaml"),
        ConfigFileTest.PLATFORM
            + """
            status:
              forges:
              - {source: forge.test/none, kind: github, api: https://127.0.0.1:1, token: {secret: forge-tokens, key: github}}
            """);
    Path config =
        Files.writeString(
            dir.resolve("controller.yaml"),
            "platform: " + dir.resolve("platform.yaml") + "\ntokens: " + dir.resolve("tokens"));
    Outcome o =
        withKubeconfig(
            kubeconfig,
            () -> {
              FutureTask<Outcome> run =
                  new FutureTask<>(
                      () ->
                          execute(
                              "--kubeconfig=" + kubeconfig,
                              "--config=" + config,
                              "--port=0",
                              "--lease-namespace=" + ns,
                              "--lease-name=ty",
                              "--identity=main-a",
                              "--lease-seconds=2"));
              Thread t = new Thread(run, "controller-main");
              t.setDaemon(true);
              t.start();
              LiveApiServer.await(
                  "main-a holds the Lease", () -> "main-a".equals(LeaseElectionTest.holder(ns)));
              LeaseElectionTest.steal(ns);
              return run.get(30, TimeUnit.SECONDS);
            });
    assertEquals(0, o.code(), o.err());
    assertTrue(o.err().contains("trainyard-controller: serving on port "), o.err());
    assertTrue(o.err().contains(" as main-a, forges [forge.test/none]"), o.err());
    assertEquals(
        "trainyard-controller: lost the Lease "
            + ns
            + "/ty (another replica holds it, or it was not renewed within 1333 ms); stopping, so"
            + " that only the Lease holder posts",
        lastLine(o.err()));
  }

  @Test
  @DisplayName("a lost Lease is one line naming it and the renew deadline, then the stop")
  void lostLeaseLine() throws Exception {
    CountDownLatch stop = new CountDownLatch(1);
    PrintStream before = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try {
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      ControllerMain.onLostLease(
              LeaseElection.Settings.scaled("ops", "ty", "a", Duration.ofSeconds(15)), stop)
          .run();
    } finally {
      System.setErr(before);
    }
    assertEquals(0, stop.getCount());
    assertEquals(
        "trainyard-controller: lost the Lease ops/ty (another replica holds it, or it was not"
            + " renewed within 10000 ms); stopping, so that only the Lease holder posts\n",
        err.toString(StandardCharsets.UTF_8));
  }

  @Test
  @DisplayName(
      "the process sets one-line logs before it runs the command and exits with its code; its shutdown hook tells the controller to stop, waits for the close and returns once it closed")
  void processEdges() throws Exception {
    String before = System.getProperty(ControllerMain.LOG_FORMAT_PROPERTY);
    try {
      System.clearProperty(ControllerMain.LOG_FORMAT_PROPERTY);
      assertEquals(2, ControllerMain.execute("--frobnicate"), "the command's exit code");
      assertEquals(0, ControllerMain.execute("--version"));
      assertEquals(
          ControllerMain.LOG_FORMAT, System.getProperty(ControllerMain.LOG_FORMAT_PROPERTY));
    } finally {
      if (before == null) {
        System.clearProperty(ControllerMain.LOG_FORMAT_PROPERTY);
      } else {
        System.setProperty(ControllerMain.LOG_FORMAT_PROPERTY, before);
      }
    }
    CountDownLatch stop = new CountDownLatch(1);
    CountDownLatch closed = new CountDownLatch(1);
    Thread hook = new Thread(ControllerMain.onShutdown(stop, closed), "hook");
    hook.start();
    assertTrue(stop.await(30, TimeUnit.SECONDS), "the hook tells run to stop");
    // It then waits for the close (at most 10 s): seen as its thread parked in a timed wait.
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (hook.getState() != Thread.State.TIMED_WAITING
        && hook.getState() != Thread.State.TERMINATED
        && System.nanoTime() < end) {
      Thread.sleep(5);
    }
    assertEquals(Thread.State.TIMED_WAITING, hook.getState(), "the hook waits for the close");
    closed.countDown();
    hook.join(TimeUnit.SECONDS.toMillis(30));
    assertFalse(hook.isAlive(), "the hook returns once the controller closed");
  }

  /**
   * The last line of {@code err}: the line that ends the process (a warning may come before it).
   */
  static String lastLine(String err) {
    List<String> lines = err.strip().lines().toList();
    return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
  }

  /** Runs {@code body} with fabric8 reading {@code kubeconfig} and retrying no request. */
  static <T> T withKubeconfig(Path kubeconfig, Callable<T> body) throws Exception {
    System.setProperty("kubeconfig", kubeconfig.toString());
    System.setProperty("kubernetes.request.retry.backoffLimit", "0");
    try {
      return body.call();
    } finally {
      System.clearProperty("kubeconfig");
      System.clearProperty("kubernetes.request.retry.backoffLimit");
    }
  }

  @Test
  @DisplayName(
      "log records are one line each (time, level, message), not the JDK's two-line default; an operator's own format is kept")
  void oneLineLogs() {
    String before = System.getProperty(ControllerMain.LOG_FORMAT_PROPERTY);
    try {
      System.clearProperty(ControllerMain.LOG_FORMAT_PROPERTY);
      ControllerMain.oneLineLogs();
      LogRecord r =
          new LogRecord(
              Level.SEVERE,
              "run team-a/x: github refused the commit status (PERMISSION): POST /repos/a/b/statuses/c: HTTP 401");
      r.setInstant(Instant.parse("2026-12-01T08:00:00Z"));
      r.setSourceClassName("dev.trainyard.controller.Reconciler");
      r.setSourceMethodName("failed");
      String line = new SimpleFormatter().format(r);
      assertTrue(
          line.endsWith(
              " SEVERE run team-a/x: github refused the commit status (PERMISSION): POST"
                  + " /repos/a/b/statuses/c: HTTP 401"
                  + System.lineSeparator()),
          line);
      assertEquals(1, line.split("\\R").length, line);
      assertTrue(
          line.matches("(?s)\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}[+-]\\d{4} SEVERE .*"), line);
      System.setProperty(ControllerMain.LOG_FORMAT_PROPERTY, "%5$s%n");
      ControllerMain.oneLineLogs();
      assertEquals("%5$s%n", System.getProperty(ControllerMain.LOG_FORMAT_PROPERTY));
    } finally {
      if (before == null) {
        System.clearProperty(ControllerMain.LOG_FORMAT_PROPERTY);
      } else {
        System.setProperty(ControllerMain.LOG_FORMAT_PROPERTY, before);
      }
    }
  }
}
