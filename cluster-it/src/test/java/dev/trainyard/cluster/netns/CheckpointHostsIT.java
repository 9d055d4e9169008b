package dev.trainyard.cluster.netns;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileRequest;
import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import dev.trainyard.controller.state.Resumed;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Issue #21 on namespace hosts: a compiled 2-node torch DDP run (CPU, gloo) with {@code
 * checkpoint:} saves to the shared claim folder (what a ReadWriteMany volume is to the pods), loses
 * a node mid-training, and the next attempt (the JobSet's restart: every pod of the attempt
 * stopped, then new pods with {@code jobset.sigs.k8s.io/restart-attempt} 1) resumes from the newest
 * complete checkpoint; a kill during a save never resumes from the cut-off one. Each attempt is a
 * new set of hosts sharing the claim folder, as a restart gets new pods on the same volume. Every
 * assertion is on the program's own output or the volume's files.
 */
class CheckpointHostsIT {
  static final Duration TRAIN_TIMEOUT = PythonHosts.TRAIN_TIMEOUT;

  /** Both programs' start: a gloo group, one seeded linear model under DDP and its optimizer. */
  static final String DDP_SETUP =
      "import torch, torch.distributed as dist\n"
          + "dist.init_process_group('gloo')\n"
          + "rank = dist.get_rank()\n"
          + "torch.manual_seed(0)\n"
          + "model = torch.nn.Linear(20, 1)\n"
          + "ddp = torch.nn.parallel.DistributedDataParallel(model)\n"
          + "opt = torch.optim.SGD(ddp.parameters(), lr=0.01)\n";

  /**
   * The training program: DDP over a fixed regression batch, {@code TOTAL_STEPS} steps; rank 0
   * saves every {@code SAVE_EVERY} steps by the contract (docs/checkpoints.md: state, then {@code
   * COMPLETE}); the save at step {@code SLOW_SAVE_AT} sleeps {@code SLOW_SAVE_SECONDS} before
   * {@code COMPLETE}, so a test can kill it mid-save. It resumes from {@code RESUME_FROM}.
   */
  static final String PROGRAM =
      "import os, time\n"
          + DDP_SETUP
          + "total = int(os.environ['TOTAL_STEPS']); every = int(os.environ['SAVE_EVERY'])\n"
          + "slow_at = int(os.environ['SLOW_SAVE_AT']); slow = float(os.environ['SLOW_SAVE_SECONDS'])\n"
          + "attempt = os.environ['TRAINYARD_ATTEMPT']\n"
          + "start = 0\n"
          + "resume = os.environ.get('RESUME_FROM', '')\n"
          + "if resume:\n"
          + "    t0 = time.monotonic()\n"
          + "    state = torch.load(os.path.join(resume, 'state.pt'))\n"
          + "    model.load_state_dict(state['model']); opt.load_state_dict(state['opt'])\n"
          + "    start = state['step']\n"
          + "    print(f'[rank {rank}] attempt {attempt} resumed at step {start} in"
          + " {(time.monotonic() - t0) * 1000:.1f} ms', flush=True)\n"
          + "else:\n"
          + "    print(f'[rank {rank}] attempt {attempt} starts at step 0', flush=True)\n"
          + "g = torch.Generator().manual_seed(1)\n"
          + "x = torch.randn(64, 20, generator=g); y = x.sum(1, keepdim=True)\n"
          + "for step in range(start, total):\n"
          + "    t0 = time.monotonic()\n"
          + "    loss = torch.nn.functional.mse_loss(ddp(x), y)\n"
          + "    opt.zero_grad(); loss.backward(); opt.step()\n"
          + "    done = step + 1\n"
          + "    print(f'[rank {rank}] step {done} loss {loss.item():.6f}"
          + " {(time.monotonic() - t0) * 1000:.1f} ms', flush=True)\n"
          + "    if rank == 0 and done % every == 0:\n"
          + "        t0 = time.monotonic(); slept = 0\n"
          + "        path = os.path.join(os.environ['CHECKPOINT_DIR'], f'step-{done}')\n"
          + "        os.makedirs(path, exist_ok=True)\n"
          + "        torch.save({'model': model.state_dict(), 'opt': opt.state_dict(), 'step': done},"
          + " os.path.join(path, 'state.pt'))\n"
          + "        if done == slow_at:\n"
          + "            print(f'[rank 0] saving step {done}: state written, COMPLETE not yet', flush=True)\n"
          + "            time.sleep(slow); slept = slow\n"
          + "        open(os.path.join(path, 'COMPLETE'), 'w').close()\n"
          + "        print(f'[rank 0] saved step {done} in {(time.monotonic() - t0 - slept) * 1000:.1f} ms',"
          + " flush=True)\n"
          + "    dist.barrier()\n"
          + "    time.sleep(0.15)\n"
          + "print(f'[rank {rank}] finished at step {total} loss {loss.item():.6f}', flush=True)\n"
          + "dist.destroy_process_group()\n";

  static final String PLATFORM =
      "apiVersion: trainyard.dev/v1\nkind: Platform\nclusters: [{name: local}]\n"
          + "namespaces: [{name: default, cluster: local, defaultQueue: default,"
          + " checkpoints: {size: 10Gi, accessMode: ReadWriteMany}}]\n"
          + "secrets: {policy: plain, allowPlain: true}\n"
          + "queues:\n  resourceFlavors: [{name: cpu}]\n"
          + "  clusterQueues: [{name: default, flavors: [{name: cpu, quota: {cpu: \"64\", memory: 256Gi}}]}]\n"
          + "  localQueues: [{name: default, namespace: default, clusterQueue: default}]\n";

  private Path work;
  private Path venv;
  private final List<NamespaceCluster> clusters = new ArrayList<>();

  @BeforeEach
  void tools() throws IOException {
    HostTools.requireNamespaces();
    venv = HostTools.requireVenv(TorchHostsIT.TORCH_ENV);
    work = Files.createDirectories(NetnsWork.dir()).resolve("ckpt-" + System.nanoTime());
  }

  @AfterEach
  void close() {
    clusters.forEach(NamespaceCluster::close);
  }

  private static String trainYaml(int nodes, String steps) {
    return "nodes: "
        + nodes
        + "\nprocsPerNode: 1\nrun: torchrun train.py\n"
        + "env: {TOTAL_STEPS: \""
        + steps
        + "\", SAVE_EVERY: \"10\", SLOW_SAVE_AT: \"30\", SLOW_SAVE_SECONDS: \"20\"}\n"
        + "checkpoint:\n  saveSeconds: 30\n  keep: 3\n";
  }

  private Path platform() throws IOException {
    Path platform = Files.createDirectories(work).resolve("platform.yaml");
    Files.writeString(platform, PLATFORM);
    return platform;
  }

  private CompiledProject project(String folder, String steps) throws IOException {
    Path platform = platform();
    return CompiledProject.compile(
        work.resolve("repo"),
        folder,
        Map.of("train.py", PROGRAM, "train.yaml", trainYaml(2, steps)),
        b -> b.platformFile(platform));
  }

  /**
   * A new commit of the job's train.yaml (as a pull request merging a change), compiled again: a
   * new run of the same job, so the same checkpoint key.
   */
  private CompiledProject resubmit(String folder, String text, boolean fresh) throws IOException {
    Path repo = work.resolve("repo");
    Path file = repo.resolve("jobs").resolve(folder).resolve("train.yaml");
    Files.writeString(file, text);
    HostCommand.check(
        "git",
        "-C",
        repo.toString(),
        "-c",
        "user.name=Trainyard IT",
        "-c",
        "user.email=it@trainyard.dev",
        "commit",
        "--quiet",
        "-a",
        "-m",
        "resize");
    var result =
        new Compiler(SshSecretProvider.system())
            .compile(CompileRequest.builder(file).platformFile(platform()).fresh(fresh).build());
    assertFalse(result.hasErrors(), result.diagnostics().toString());
    Map<String, String> tree = result.tree().orElseThrow().files();
    return new CompiledProject(repo, CompiledRun.from(tree), new TreeMap<>(tree));
  }

  /**
   * Starts attempt {@code attempt}: new hosts for every pod (their own folders), the claim folder
   * shared with the earlier attempts.
   */
  private List<RunningPod> attempt(CompiledProject project, int attempt) throws IOException {
    Path pods = SharedClaims.podsFolder(work, clusters.size());
    NamespaceCluster cluster =
        new NamespaceCluster(
                project.run(),
                ImageStandIn.python(venv),
                pods,
                project.repo(),
                Map.of(),
                Optional.empty())
            .restartAttempt(attempt);
    clusters.add(cluster);
    return project.run().podsOf("node").stream().map(cluster::start).toList();
  }

  /**
   * The JobSet's restart of attempt {@code pods}: {@code lost} is killed (its node lost), then
   * every other pod gets SIGTERM (the restart deletes them) and ends.
   */
  private static void loseNode(List<RunningPod> pods, int lost) {
    pods.get(lost).kill();
    for (int i = 0; i < pods.size(); i++) {
      if (i != lost) {
        pods.get(i).terminate();
      }
    }
    for (RunningPod pod : pods) {
      assertTrue(pod.awaitExit(Duration.ofSeconds(60)).isPresent(), "ends: " + pod.output());
    }
  }

  private static int lastStep(String output, int rank) {
    Matcher m = Pattern.compile("\\[rank " + rank + "\\] step (\\d+) ").matcher(output);
    int last = 0;
    while (m.find()) {
      last = Integer.parseInt(m.group(1));
    }
    return last;
  }

  private static int firstStep(String output, int rank) {
    Matcher m = Pattern.compile("\\[rank " + rank + "\\] step (\\d+) ").matcher(output);
    return m.find() ? Integer.parseInt(m.group(1)) : -1;
  }

  @Test
  @DisplayName(
      "killed twice (a node lost at step ~25, then a kill during the save of step 30), the run resumes from step 20 each time and finishes its 60 steps; the cut-off step-30 is never resumed from")
  void resumesAfterNodeLossAndCutSave() throws Exception {
    CompiledProject project = project("ckpt", "60");
    String runId = project.run().jobSetName().replaceFirst(".*-", "");
    Path claims = SharedClaims.claims(work);

    List<RunningPod> first = attempt(project, 0);
    first.get(0).awaitOutput("[rank 0] step 25 ", TRAIN_TIMEOUT);
    loseNode(first, 1);
    String out0 = first.get(0).output();
    int killedAt = lastStep(out0, 0);
    assertTrue(out0.contains("trainyard: attempt 0 starts fresh: no complete checkpoint"), out0);
    assertTrue(out0.contains("[rank 0] attempt 0 starts at step 0"), out0);
    assertTrue(out0.contains("[rank 0] saved step 20 in "), out0);
    String key = Files.list(claims).map(p -> p.getFileName().toString()).findFirst().orElseThrow();
    Path runDir = claims.resolve(key).resolve(runId);
    assertTrue(Files.exists(runDir.resolve("step-20").resolve("COMPLETE")));

    List<RunningPod> second = attempt(project, 1);
    second
        .get(0)
        .awaitOutput("[rank 0] saving step 30: state written, COMPLETE not yet", TRAIN_TIMEOUT);
    String out1 = second.get(0).output();
    assertTrue(
        out1.contains("trainyard: attempt 1 resumes from /checkpoints/" + runId + "/step-20"),
        out1);
    assertTrue(out1.contains("[rank 0] attempt 1 resumed at step 20 in "), out1);
    // The line as the status controller reads it: the folder's step, the COMPLETE marker's time.
    String resumeLine =
        out1.lines()
            .filter(l -> l.startsWith("trainyard: attempt 1 resumes from "))
            .findFirst()
            .orElseThrow();
    var resumed = Resumed.parse(resumeLine).orElseThrow();
    assertEquals(20L, resumed.step(), resumeLine);
    assertEquals(
        Files.getLastModifiedTime(runDir.resolve("step-20").resolve("COMPLETE"))
            .toInstant()
            .truncatedTo(ChronoUnit.SECONDS),
        resumed.savedAt(),
        resumeLine);
    // The recording behind controller/src/test/resources/progress/checkpoint-resume.log.
    Path recording = work.resolve("checkpoint-resume.log");
    Files.writeString(recording, out0 + out1);
    System.out.println("CheckpointHostsIT: rank 0's logs of attempts 0 and 1: " + recording);
    assertTrue(second.get(1).output().contains("[rank 1] attempt 1 resumed at step 20 in "));
    assertEquals(21, firstStep(out1, 0), "the step continues, not restarts: " + out1);
    assertEquals(21, firstStep(second.get(1).output(), 1));
    for (RunningPod pod : second) {
      pod.kill();
    }
    for (RunningPod pod : second) {
      assertTrue(pod.awaitExit(Duration.ofSeconds(30)).isPresent());
    }
    assertTrue(Files.exists(runDir.resolve("step-30").resolve("state.pt")), "the cut-off save");
    assertFalse(Files.exists(runDir.resolve("step-30").resolve("COMPLETE")));

    List<RunningPod> third = attempt(project, 2);
    for (RunningPod pod : third) {
      assertEquals(0, pod.requireExit(TRAIN_TIMEOUT), pod.output());
    }
    String out2 = third.get(0).output();
    assertTrue(
        out2.contains("trainyard: attempt 2 resumes from /checkpoints/" + runId + "/step-20"),
        "never the partial step-30: " + out2);
    assertEquals(21, firstStep(out2, 0), out2);
    assertTrue(out2.contains("[rank 0] finished at step 60 "), out2);
    assertTrue(third.get(1).output().contains("[rank 1] finished at step 60 "));
    assertTrue(Files.exists(runDir.resolve("step-60").resolve("COMPLETE")));

    System.out.println(
        "CheckpointHostsIT: node lost at step "
            + killedAt
            + ": steps repeated with checkpoint "
            + (killedAt - 20)
            + " (without: "
            + killedAt
            + "); "
            + timings(out0 + out1 + out2));
  }

  @Test
  @DisplayName(
      "a re-submitted run resized from 2 to 3 nodes resumes from the last run's newest checkpoint (DDP state re-shards) and says so; --fresh starts at step 0 beside it")
  void resizedRunResumes() throws Exception {
    CompiledProject first = project("resize", "30");
    for (RunningPod pod : attempt(first, 0)) {
      assertEquals(0, pod.requireExit(TRAIN_TIMEOUT), pod.output());
    }
    String oldRun = first.run().jobSetName().replaceFirst(".*-", "");
    CompiledProject resized = resubmit("resize", trainYaml(3, "50"), false);
    String newRun = resized.run().jobSetName().replaceFirst(".*-", "");
    assertTrue(!oldRun.equals(newRun), "a new run");
    List<RunningPod> pods = attempt(resized, 0);
    assertEquals(3, pods.size());
    for (RunningPod pod : pods) {
      assertEquals(0, pod.requireExit(TRAIN_TIMEOUT), pod.output());
    }
    String out = pods.get(0).output();
    assertTrue(
        out.contains("trainyard: attempt 0 resumes from /checkpoints/" + oldRun + "/step-30"), out);
    for (int rank = 0; rank < 3; rank++) {
      String o = pods.get(rank).output();
      assertTrue(o.contains("[rank " + rank + "] attempt 0 resumed at step 30 in "), o);
      assertEquals(31, firstStep(o, rank), o);
      assertTrue(o.contains("[rank " + rank + "] finished at step 50 "), o);
    }
    Path claim = Files.list(SharedClaims.claims(work)).findFirst().orElseThrow();
    assertTrue(Files.exists(claim.resolve(newRun).resolve("step-50").resolve("COMPLETE")));
    assertTrue(Files.exists(claim.resolve(oldRun).resolve("step-10").resolve("COMPLETE")));

    CompiledProject fresh = resubmit("resize", trainYaml(2, "50").replace("50", "51"), true);
    List<RunningPod> again = attempt(fresh, 0);
    again.get(0).awaitOutput("[rank 0] step 1 ", TRAIN_TIMEOUT);
    String f = again.get(0).output();
    assertTrue(f.contains("trainyard: attempt 0 starts fresh: no complete checkpoint"), f);
    assertTrue(f.contains("[rank 0] attempt 0 starts at step 0"), f);
    again.forEach(RunningPod::kill);
    assertFalse(
        Files.exists(claim.resolve(oldRun).resolve("step-10")),
        "keep 3: node 0 deleted the complete checkpoints beyond the newest 3 (10 and 20)");
    assertFalse(Files.exists(claim.resolve(oldRun).resolve("step-20")));
    assertTrue(Files.exists(claim.resolve(oldRun).resolve("step-30").resolve("COMPLETE")));
  }

  /**
   * A program that saves on SIGTERM (as HF's {@code enable_jit_checkpoint} does): after each step
   * it keeps a snapshot (step and state) in one assignment; the SIGTERM handler of rank 0 writes
   * that snapshot by the contract and ends the process; other ranks just end. It resumes from
   * {@code RESUME_FROM}.
   */
  static final String SAVES_ON_SIGTERM =
      "import os, signal, time\n"
          + DDP_SETUP
          + "start = 0\n"
          + "resume = os.environ.get('RESUME_FROM', '')\n"
          + "if resume:\n"
          + "    state = torch.load(os.path.join(resume, 'state.pt'))\n"
          + "    model.load_state_dict(state['model']); start = state['step']\n"
          + "    print(f'[rank {rank}] attempt {os.environ[\"TRAINYARD_ATTEMPT\"]} resumed at step {start}', flush=True)\n"
          + "snapshot = (start, {k: v.clone() for k, v in model.state_dict().items()})\n"
          + "def on_term(signum, frame):\n"
          + "    if rank == 0:\n"
          + "        t0 = time.monotonic()\n"
          + "        step, state = snapshot\n"
          + "        path = os.path.join(os.environ['CHECKPOINT_DIR'], f'step-{step}')\n"
          + "        os.makedirs(path, exist_ok=True)\n"
          + "        torch.save({'model': state, 'step': step}, os.path.join(path, 'state.pt'))\n"
          + "        open(os.path.join(path, 'COMPLETE'), 'w').close()\n"
          + "        print(f'[rank 0] SIGTERM: saved step {step} in {(time.monotonic() - t0) * 1000:.1f} ms', flush=True)\n"
          + "    os._exit(143)\n"
          + "signal.signal(signal.SIGTERM, on_term)\n"
          + "g = torch.Generator().manual_seed(1)\n"
          + "x = torch.randn(64, 20, generator=g); y = x.sum(1, keepdim=True)\n"
          + "for step in range(start, 100000):\n"
          + "    loss = torch.nn.functional.mse_loss(ddp(x), y)\n"
          + "    opt.zero_grad(); loss.backward(); opt.step()\n"
          + "    snapshot = (step + 1, {k: v.clone() for k, v in model.state_dict().items()})\n"
          + "    print(f'[rank {rank}] step {step + 1} done', flush=True)\n"
          + "    if step + 1 >= int(os.environ['TOTAL_STEPS']):\n"
          + "        break\n"
          + "    time.sleep(0.15)\n"
          + "print(f'[rank {rank}] finished', flush=True)\n"
          + "dist.destroy_process_group()\n"
          // torch 2.13's gloo once aborted at interpreter exit after all of the above ("terminate
          // called without an active exception", SIGABRT, exit -6 under torchrun): the run's
          // work is done here, so the script ends without the interpreter's teardown.
          + "os._exit(0)\n";

  @Test
  @DisplayName(
      "SIGTERM first (a preemption deleting every pod): torchrun passes it on, rank 0 saves the step it reached within saveSeconds, and the next attempt resumes there: no step repeated")
  void sigtermSaveLosesNoStep() throws Exception {
    Path platform = platform();
    CompiledProject project =
        CompiledProject.compile(
            work.resolve("repo"),
            "term",
            Map.of(
                "train.py",
                SAVES_ON_SIGTERM,
                "train.yaml",
                "nodes: 2\nprocsPerNode: 1\nrun: torchrun train.py\nenv: {TOTAL_STEPS: \"40\"}\n"
                    + "checkpoint:\n  saveSeconds: 30\n"),
            b -> b.platformFile(platform));
    List<RunningPod> first = attempt(project, 0);
    first.get(0).awaitOutput("[rank 0] step 12 done", TRAIN_TIMEOUT);
    long t0 = System.nanoTime();
    first.forEach(RunningPod::terminate);
    for (RunningPod pod : first) {
      assertTrue(pod.awaitExit(Duration.ofSeconds(60)).isPresent(), "ends: " + pod.output());
    }
    long stopMs = (System.nanoTime() - t0) / 1_000_000;
    String out0 = first.get(0).output();
    Matcher saved = Pattern.compile("\\[rank 0\\] SIGTERM: saved step (\\d+) in ").matcher(out0);
    assertTrue(saved.find(), out0);
    int step = Integer.parseInt(saved.group(1));
    assertEquals(lastStep(out0, 0), step, "the step it reached: " + out0);
    assertTrue(stopMs < 30_000, "within saveSeconds: " + stopMs + " ms");
    List<RunningPod> second = attempt(project, 1);
    for (RunningPod pod : second) {
      assertEquals(0, pod.requireExit(TRAIN_TIMEOUT), pod.output());
    }
    String out1 = second.get(0).output();
    assertTrue(out1.contains("[rank 0] attempt 1 resumed at step " + step), out1);
    assertEquals(step + 1, firstStep(out1, 0), out1);
    System.out.println(
        "CheckpointHostsIT: SIGTERM at step "
            + step
            + ": saved and both pods ended "
            + stopMs
            + " ms after SIGTERM; steps repeated 0");
  }

  /** Mean step, save and restore times the program printed. */
  private static String timings(String output) {
    return "step "
        + mean(output, "\\[rank 0\\] step \\d+ loss [0-9.]+ ([0-9.]+) ms")
        + " ms, save "
        + mean(output, "saved step \\d+ in ([0-9.]+) ms")
        + " ms, restore "
        + mean(output, "\\[rank 0\\] attempt \\d+ resumed at step \\d+ in ([0-9.]+) ms")
        + " ms (means)";
  }

  private static String mean(String output, String regex) {
    Matcher m = Pattern.compile(regex).matcher(output);
    double sum = 0;
    int n = 0;
    while (m.find()) {
      sum += Double.parseDouble(m.group(1));
      n++;
    }
    return n == 0 ? "n/a" : String.format(Locale.ROOT, "%.1f (n=%d)", sum / n, n);
  }
}
