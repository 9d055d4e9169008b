package dev.trainyard.compiler.local;

import dev.trainyard.compiler.render.CheckpointParts;
import dev.trainyard.compiler.render.SetupLine;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Runs a {@link LocalPlan} on this machine: one process group per node ({@code setsid bash -c …}),
 * each in its own working copy below {@code scratch/node-N/src}, with the node's env, a fresh
 * {@code HOME} (the pod's is an emptyDir) and the world probe on {@code PYTHONPATH}. Like the pod,
 * it runs {@code bash -eo pipefail -c "$TRAINYARD_SETUP"}, then {@code bash -eo pipefail -c
 * "$TRAINYARD_RUN"}. Every line is printed as {@code [node-N] line}. The first node to exit
 * non-zero ends the run and the others are stopped (the compiled JobSet fails at the first failed
 * Job the same way); so does {@code timeout} and {@link #stop()} (Ctrl-C): SIGTERM to each process
 * group, SIGKILL after {@link #GRACE}.
 *
 * <p>Not like the pod: no container image (the tools on this machine's PATH run), no GPU start-up
 * check, no volumes (a mount path in {@code run} is used as it is on this machine), except that a
 * checkpointed run's volume is a local folder ({@link LocalPlanner.Checkpoints}) and its checkpoint
 * lines run first, as in the pod.
 */
public final class LocalRunner {
  /**
   * How long every node may run with no rank in a process group before {@link #run} notes it once
   * on the error writer (a launch line that never forms the group waits until the timeout).
   */
  public static final Duration QUIET_NOTE = Duration.ofSeconds(60);

  /** How long a stopped process group has between SIGTERM and SIGKILL. */
  public static final Duration GRACE = Duration.ofSeconds(10);

  private static final String NODE_SCRIPT =
      SetupLine.TEXT + "exec bash -eo pipefail -c \"$TRAINYARD_RUN\"\n";

  /** A checkpointed node first finds {@code RESUME_FROM} as the pod does. */
  private static final String CHECKPOINT_NODE_SCRIPT = CheckpointParts.SCRIPT + NODE_SCRIPT;

  /** Inherited variables a pod never has: a leftover would fake the world the run forms. */
  private static final List<String> NOT_INHERITED =
      List.of("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK", "NODE_RANK");

  private static final List<String> NOT_INHERITED_PREFIXES =
      List.of("PET_", "MASTER_", "JAX_", "TORCHELASTIC_", "OMPI_", "PMIX_", "TRAINYARD_");

  private final LocalPlan plan;
  private final Path scratch;
  private final PrintWriter out;
  private final PrintWriter err;

  /** The process groups {@link #stopAll} has sent SIGTERM to. */
  private final Set<Long> termed = ConcurrentHashMap.newKeySet();

  private final Duration quietNote;
  private final Clock clock;
  private final Map<String, Process> running = new LinkedHashMap<>();
  private volatile boolean stopped;
  private volatile End stoppedBy = new End("stopped (Ctrl-C)", 130);

  /**
   * @param plan the nodes to run
   * @param scratch an empty folder for the working copies, homes and probe files
   * @param out where the prefixed lines go
   * @param clock for the duration
   */
  public LocalRunner(LocalPlan plan, Path scratch, PrintWriter out, Clock clock) {
    this(plan, scratch, out, out, QUIET_NOTE, clock);
  }

  /**
   * @param plan the nodes to run
   * @param scratch an empty folder for the working copies, homes and probe files
   * @param out where the prefixed lines go
   * @param err where the one note goes when, {@code quietNote} after the start, every node still
   *     runs and no rank has reported a process group (runtimes other than {@code plain}, with a
   *     promised world above 1)
   * @param quietNote how long to wait before that note ({@link #QUIET_NOTE} in the CLI)
   * @param clock for the duration
   */
  public LocalRunner(
      LocalPlan plan,
      Path scratch,
      PrintWriter out,
      PrintWriter err,
      Duration quietNote,
      Clock clock) {
    this.plan = plan;
    this.scratch = scratch;
    this.out = out;
    this.err = err;
    this.quietNote = quietNote;
    this.clock = clock;
  }

  /**
   * How the run ended.
   *
   * @param exitCode 0, the exit code of the first failed node, 124 on timeout, 130 when stopped by
   *     Ctrl-C (143 by SIGTERM)
   * @param state the controller's words: {@code succeeded}, {@code failed (user error): command
   *     exited with code 1 on node-1}, {@code failed (user error): ran past its timeout of 60s},
   *     {@code stopped (Ctrl-C)}, {@code stopped (SIGTERM)}
   * @param world the world check
   * @param took wall-clock time from the first start to the last exit
   */
  public record Outcome(int exitCode, String state, WorldCheck.Verdict world, Duration took) {}

  /** Where the code of {@code node} goes (its working copy's root). */
  public Path checkout(LocalNode node) {
    return scratch.resolve(node.name()).resolve("src");
  }

  /**
   * Starts every node (their working copies must exist) and waits until all have exited, one has
   * failed, {@code timeout} passed or {@link #stop()} was called.
   *
   * @throws IOException when a process cannot be started
   */
  public Outcome run(Duration timeout) throws IOException, InterruptedException {
    Path probe = scratch.resolve("probe");
    Files.createDirectories(probe);
    try (InputStream in = LocalRunner.class.getResourceAsStream("sitecustomize.py")) {
      Files.write(probe.resolve("sitecustomize.py"), in.readAllBytes());
    }
    Instant start = clock.instant();
    List<Thread> pumps = new ArrayList<>();
    for (LocalNode node : plan.nodes()) {
      pumps.add(start(node, probe));
    }
    Optional<End> failure = await(start, start.plusMillis(timeout.toMillis()), timeout);
    stopAll();
    for (Thread pump : pumps) {
      pump.join(GRACE.toMillis());
    }
    Duration took = Duration.between(start, clock.instant());
    return outcome(failure, took);
  }

  /**
   * The node's script: with {@code checkpoint:} the pod's checkpoint lines first ({@code
   * RESUME_FROM}, {@code keep}; the log line saying where it resumes from), then setup and run.
   */
  static String script(LocalNode node) {
    return node.get("TRAINYARD_CHECKPOINT_ROOT").isEmpty() ? NODE_SCRIPT : CHECKPOINT_NODE_SCRIPT;
  }

  /** Stops every node's process group (Ctrl-C); {@link #run} then returns. Safe to call twice. */
  public void stop() {
    stop("Ctrl-C", 130);
  }

  /**
   * Stops every node's process group because of {@code why}; the outcome then says {@code stopped
   * (<why>)} with {@code exitCode}.
   *
   * @param why what stopped the run: {@code Ctrl-C}, {@code SIGTERM}, {@code SIGHUP}
   * @param exitCode the outcome's exit code: 128 + the signal's number (130, 143, 129)
   */
  public void stop(String why, int exitCode) {
    stoppedBy = new End("stopped (" + why + ")", exitCode);
    stopped = true;
    stopAll();
  }

  private Thread start(LocalNode node, Path probe) throws IOException {
    Path home = scratch.resolve(node.name()).resolve("home");
    Files.createDirectories(home);
    ProcessBuilder pb =
        new ProcessBuilder(
                "setsid", "bash", "-c", plan.mpi().map(MpiLaunch::script).orElse(script(node)))
            .directory(checkout(node).resolve(node.workdir()).toFile())
            .redirectErrorStream(true);
    Map<String, String> env = pb.environment();
    env.keySet().removeIf(LocalRunner::notInherited);
    env.putAll(node.env());
    env.put("HOME", home.toString());
    String pythonPath = node.env().getOrDefault("PYTHONPATH", env.getOrDefault("PYTHONPATH", ""));
    env.put("PYTHONPATH", probe + (pythonPath.isEmpty() ? "" : ":" + pythonPath));
    env.put("TRAINYARD_LOCAL_PROBE", probe.resolve(node.name() + ".txt").toString());
    if (plan.mpi().isPresent()) {
      localHostfile(plan.mpi().get(), env);
    }
    Process process;
    synchronized (running) {
      if (stopped) {
        throw new IOException("stopped before " + node.name() + " started");
      }
      process = pb.start();
      running.put(node.name(), process);
    }
    Thread pump = new Thread(() -> pump(node.name(), process.getInputStream()), node.name());
    pump.setDaemon(true);
    pump.start();
    return pump;
  }

  /**
   * Writes the MPI launch's one-line hostfile to {@code scratch/hostfile}; {@code
   * TRAINYARD_LOCAL_HOSTFILE} and every env value naming the compiled hostfile name it instead.
   */
  private void localHostfile(MpiLaunch mpi, Map<String, String> env) throws IOException {
    Path hostfile = scratch.resolve("hostfile");
    Files.writeString(hostfile, mpi.hostfile(), StandardCharsets.UTF_8);
    env.replaceAll((k, v) -> v.equals(mpi.compiledHostfile()) ? hostfile.toString() : v);
    env.put("TRAINYARD_LOCAL_HOSTFILE", hostfile.toString());
  }

  static boolean notInherited(String name) {
    return NOT_INHERITED.contains(name)
        || NOT_INHERITED_PREFIXES.stream().anyMatch(name::startsWith);
  }

  private void pump(String node, InputStream in) {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        synchronized (out) {
          out.println("[" + node + "] " + line);
          out.flush();
        }
      }
    } catch (IOException e) {
      // The process group was killed while a line was half read: nothing more to print.
    }
  }

  /** A run that did not succeed: the controller's words and the exit code. */
  private record End(String state, int exitCode) {}

  /** Waits for the end: empty when every node exited 0. */
  private Optional<End> await(Instant start, Instant deadline, Duration timeout)
      throws InterruptedException {
    boolean noted = plan.framework().equals("plain") || plan.expectedWorld() < 2;
    while (!stopped) {
      boolean alive = false;
      boolean all = true;
      for (Map.Entry<String, Process> e : snapshot().entrySet()) {
        Process p = e.getValue();
        all &= p.isAlive();
        if (p.isAlive()) {
          alive = true;
        } else if (p.exitValue() != 0) {
          return Optional.of(
              new End(
                  "failed (user error): command exited with code "
                      + p.exitValue()
                      + " on "
                      + e.getKey(),
                  p.exitValue()));
        }
      }
      if (!alive) {
        return Optional.empty();
      }
      if (!noted && all && !clock.instant().isBefore(start.plus(quietNote))) {
        noted = true;
        if (!anyRankReported()) {
          err.println(
              "run --local: no rank has joined a process group after "
                  + quietNote.toSeconds()
                  + "s ("
                  + plan.expectedWorld()
                  + " promised); a launch line that never forms the group waits here until"
                  + " --timeout ("
                  + timeout.toSeconds()
                  + "s)");
          err.flush();
        }
      }
      if (clock.instant().isAfter(deadline)) {
        return Optional.of(
            new End(
                "failed (user error): ran past its timeout of " + timeout.toSeconds() + "s", 124));
      }
      TimeUnit.MILLISECONDS.sleep(100);
    }
    return Optional.of(stoppedBy);
  }

  /** Whether any node's probe file holds a line (a rank that reported its world). */
  private boolean anyRankReported() {
    for (LocalNode node : plan.nodes()) {
      Path file = scratch.resolve("probe").resolve(node.name() + ".txt");
      try {
        if (Files.exists(file) && Files.size(file) > 0) {
          return true;
        }
      } catch (IOException e) {
        return true;
      }
    }
    return false;
  }

  private Map<String, Process> snapshot() {
    synchronized (running) {
      return new LinkedHashMap<>(running);
    }
  }

  private Outcome outcome(Optional<End> failure, Duration took) throws IOException {
    Map<String, List<String>> probes = new LinkedHashMap<>();
    for (LocalNode node : plan.nodes()) {
      Path file = scratch.resolve("probe").resolve(node.name() + ".txt");
      probes.put(node.name(), Files.exists(file) ? Files.readAllLines(file) : List.of());
    }
    WorldCheck.Verdict world = WorldCheck.check(plan.expectedWorld(), probes);
    if (failure.isEmpty()) {
      return world.wrong()
          ? new Outcome(
              1,
              "failed (user error): " + world.line().replaceFirst("^world check: FAILED: ", ""),
              world,
              took)
          : new Outcome(0, "succeeded", world, took);
    }
    return new Outcome(failure.get().exitCode(), failure.get().state(), world, took);
  }

  /**
   * SIGTERM to every node's process group, SIGKILL to those still there after {@link #GRACE}. Each
   * group gets SIGTERM once, also when {@link #stop} and {@link #run}'s end both call this: a
   * second SIGTERM cut a TERM trap's cleanup short (it killed the trap's own commands, and the
   * shell's "Terminated" note about them then went to a pipe the JDK had closed when the group's
   * leader exited, so SIGPIPE ended the shell before it had saved).
   */
  private void stopAll() {
    Map<String, Process> all = snapshot();
    all.values().stream().filter(p -> termed.add(p.pid())).forEach(p -> signal("-TERM", p));
    Instant until = Instant.now().plus(GRACE);
    for (Process p : all.values()) {
      try {
        while (groupAlive(p) && Instant.now().isBefore(until)) {
          TimeUnit.MILLISECONDS.sleep(100);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    all.values().forEach(p -> signal("-KILL", p));
  }

  /** Whether any process of the group {@code p} leads is left (its leader or a child). */
  private static boolean groupAlive(Process p) {
    return p.isAlive() || p.descendants().anyMatch(ProcessHandle::isAlive) || groupExists(p.pid());
  }

  private static boolean groupExists(long pgid) {
    return run("kill", "-0", "--", "-" + pgid) == 0;
  }

  private static void signal(String signal, Process p) {
    run("kill", signal, "--", "-" + p.pid());
  }

  private static int run(String... command) {
    try {
      Process k = new ProcessBuilder(command).redirectErrorStream(true).start();
      k.getInputStream().readAllBytes();
      return k.waitFor(10, TimeUnit.SECONDS) ? k.exitValue() : -1;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }
}
