package dev.trainyard.cluster.netns;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.controller.state.Resumed;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Issue #21 for MPI runtimes on namespace hosts: a compiled {@code runtime: mpi} run of 2 nodes × 2
 * slots with {@code checkpoint:} (Debian's Open MPI 4.1 and OpenSSH, an mpi4py program), every pod
 * on the shared claim folder. The launcher finds the newest complete checkpoint once per attempt,
 * logs the resume line, and mpirun passes {@code CHECKPOINT_DIR}, {@code TRAINYARD_ATTEMPT} and
 * {@code RESUME_FROM} to the ranks it starts over ssh. Each attempt is a new set of hosts on the
 * same claim folder, as a JobSet restart makes new pods on the same volume. Every assertion is on
 * the program's own output, the launcher's log or the volume's files.
 */
class MpiCheckpointHostsIT {
  static final Duration RUN_TIMEOUT = Duration.ofSeconds(180);

  /**
   * The program: each step adds the allreduce of {@code rank + 1} over the 4 ranks (10) to a weight
   * every rank holds, so after {@code n} steps the weight is {@code 10 n} only when a resumed run
   * neither repeats nor skips a step. Rank 0 saves every {@code SAVE_EVERY} steps by the contract
   * (state, then {@code COMPLETE}). On SIGTERM every rank sets a flag; after each step the ranks
   * agree on it (an allreduce, so all stop at the same step) and rank 0 saves that step, taking
   * {@code SAVE_DELAY} seconds more before {@code COMPLETE} (a slow disk): longer than Open MPI's
   * default second between SIGTERM and SIGKILL. The other ranks exit at once (143), so Open MPI
   * aborts the job while rank 0 still saves: its daemon sends rank 0 SIGTERM again and SIGKILL
   * {@code odls_base_sigkill_timeout} seconds later.
   */
  static final String PROGRAM =
      "import json, os, signal, time\n"
          + "from mpi4py import MPI\n"
          + "comm = MPI.COMM_WORLD\n"
          + "rank = comm.Get_rank()\n"
          + "total = int(os.environ['TOTAL_STEPS']); every = int(os.environ['SAVE_EVERY'])\n"
          + "delay = float(os.environ['SAVE_DELAY'])\n"
          + "attempt = os.environ['TRAINYARD_ATTEMPT']; resume = os.environ.get('RESUME_FROM', '')\n"
          + "print(f'[rank {rank}] attempt {attempt} CHECKPOINT_DIR={os.environ[\"CHECKPOINT_DIR\"]}"
          + " RESUME_FROM={resume}', flush=True)\n"
          + "step, weight = 0, 0\n"
          + "if resume:\n"
          + "    with open(os.path.join(resume, 'state.json')) as f:\n"
          + "        state = json.load(f)\n"
          + "    step, weight = state['step'], state['weight']\n"
          + "    print(f'[rank {rank}] attempt {attempt} resumed at step {step}', flush=True)\n"
          + "else:\n"
          + "    print(f'[rank {rank}] attempt {attempt} starts at step 0', flush=True)\n"
          + "def save(slow):\n"
          + "    t0 = time.monotonic()\n"
          + "    path = os.path.join(os.environ['CHECKPOINT_DIR'], f'step-{step}')\n"
          + "    os.makedirs(path, exist_ok=True)\n"
          + "    with open(os.path.join(path, 'state.json'), 'w') as f:\n"
          + "        json.dump({'step': step, 'weight': weight}, f)\n"
          + "    if slow:\n"
          + "        time.sleep(delay)\n"
          + "    open(os.path.join(path, 'COMPLETE'), 'w').close()\n"
          + "    return (time.monotonic() - t0) * 1000\n"
          + "term = [0]\n"
          + "signal.signal(signal.SIGTERM, lambda s, f: term.__setitem__(0, 1))\n"
          + "while step < total:\n"
          + "    weight += comm.allreduce(rank + 1, op=MPI.SUM)\n"
          + "    step += 1\n"
          + "    print(f'[rank {rank}] step {step} weight {weight}', flush=True)\n"
          + "    if rank == 0 and step % every == 0:\n"
          + "        print(f'[rank 0] saved step {step} in {save(False):.1f} ms', flush=True)\n"
          + "    time.sleep(0.2)\n"
          + "    if comm.allreduce(term[0], op=MPI.MAX):\n"
          + "        if rank == 0:\n"
          + "            print(f'[rank 0] SIGTERM: saved step {step} in {save(True):.1f} ms', flush=True)\n"
          + "        os._exit(143)\n"
          + "print(f'[rank {rank}] finished at step {step} weight {weight}', flush=True)\n";

  private Path work;
  private final List<NamespaceCluster> clusters = new ArrayList<>();

  /** One attempt's pods: the node pods, then the launcher. */
  private record Attempt(List<RunningPod> nodes, RunningPod launcher) {
    List<RunningPod> all() {
      List<RunningPod> all = new ArrayList<>(nodes);
      all.add(launcher);
      return all;
    }
  }

  @BeforeEach
  void tools() throws IOException {
    HostTools.requireMpi();
    HostTools.requireMpi4py();
    work = Files.createDirectories(NetnsWork.dir()).resolve("mpi-ckpt-" + System.nanoTime());
  }

  @AfterEach
  void close() {
    clusters.forEach(NamespaceCluster::close);
  }

  private CompiledProject project(String folder, String totalSteps) throws IOException {
    Path platform = Files.createDirectories(work).resolve("platform.yaml");
    Files.writeString(platform, CheckpointHostsIT.PLATFORM);
    return CompiledProject.compile(
        work.resolve("repo"),
        folder,
        Map.of(
            "train.py",
            PROGRAM,
            "train.yaml",
            "runtime: mpi\nnodes: 2\nrun: python3 train.py\n"
                + "env: {TOTAL_STEPS: \""
                + totalSteps
                + "\", SAVE_EVERY: \"10\", SAVE_DELAY: \"3\"}\n"
                + "checkpoint:\n  saveSeconds: 30\n"),
        b -> b.platformFile(platform));
  }

  /**
   * Starts attempt {@code attempt} in JobSet order (node pods, then the launcher once every sshd
   * listens) on new hosts that share the claim folder with the earlier attempts.
   */
  private Attempt attempt(CompiledProject project, int attempt) throws IOException {
    Path pods = SharedClaims.podsFolder(work, clusters.size());
    NamespaceCluster cluster =
        new NamespaceCluster(project.run(), ImageStandIn.openMpi(), pods, project.repo())
            .restartAttempt(attempt);
    clusters.add(cluster);
    List<RunningPod> nodes = MpiRun.startNodes(cluster, cluster.run().podsOf("node"));
    return new Attempt(nodes, cluster.start(cluster.pod("launcher", 0)));
  }

  private Path runDir(CompiledProject project) throws IOException {
    String runId = project.run().jobSetName().replaceFirst(".*-", "");
    try (var claims = Files.list(SharedClaims.claims(work))) {
      return claims.findFirst().orElseThrow().resolve(runId);
    }
  }

  @Test
  @DisplayName(
      "MPI: a node lost at step ~25 fails mpirun; the next attempt's launcher resumes from step-20 for all 4 ranks over ssh, and the run finishes its 40 steps with the weight of exactly 40 steps")
  void resumesAfterNodeLoss() throws Exception {
    CompiledProject project = project("mpickpt", "40");
    String runId = project.run().jobSetName().replaceFirst(".*-", "");
    Attempt first = attempt(project, 0);
    first.launcher().awaitOutput("[rank 0] step 25 ", RUN_TIMEOUT);
    first.nodes().get(1).kill();
    // The JobSet's restart deletes the other pods: SIGTERM.
    first.launcher().terminate();
    first.nodes().get(0).terminate();
    for (RunningPod pod : first.all()) {
      assertTrue(pod.awaitExit(Duration.ofSeconds(60)).isPresent(), "ends: " + pod.output());
    }
    String out0 = first.launcher().output();
    assertTrue(out0.contains("trainyard: attempt 0 starts fresh: no complete checkpoint"), out0);
    for (int rank = 0; rank < 4; rank++) {
      assertTrue(
          out0.contains(
              "[rank "
                  + rank
                  + "] attempt 0 CHECKPOINT_DIR=/checkpoints/"
                  + runId
                  + " RESUME_FROM=\n"),
          "every rank started over ssh gets the contract's variables: " + out0);
    }
    assertTrue(out0.contains("[rank 0] saved step 20 in "), out0);
    Path step20 = runDir(project).resolve("step-20").resolve("COMPLETE");
    assertTrue(Files.exists(step20), "the launcher made CHECKPOINT_DIR, rank 0 saved into it");

    Attempt second = attempt(project, 1);
    int exit = second.launcher().requireExit(RUN_TIMEOUT);
    String out1 = second.launcher().output();
    assertEquals(0, exit, out1);
    String resumeLine =
        out1.lines()
            .filter(l -> l.startsWith("trainyard: attempt 1 resumes from "))
            .findFirst()
            .orElseThrow(
                () -> new AssertionError("no resume line in the launcher's log:\n" + out1));
    assertTrue(
        resumeLine.startsWith(
            "trainyard: attempt 1 resumes from /checkpoints/" + runId + "/step-20 (saved "),
        resumeLine);
    var resumed = Resumed.parse(resumeLine).orElseThrow();
    assertEquals(20L, resumed.step(), resumeLine);
    assertEquals(
        Files.getLastModifiedTime(step20).toInstant().truncatedTo(ChronoUnit.SECONDS),
        resumed.savedAt(),
        resumeLine);
    for (int rank = 0; rank < 4; rank++) {
      String prefix = "[rank " + rank + "] ";
      assertTrue(
          out1.contains(prefix + "attempt 1 resumed at step 20\n"),
          "RESUME_FROM and TRAINYARD_ATTEMPT reached rank " + rank + ": " + out1);
      assertEquals(21, firstStep(out1, rank), "the step continues, not restarts: " + out1);
      assertTrue(
          out1.contains(prefix + "finished at step 40 weight 400\n"),
          "40 steps of 10 each, none repeated: " + out1);
    }
    assertTrue(Files.exists(runDir(project).resolve("step-40").resolve("COMPLETE")));
    System.out.println(
        "MpiCheckpointHostsIT: node lost at step "
            + lastStep(out0)
            + ": steps repeated with checkpoint "
            + (lastStep(out0) - 20)
            + " (without: "
            + lastStep(out0)
            + ")");
  }

  @Test
  @DisplayName(
      "MPI, SIGTERM to every pod (a preemption): each node pod passes it to its ranks and stays up until rank 0's 3 s save is COMPLETE, which Open MPI's abort (the other ranks exited) kills only after saveSeconds, not its default 1 s; the next attempt resumes at that step: none repeated")
  void sigtermSaveReachesTheRanks() throws Exception {
    CompiledProject project = project("mpiterm", "30");
    Attempt first = attempt(project, 0);
    first.launcher().awaitOutput("[rank 0] step 12 ", RUN_TIMEOUT);
    first.all().forEach(RunningPod::terminate);
    Instant node0Ended = null;
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (first.all().stream().anyMatch(p -> p.process().isAlive())) {
      if (node0Ended == null && !first.nodes().get(0).process().isAlive()) {
        node0Ended = Instant.now();
      }
      assertTrue(System.nanoTime() < deadline, "every pod ends within 60 s");
      Thread.sleep(50);
    }
    if (node0Ended == null) {
      node0Ended = Instant.now();
    }
    String out0 = first.launcher().output();
    Matcher saved =
        Pattern.compile("\\[rank 0\\] SIGTERM: saved step (\\d+) in ([0-9.]+) ms").matcher(out0);
    assertTrue(
        saved.find(),
        "rank 0 got SIGTERM through mpirun and finished its save: "
            + out0
            + "\nnode 0:\n"
            + first.nodes().get(0).output()
            + "\nnode 1:\n"
            + first.nodes().get(1).output());
    int step = Integer.parseInt(saved.group(1));
    assertTrue(Double.parseDouble(saved.group(2)) >= 3000, "the save's 3 s: " + out0);
    Path complete = runDir(project).resolve("step-" + step).resolve("COMPLETE");
    assertTrue(Files.exists(complete), out0);
    assertTrue(
        Files.getLastModifiedTime(complete).toInstant().isBefore(node0Ended),
        "node 0's pod (whose ranks die with it in Kubernetes) ended after the save");
    assertTrue(
        first
            .nodes()
            .get(0)
            .output()
            .contains("trainyard: SIGTERM: passed on to the ranks here (pids "),
        first.nodes().get(0).output());

    Attempt second = attempt(project, 1);
    assertEquals(0, second.launcher().requireExit(RUN_TIMEOUT), second.launcher().output());
    String out1 = second.launcher().output();
    for (int rank = 0; rank < 4; rank++) {
      assertTrue(
          out1.contains("[rank " + rank + "] attempt 1 resumed at step " + step + "\n"), out1);
      assertEquals(step + 1, firstStep(out1, rank), out1);
      assertTrue(out1.contains("[rank " + rank + "] finished at step 30 weight 300\n"), out1);
    }
    System.out.println(
        "MpiCheckpointHostsIT: SIGTERM at step "
            + step
            + ": rank 0's save took "
            + saved.group(2)
            + " ms (3 s of it the program's delay); steps repeated 0");
  }

  @Test
  @DisplayName(
      "the premise of odls_base_sigkill_timeout: the same SIGTERM with the launcher's timeout removed (Open MPI's default 1 s) kills rank 0 in its 3 s save, which stays incomplete")
  void withoutTheTimeoutTheSaveIsCut() throws Exception {
    CompiledProject project = project("mpicut", "30");
    var env =
        project
            .run()
            .podsOf("launcher")
            .get(0)
            .template()
            .getSpec()
            .getContainers()
            .get(0)
            .getEnv();
    assertTrue(
        env.removeIf(e -> e.getName().endsWith("_MCA_odls_base_sigkill_timeout")), "compiled");
    Attempt first = attempt(project, 0);
    first.launcher().awaitOutput("[rank 0] step 12 ", RUN_TIMEOUT);
    first.all().forEach(RunningPod::terminate);
    for (RunningPod pod : first.all()) {
      assertTrue(pod.awaitExit(Duration.ofSeconds(60)).isPresent(), "ends: " + pod.output());
    }
    String out0 = first.launcher().output();
    assertTrue(!out0.contains("[rank 0] SIGTERM: saved step"), out0);
    try (var saves = Files.list(runDir(project))) {
      List<Path> cut =
          saves
              .filter(
                  d ->
                      Files.exists(d.resolve("state.json")) && !Files.exists(d.resolve("COMPLETE")))
              .toList();
      assertEquals(1, cut.size(), "the SIGTERM save, cut off: " + cut + "\n" + out0);
    }
  }

  private static int firstStep(String output, int rank) {
    Matcher m = Pattern.compile("\\[rank " + rank + "\\] step (\\d+) ").matcher(output);
    return m.find() ? Integer.parseInt(m.group(1)) : -1;
  }

  private static int lastStep(String output) {
    Matcher m = Pattern.compile("\\[rank 0\\] step (\\d+) ").matcher(output);
    int last = 0;
    while (m.find()) {
      last = Integer.parseInt(m.group(1));
    }
    return last;
  }
}
