package dev.trainyard.cluster.netns;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.cluster.netns.CompiledRun.PodPlan;
import io.fabric8.kubernetes.api.model.EnvVar;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Compiled torch runs executed for real on 2 namespace hosts: torch from PyPI (scripts/python-envs)
 * on the CPU with gloo, each pod with exactly its compiled command and env (PET_*, MASTER_*),
 * nothing added.
 */
class TorchHostsIT {
  static final String TORCH_ENV = "torch-2.13.0";
  static final Duration TRAIN_TIMEOUT = PythonHosts.TRAIN_TIMEOUT;

  /**
   * How long the --standalone line must stay stuck: longer than a group of 2 takes to form here (~5
   * s).
   */
  static final Duration HANG_WINDOW = Duration.ofSeconds(25);

  private PythonHosts hosts;

  @BeforeEach
  void tools() throws IOException {
    hosts = PythonHosts.open(TORCH_ENV, "torch");
  }

  @AfterEach
  void closeHosts() throws Exception {
    hosts.close();
  }

  @Test
  @DisplayName(
      "examples/pytorch-ddp, unmodified (default platform: its ReadWriteOnce checkpoint claim shared on one machine), trains 5 epochs across 2 hosts with gloo: each rank sees half the batches and rank 0 writes the snapshot into CHECKPOINT_DIR")
  void pytorchDdpTrains() throws IOException {
    CompiledProject project =
        CompiledProject.example(
            hosts.work().resolve("repo"), PythonHosts.REPO_ROOT, "pytorch-ddp", Optional.empty());
    List<RunningPod> pods = hosts.start(project, "node");
    for (RunningPod pod : pods) {
      assertEquals(0, pod.requireExit(TRAIN_TIMEOUT), pod.output());
    }
    // 2048 samples / batch 32 = 64 batches; DistributedSampler gives each of the 2 ranks 32.
    assertTrue(pods.get(0).output().contains("[rank 0] epoch 4: 32 batches"), pods.get(0).output());
    assertTrue(pods.get(1).output().contains("[rank 1] epoch 4: 32 batches"), pods.get(1).output());
    String runId = project.run().jobSetName().replaceFirst(".*-", "");
    assertTrue(
        pods.get(0)
            .output()
            .contains("epoch 4: snapshot saved to /checkpoints/" + runId + "/snapshot.pt"),
        pods.get(0).output());
    assertTrue(
        pods.get(0).output().contains("trainyard: attempt 0 starts fresh: no complete checkpoint"),
        pods.get(0).output());
    Path claims = hosts.work().resolve("pods").resolve("claims");
    try (var keys = Files.list(claims)) {
      Path claim = keys.findFirst().orElseThrow();
      assertTrue(
          claim.getFileName().toString().startsWith("pytorch-ddp-"), "the job's claim: " + claim);
      assertTrue(Files.exists(claim.resolve(runId).resolve("snapshot.pt")));
    }
  }

  static final String GROUP =
      "import torch\nimport torch.distributed as dist\n"
          + "dist.init_process_group('gloo')\n"
          + "t = torch.ones(1) * (dist.get_rank() + 1)\n"
          + "dist.all_reduce(t)\n"
          + "print(f'group rank {dist.get_rank()} of {dist.get_world_size()} sum {int(t.item())}', flush=True)\n"
          + "dist.destroy_process_group()\n";

  private CompiledProject rendezvousProject() {
    return CompiledProject.compile(
        hosts.work().resolve("repo"),
        "rdzv",
        Map.of(
            "group.py",
            GROUP,
            "train.yaml",
            "nodes: 2\nprocsPerNode: 1\nrun: torchrun --nnodes 2 --nproc_per_node 1 --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT group.py\n"),
        Optional.empty());
  }

  @Test
  @DisplayName(
      "the lint's form `--rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT` on 2 nodes forms one group of 2 (all_reduce 1+2 = 3)")
  void rendezvousEndpointFormsOneGroup() {
    CompiledProject project = rendezvousProject();
    List<RunningPod> pods = hosts.start(project, "node");
    String all = "";
    for (RunningPod pod : pods) {
      assertEquals(0, pod.requireExit(TRAIN_TIMEOUT), pod.output());
      all += pod.output();
    }
    assertTrue(
        all.contains("group rank 0 of 2 sum 3") && all.contains("group rank 1 of 2 sum 3"), all);
  }

  @Test
  @DisplayName(
      "a `tune run`-style `torchrun --standalone --nnodes 2` line on 2 nodes forms no group: both nodes still wait after 25 s")
  void standaloneHangs() {
    CompiledProject project = rendezvousProject();
    // The compiler refuses --standalone with nodes > 1 (RunLint), so the run line is set by hand in
    // the
    // compiled env: what `tune run --nnodes 2 ...` executes (torchtune _cli/run.py forces
    // --standalone).
    // One pod template serves every pod of the replicated job.
    PodPlan node = project.run().podsOf("node").get(0);
    for (EnvVar var : node.template().getSpec().getContainers().get(0).getEnv()) {
      if (var.getName().equals("TRAINYARD_RUN")) {
        var.setValue("torchrun --standalone --nnodes 2 --nproc_per_node 1 group.py");
      }
    }
    List<RunningPod> pods = hosts.start(project, "node");
    assertTrue(
        pods.get(0).awaitExit(HANG_WINDOW).isEmpty(),
        "node 0 must still wait: " + pods.get(0).output());
    assertTrue(
        pods.get(1).awaitExit(Duration.ofSeconds(1)).isEmpty(),
        "node 1 must still wait: " + pods.get(1).output());
    for (RunningPod pod : pods) {
      assertTrue(!pod.output().contains("group rank"), "no group formed: " + pod.output());
    }
  }

  @Test
  @DisplayName(
      "issue #19: `torchrun --rdzv_backend=c10d group.py` without an endpoint, as compiled, forms one group of 2 on 2 hosts: the pods' PET_RDZV_ENDPOINT is node 0")
  void c10dWithoutEndpointFormsOneGroup() {
    CompiledProject project =
        CompiledProject.compile(
            hosts.work().resolve("repo"),
            "c10d",
            Map.of(
                "group.py",
                GROUP,
                "train.yaml",
                "nodes: 2\nprocsPerNode: 1\nrun: torchrun --rdzv_backend=c10d group.py\n"),
            Optional.empty());
    List<RunningPod> pods = hosts.start(project, "node");
    String all = "";
    for (RunningPod pod : pods) {
      assertEquals(0, pod.requireExit(TRAIN_TIMEOUT), pod.output());
      all += pod.output();
    }
    assertTrue(
        all.contains("group rank 0 of 2 sum 3") && all.contains("group rank 1 of 2 sum 3"), all);
  }

  /**
   * Joins the group, then all-reduces every 0.2 s for 5 minutes: a rank whose peer goes fails in
   * its next collective.
   */
  static final String COLLECTIVES =
      "import time, torch\nimport torch.distributed as dist\n"
          + "dist.init_process_group('gloo')\n"
          + "print(f'formed {dist.get_world_size()}', flush=True)\n"
          + "for _ in range(1500):\n    dist.all_reduce(torch.ones(1)); time.sleep(0.2)\n";

  @Test
  @DisplayName(
      "issue #19: a rank whose command exits 1 at start ends its pod at once, saying the failure is its own (the Job then fails the run); its peer still waits in the rendezvous")
  void crashedRankEndsAtOnce() {
    CompiledProject project =
        CompiledProject.compile(
            hosts.work().resolve("repo"),
            "crash",
            Map.of(
                "group.py",
                GROUP,
                "train.yaml",
                "nodes: 2\nprocsPerNode: 1\nrun: if [ \"$NODE_RANK\" = 1 ]; then exit 1; fi; torchrun group.py\n"),
            Optional.empty());
    List<RunningPod> pods = hosts.start(project, "node");
    long t0 = System.nanoTime();
    assertEquals(1, pods.get(1).requireExit(Duration.ofSeconds(30)), pods.get(1).output());
    long ms = (System.nanoTime() - t0) / 1_000_000;
    System.out.println("TorchHostsIT: the crashed rank's pod ended " + ms + " ms after start");
    assertTrue(
        pods.get(1).output().contains("so the failure is this pod's own: the run fails now"),
        pods.get(1).output());
    assertTrue(ms < 20_000, "no wait: " + ms + " ms");
    assertTrue(
        pods.get(0).awaitExit(Duration.ofSeconds(2)).isEmpty(),
        "node 0 waits for its peer: " + pods.get(0).output());
  }

  @Test
  @DisplayName(
      "issue #19: SIGTERM to one pod mid-run (the kubelet stopping an evicted pod): its peer's torchrun fails in the next collective, and the peer's script finds the port refusing and waits 45 s instead of failing the run first")
  void survivorOfAStoppedPeerWaits() throws InterruptedException {
    CompiledProject project =
        CompiledProject.compile(
            hosts.work().resolve("repo"),
            "evict",
            Map.of(
                "loop.py",
                COLLECTIVES,
                "train.yaml",
                "nodes: 2\nprocsPerNode: 1\nrun: torchrun loop.py\n"),
            Optional.empty());
    List<RunningPod> pods = hosts.start(project, "node");
    pods.get(0).awaitOutput("formed 2", TRAIN_TIMEOUT);
    pods.get(1).awaitOutput("formed 2", TRAIN_TIMEOUT);
    pods.get(1).terminate();
    assertTrue(
        pods.get(1).awaitExit(Duration.ofSeconds(30)).isPresent(),
        "the stopped pod ends: " + pods.get(1).output());
    pods.get(0).awaitOutput("; waiting ", Duration.ofSeconds(90));
    String survivor = pods.get(0).output();
    assertTrue(
        survivor.contains(
            "-node-0-1."
                + project.run().subdomain()
                + ":29499 refuses or has no address (its pod is gone or ending);"
                + " waiting 45s"),
        survivor);
    assertTrue(
        pods.get(0).awaitExit(Duration.ofSeconds(5)).isEmpty(),
        "the survivor still waits: " + survivor);
  }
}
