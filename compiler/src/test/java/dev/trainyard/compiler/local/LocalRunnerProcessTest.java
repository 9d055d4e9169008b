package dev.trainyard.compiler.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LocalRunner} on real process groups ({@code setsid bash}): how a run ends (all exit 0, the
 * first failure, a wrong world, a stop), what each node's environment holds, and how a stop gives a
 * process group its grace before SIGKILL. Plans are built by hand: one {@code TRAINYARD_RUN} per
 * node, as the compiled pod has it.
 */
class LocalRunnerProcessTest {
  @TempDir Path tmp;
  final ByteArrayOutputStream out = new ByteArrayOutputStream();
  final ByteArrayOutputStream err = new ByteArrayOutputStream();

  /** A runner over {@code nodes} (framework plain unless world > 1) with a 1 s quiet note. */
  private LocalRunner runner(
      String framework, int world, Optional<MpiLaunch> mpi, LocalNode... nodes) throws IOException {
    LocalPlan plan = new LocalPlan("r", framework, "0".repeat(40), List.of(nodes), world, mpi);
    Path scratch = Files.createDirectories(tmp.resolve("scratch"));
    LocalRunner runner =
        new LocalRunner(
            plan,
            scratch,
            new PrintWriter(out, false, StandardCharsets.UTF_8),
            new PrintWriter(err, false, StandardCharsets.UTF_8),
            Duration.ofSeconds(1),
            Clock.systemUTC());
    for (LocalNode node : plan.nodes()) {
      Files.createDirectories(runner.checkout(node).resolve(node.workdir()));
    }
    return runner;
  }

  private static LocalNode node(String name, String run) {
    return LocalNode.of(name, Map.of("TRAINYARD_RUN", run), "");
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  @DisplayName(
      "every node exits 0: succeeded with exit 0 at once (not at the timeout), each line printed and flushed as [node-N] line")
  void allSucceed() throws Exception {
    LocalRunner.Outcome o =
        runner(
                "plain",
                2,
                Optional.empty(),
                node("node-0", "echo zero"),
                node("node-1", "echo one"))
            .run(Duration.ofSeconds(60));
    assertEquals(0, o.exitCode(), o.state());
    assertEquals("succeeded", o.state());
    assertTrue(o.took().compareTo(Duration.ofSeconds(30)) < 0, o.took().toString());
    assertEquals(List.of("[node-0] zero", "[node-1] one"), out().lines().sorted().toList());
    assertEquals(WorldCheck.Outcome.NOT_CHECKED, o.world().outcome());
  }

  @Test
  @DisplayName(
      "the first node to exit non-zero ends the run with its code, naming it; the others are stopped")
  void firstFailureEndsTheRun() throws Exception {
    LocalRunner.Outcome o =
        runner(
                "plain",
                2,
                Optional.empty(),
                node("node-0", "sleep 60"),
                node("node-1", "sleep 0.5; exit 3"))
            .run(Duration.ofSeconds(60));
    assertEquals(3, o.exitCode(), o.state());
    assertEquals("failed (user error): command exited with code 3 on node-1", o.state());
    assertTrue(o.took().compareTo(Duration.ofSeconds(30)) < 0, o.took().toString());
  }

  @Test
  @DisplayName(
      "all exit 0 but a rank reported a world of 1 of the 2 promised: failed (user error) with the world check's words, exit 1")
  void wrongWorldFails() throws Exception {
    String alone = "echo \"torch rank=0 world=1 pid=$$\" >> \"$TRAINYARD_LOCAL_PROBE\"";
    LocalRunner.Outcome o =
        runner("torch", 2, Optional.empty(), node("node-0", alone), node("node-1", alone))
            .run(Duration.ofSeconds(60));
    assertEquals(1, o.exitCode(), o.state());
    assertEquals(WorldCheck.Outcome.ALONE, o.world().outcome());
    assertTrue(o.state().startsWith("failed (user error): "), o.state());
    assertFalse(o.state().contains("world check: FAILED: "), o.state());
    assertEquals(
        "failed (user error): " + o.world().line().replaceFirst("^world check: FAILED: ", ""),
        o.state());
  }

  @Test
  @DisplayName("a timeout ends the run as the controller words it, exit 124")
  void timeout() throws Exception {
    LocalRunner.Outcome o =
        runner("plain", 1, Optional.empty(), node("node-0", "sleep 60")).run(Duration.ofSeconds(2));
    assertEquals(124, o.exitCode());
    assertEquals("failed (user error): ran past its timeout of 2s", o.state());
  }

  @Test
  @DisplayName(
      "the quiet note: not when a node already exited, not for a promised world of 1; an empty probe file is no report; the note is flushed")
  void quietNote() throws Exception {
    runner("torch", 2, Optional.empty(), node("node-0", "true"), node("node-1", "sleep 60"))
        .run(Duration.ofSeconds(3));
    assertEquals("", err.toString(StandardCharsets.UTF_8));
    runner("torch", 1, Optional.empty(), node("node-0", "sleep 60")).run(Duration.ofSeconds(3));
    assertEquals("", err.toString(StandardCharsets.UTF_8));
    String touch = "touch \"$TRAINYARD_LOCAL_PROBE\"; sleep 60";
    runner("torch", 2, Optional.empty(), node("node-0", touch), node("node-1", touch))
        .run(Duration.ofSeconds(3));
    assertTrue(
        err.toString(StandardCharsets.UTF_8)
            .startsWith("run --local: no rank has joined a process group after 1s (2 promised)"),
        err.toString(StandardCharsets.UTF_8));
  }

  @Test
  @DisplayName(
      "the node's environment: HOME its own, the probe first on PYTHONPATH (the node's PYTHONPATH after it), no inherited RANK/PET_/MASTER_/TRAINYARD_ variables")
  void environment() throws Exception {
    LocalNode plain = node("node-0", "echo \"home=$HOME py=$PYTHONPATH\"");
    LocalNode withPath =
        LocalNode.of(
            "node-1", Map.of("TRAINYARD_RUN", "echo \"py=$PYTHONPATH\"", "PYTHONPATH", "/x"), "");
    LocalRunner runner = runner("plain", 2, Optional.empty(), plain, withPath);
    Path probe = tmp.resolve("scratch/probe");
    assertEquals(0, runner.run(Duration.ofSeconds(60)).exitCode(), out());
    List<String> lines = out().lines().sorted().toList();
    String inherited = System.getenv().getOrDefault("PYTHONPATH", "");
    assertEquals(
        List.of(
            "[node-0] home="
                + tmp.resolve("scratch/node-0/home")
                + " py="
                + probe
                + (inherited.isEmpty() ? "" : ":" + inherited),
            "[node-1] py=" + probe + ":/x"),
        lines);
    assertTrue(LocalRunner.notInherited("RANK"));
    assertTrue(LocalRunner.notInherited("NODE_RANK"));
    assertTrue(LocalRunner.notInherited("PET_NNODES"));
    assertTrue(LocalRunner.notInherited("MASTER_ADDR"));
    assertTrue(LocalRunner.notInherited("TRAINYARD_RUN"));
    assertFalse(LocalRunner.notInherited("PATH"));
    assertFalse(LocalRunner.notInherited("MY_RANK"));
    assertFalse(LocalRunner.notInherited("XPET_"));
  }

  @Test
  @DisplayName(
      "MPI: the launcher's one-line hostfile under scratch, named by TRAINYARD_LOCAL_HOSTFILE and by every variable that named the compiled hostfile")
  void mpiHostfile() throws Exception {
    MpiLaunch launch =
        new MpiLaunch(
            "echo \"$TRAINYARD_LOCAL_HOSTFILE\"; cat \"$TRAINYARD_LOCAL_HOSTFILE\"; echo \"$HOSTS\" \"$OTHER\"\n",
            "localhost slots=4\n",
            "/etc/mpi/hostfile",
            4);
    LocalNode launcher =
        LocalNode.of("launcher", Map.of("HOSTS", "/etc/mpi/hostfile", "OTHER", "/etc/other"), "");
    LocalRunner.Outcome o =
        runner("mpi", 4, Optional.of(launch), launcher).run(Duration.ofSeconds(60));
    assertEquals(0, o.exitCode(), o.state() + out());
    Path hostfile = tmp.resolve("scratch/hostfile");
    assertEquals("localhost slots=4\n", Files.readString(hostfile));
    assertEquals(
        List.of(
            "[launcher] " + hostfile,
            "[launcher] localhost slots=4",
            "[launcher] " + hostfile + " /etc/other"),
        out().lines().toList());
  }

  @Test
  @DisplayName("stop before the run: no node starts, an IOException names the first")
  void stopBeforeTheRun() throws Exception {
    LocalRunner runner = runner("plain", 1, Optional.empty(), node("node-0", "echo started"));
    runner.stop();
    IOException e = assertThrows(IOException.class, () -> runner.run(Duration.ofSeconds(60)));
    assertEquals("stopped before node-0 started", e.getMessage());
    assertEquals("", out());
  }

  @Test
  @DisplayName(
      "stop (SIGTERM, 143): a process group gets its grace after SIGTERM, even when only an orphaned child of it is left: its TERM trap finishes")
  void stopGivesGrace() throws Exception {
    Path cleaned = tmp.resolve("cleaned");
    Path started = tmp.resolve("started");
    // The leader dies on TERM at once; its background child (reparented, no longer a descendant)
    // finishes its trap 1 s later: only the process group still names it.
    LocalNode trap =
        node(
            "node-0",
            "sh -c 'trap \"sleep 1; touch "
                + cleaned
                + "; exit 0\" TERM; touch "
                + started
                + "; while true; do sleep 0.1; done' & sleep 60");
    LocalRunner runner = runner("plain", 1, Optional.empty(), trap);
    CompletableFuture<LocalRunner.Outcome> outcome = inBackground(runner);
    awaitFile(started);
    runner.stop("SIGTERM", 143);
    LocalRunner.Outcome o = outcome.get(60, TimeUnit.SECONDS);
    assertEquals(143, o.exitCode());
    assertEquals("stopped (SIGTERM)", o.state());
    assertTrue(Files.exists(cleaned), "the TERM trap did not get its grace");
  }

  @Test
  @DisplayName("stop: a process group that ignores SIGTERM is killed once the grace has passed")
  void stopKillsAfterGrace() throws Exception {
    Path pidFile = tmp.resolve("ignoring.pid");
    LocalNode deaf =
        node("node-0", "trap '' TERM; echo $$ > " + pidFile + "; while true; do sleep 0.1; done");
    LocalRunner runner = runner("plain", 1, Optional.empty(), deaf);
    CompletableFuture<LocalRunner.Outcome> outcome = inBackground(runner);
    awaitFile(pidFile);
    TimeUnit.MILLISECONDS.sleep(200);
    long start = System.nanoTime();
    runner.stop("SIGTERM", 143);
    LocalRunner.Outcome o = outcome.get(60, TimeUnit.SECONDS);
    long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
    assertEquals(143, o.exitCode());
    long pid = Long.parseLong(Files.readString(pidFile).strip());
    assertFalse(
        ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false),
        "the group that ignores TERM is still there");
    assertTrue(seconds >= LocalRunner.GRACE.toSeconds() - 1, "killed before the grace: " + seconds);
  }

  private static CompletableFuture<LocalRunner.Outcome> inBackground(LocalRunner runner) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return runner.run(Duration.ofSeconds(120));
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }

  private static void awaitFile(Path file) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!Files.exists(file) && System.nanoTime() < until) {
      TimeUnit.MILLISECONDS.sleep(50);
    }
    assertTrue(Files.exists(file), file + " never appeared");
  }

  @Test
  @DisplayName("stop(): Ctrl-C, exit 130")
  void ctrlC() throws Exception {
    LocalRunner runner = runner("plain", 1, Optional.empty(), node("node-0", "sleep 60"));
    CompletableFuture<LocalRunner.Outcome> outcome = inBackground(runner);
    TimeUnit.SECONDS.sleep(1);
    runner.stop();
    LocalRunner.Outcome o = outcome.get(60, TimeUnit.SECONDS);
    assertEquals(130, o.exitCode());
    assertEquals("stopped (Ctrl-C)", o.state());
  }
}
