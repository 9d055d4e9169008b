package dev.trainyard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The README's "Try the whole loop" block, read from README.md and run as written by bash in the
 * checkout: {@code scripts/sandbox up} starts the whole loop ({@link Sandbox}), the demo repo's
 * {@code trainyard submit} goes through the GitOps repo, Flux, Kueue, JobSet and kwok, {@code
 * trainyard status -w} follows it to its end, {@code curl} fetches the forge page of the commit
 * (after the controller's final post) and {@code scripts/sandbox down} stops everything. Then: no
 * process the sandbox recorded is alive and no port it listened on is listening; a second {@code
 * up} works, {@code status} lists the parts; after {@code kill -9} of its main process {@code
 * status} lists what is left, {@code up} refuses to start over it (or, where the machine ended the
 * leftovers on its own first, starts anew with none of them alive) and {@code down} ends it; an
 * {@code up} interrupted by SIGINT stops what it started; {@code status} says not up.
 *
 * <p>The sandbox gets this test's classpath ({@code TRAINYARD_SANDBOX_CLASSPATH}, so no nested
 * Maven build) and its own state dir ({@code target/cluster/sandbox}); it starts its own cluster,
 * not the shared one. Timings (each command of the block, from bash's {@code PS4} timestamps) go to
 * the test output.
 */
class SandboxIT {

  static final Duration BLOCK_TIMEOUT = Duration.ofMinutes(15);
  static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(5);
  static final String HEADING = "## Try the whole loop";

  private Path root;
  private Path state;

  @BeforeEach
  void binariesAreBuilt() {
    FluxBinaries flux = FluxBinaries.locate();
    assumeTrue(flux.missing().isEmpty(), () -> "NOT RUN: " + flux.missing().orElseThrow());
    assumeTrue(
        K8sBinaries.locate().has(Component.KUEUE_CONTROLLER.binary()),
        "NOT RUN: Kueue controller not built (see VERSIONS)");
    root = K8sBinaries.repoRoot();
    state = KubeClusterExtension.workDir("sandbox");
  }

  @AfterEach
  void downAnyway() {
    if (state != null && Files.exists(state.resolve("pid"))) {
      run("scripts/sandbox down");
    }
  }

  @Test
  @DisplayName(
      "the README's block: up, a submit synced by Flux, admitted by Kueue and run by kwok gets succeeded on the forge page, down leaves no process or port, a second up works")
  void readmeBlock() throws Exception {
    String block = readmeBlock(Files.readString(root.resolve("README.md")));
    List<String> lines = block.strip().lines().toList();
    assertTrue(lines.get(0).startsWith("scripts/sandbox up"), block);
    assertTrue(lines.get(lines.size() - 1).startsWith("scripts/sandbox down"), block);
    Result result = run(block);
    System.out.println("[SandboxIT] block timings:\n" + result.timings());
    assertEquals(0, result.exit(), result.describe());
    Matcher run = Pattern.compile("(?m)^run ([a-z0-9-]+): ").matcher(result.out());
    assertTrue(run.find(), "submit named its run: " + result.describe());
    String context = "trainyard/" + Sandbox.CLUSTER + "/" + Sandbox.NAMESPACE + "/" + run.group(1);
    assertTrue(
        result.out().contains("<td>" + context + "</td><td class=\"success\">success</td>"),
        "the forge page shows " + context + " succeeded: " + result.describe());
    assertTrue(result.out().contains("<td>github acme/sandbox-demo</td>"), result.describe());

    assertNothingLeft();

    Result second = run("scripts/sandbox up");
    assertEquals(0, second.exit(), "second up: " + second.describe());
    assertTrue(second.out().contains("sandbox up in "), second.describe());
    Result status = run("scripts/sandbox status");
    assertEquals(0, status.exit(), status.describe());
    assertTrue(
        status.out().matches("(?s).*kube-apiserver +pid \\d+ +running.*"), status.describe());
    assertTrue(status.out().contains("trainyard-controller"), status.describe());
    System.out.println("[SandboxIT] second up:\n" + second.out() + "\nstatus:\n" + status.out());

    // kill -9 of the main process: its group goes on; status shows it, up refuses, down ends it.
    String main = Files.readString(state.resolve("pid")).strip();
    assertEquals(0, run("kill -KILL " + main).exit());
    Result orphans = run("sleep 1; scripts/sandbox status");
    assertEquals(3, orphans.exit(), orphans.describe());
    assertTrue(
        orphans
            .out()
            .matches(
                "(?s)sandbox: not up, but \\d+ processes of a sandbox whose main process is gone still run \\(listening on ports \\d+( \\d+)*\\):\n.*kube-apiserver.*"),
        orphans.describe());
    assertTrue(orphans.out().contains("`scripts/sandbox down` ends them"), orphans.describe());
    List<Long> leftovers =
        Pattern.compile("(?m)^  (\\d+) ")
            .matcher(orphans.out())
            .results()
            .map(m -> Long.parseLong(m.group(1)))
            .toList();
    Result over = run("scripts/sandbox up");
    if (over.exit() == 0) {
      // Right only if every leftover had ended on its own before up looked (one CI machine ended
      // them within seconds of the kill): none may be alive now, after up.
      List<Long> alive = leftovers.stream().filter(SandboxIT::running).toList();
      assertEquals(List.of(), alive, "up started over live leftovers: " + over.describe());
      System.out.println(
          "[SandboxIT] the leftovers ended on their own before up looked; up started anew:\n"
              + orphans.out());
      Result down = run("scripts/sandbox down");
      assertEquals(0, down.exit(), down.describe());
    } else {
      assertEquals(1, over.exit(), over.describe());
      assertTrue(over.err().contains("not starting over them"), over.describe());
      Result down = run("scripts/sandbox down");
      assertEquals(0, down.exit(), down.describe());
      assertTrue(
          down.out().contains("ended what was left of its process groups (" + main),
          down.describe());
    }
    assertNothingLeft();

    // Ctrl-C on a starting up: it stops what it started and says so.
    interruptedUp();
    Result after = run("scripts/sandbox status");
    assertEquals(3, after.exit(), after.describe());
    assertEquals("sandbox: not up\n", after.out(), after.describe());
  }

  /**
   * SIGINT to {@code up} once the cluster is up: exit 130, one line, no process of its group left.
   */
  private void interruptedUp() throws Exception {
    Path out = state.resolve("it-interrupted.out");
    Path err = state.resolve("it-interrupted.err");
    ProcessBuilder builder =
        new ProcessBuilder("scripts/sandbox", "up")
            .directory(root.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .redirectOutput(out.toFile())
            .redirectError(err.toFile());
    builder.environment().put("TRAINYARD_SANDBOX_DIR", state.toString());
    builder.environment().put("TRAINYARD_SANDBOX_CLASSPATH", System.getProperty("java.class.path"));
    builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
    Process up = builder.start();
    long deadline = System.nanoTime() + COMMAND_TIMEOUT.toNanos();
    while (!Files.readString(err).contains("sandbox: cluster up")) {
      assertTrue(up.isAlive() && System.nanoTime() < deadline, "up: " + Files.readString(err));
      Thread.sleep(200);
    }
    String group = Files.readString(state.resolve("pid")).strip();
    // A shell cannot trap a signal ignored when it started (POSIX trap); then SIGTERM, as `kill`.
    String ignored =
        Files.readAllLines(Path.of("/proc/" + up.pid() + "/status")).stream()
            .filter(l -> l.startsWith("SigIgn:"))
            .findFirst()
            .orElseThrow();
    boolean intIgnored = (Long.parseLong(ignored.substring(7).strip(), 16) & 0x2) != 0;
    String signal = intIgnored ? "TERM" : "INT";
    System.out.println("[SandboxIT] interrupting up with SIG" + signal);
    assertEquals(0, run("kill -" + signal + " " + up.pid()).exit());
    assertTrue(up.waitFor(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS), "up still running");
    String said = Files.readString(err);
    assertEquals(intIgnored ? 143 : 130, up.exitValue(), said);
    assertTrue(
        said.endsWith(
            "sandbox: "
                + signal
                + " while starting; stopped what it had started (as `scripts/sandbox down`)\n"),
        said);
    Result left =
        run("ps -eo pid=,pgid=,stat= | awk '$2 == " + group + " && $3 !~ /^Z/ {print $1}'");
    assertEquals("", left.out(), "left of group " + group);
  }

  /** No recorded process alive; no recorded port listening, unless some other process took it. */
  private void assertNothingLeft() throws IOException {
    List<Long> pids =
        Files.readAllLines(state.resolve("processes")).stream()
            .map(line -> Long.parseLong(line.substring(line.lastIndexOf(' ') + 1)))
            .toList();
    assertTrue(pids.size() >= 11, "recorded processes: " + pids);
    for (long pid : pids) {
      assertFalse(running(pid), "still alive: pid " + pid);
    }
    List<String> ports = Files.readAllLines(state.resolve("ports"));
    assertTrue(ports.size() >= 10, "recorded listening ports: " + ports);
    String listening = run("ss -Hltnp").out();
    for (String port : ports) {
      for (String line : listening.lines().toList()) {
        if (line.matches("\\S+\\s+\\d+\\s+\\d+\\s+\\S+:" + port + "\\s.*")) {
          assertTrue(
              pids.stream().noneMatch(pid -> line.contains("pid=" + pid + ",")),
              "port " + port + " still listening: " + line);
        }
      }
    }
  }

  /**
   * Whether {@code pid} runs: it exists and is no zombie (a killed sandbox's children go to PID 1,
   * which may reap them a few seconds later).
   */
  private static boolean running(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
    } catch (IOException e) {
      return false;
    }
  }

  /** The first {@code ```bash} block after the heading {@value #HEADING}. */
  static String readmeBlock(String readme) {
    int heading = readme.indexOf("\n" + HEADING + "\n");
    assertTrue(heading >= 0, "README.md has no '" + HEADING + "' section");
    int start = readme.indexOf("```bash\n", heading);
    int end = readme.indexOf("\n```", start + 8);
    assertTrue(start > 0 && end > start, "no ```bash block under " + HEADING);
    return readme.substring(start + 8, end + 1);
  }

  private Result run(String script) {
    long id = System.nanoTime();
    Path out = state.resolve("it-" + id + ".out");
    Path err = state.resolve("it-" + id + ".err");
    ProcessBuilder builder =
        // bash takes no PS4 from the environment when run as root; the script sets it first.
        new ProcessBuilder(
                "bash", "-x", "-eo", "pipefail", "-c", "PS4='+ ${EPOCHREALTIME} '\n" + script)
            .directory(root.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .redirectOutput(out.toFile())
            .redirectError(err.toFile());
    Map<String, String> env = builder.environment();
    env.put("TRAINYARD_SANDBOX_DIR", state.toString());
    env.put("TRAINYARD_SANDBOX_CLASSPATH", System.getProperty("java.class.path"));
    env.put("JAVA_HOME", System.getProperty("java.home"));
    try {
      Process process = builder.start();
      Duration limit = script.contains("\n") ? BLOCK_TIMEOUT : COMMAND_TIMEOUT;
      if (!process.waitFor(limit.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new AssertionError("still running after " + limit + ": " + script);
      }
      return new Result(
          process.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Exit code, stdout, stderr (with bash's {@code -x} trace) of one script. */
  private record Result(int exit, String out, String err) {
    String describe() {
      return "exit " + exit + "\nstdout:\n" + out + "\nstderr:\n" + err;
    }

    /** Seconds from the first traced command to each top-level command of the block. */
    String timings() {
      List<String> lines = new ArrayList<>();
      Matcher m = Pattern.compile("(?m)^\\+ (\\d+\\.\\d+) (.*)$").matcher(err);
      double first = -1;
      while (m.find()) {
        double t = Double.parseDouble(m.group(1));
        first = first < 0 ? t : first;
        lines.add("%7.1f s  %s".formatted(t - first, m.group(2)));
      }
      return String.join("\n", lines);
    }
  }
}
