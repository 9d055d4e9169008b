package dev.trainyard.cluster.netns;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Compiled MPI runs executed for real: Debian's Open MPI and OpenSSH on hosts made of network
 * namespaces ({@link NamespaceCluster}), with the compiled ConfigMap (hostfile, launch.sh, node.sh,
 * sshd_config), the compiled SSH Secret at its modes, and the compiled commands and env.
 */
class MpiHostsIT {
  private Path work;

  @BeforeEach
  void tools() throws Exception {
    HostTools.requireMpi();
    work = Files.createDirectories(NetnsWork.dir()).resolve("mpi-" + System.nanoTime());
  }

  private CompiledProject compile(String trainYaml) {
    return CompiledProject.compile(
        work.resolve("repo"), "job", Map.of("train.yaml", trainYaml), Optional.empty());
  }

  @Test
  @DisplayName("run: hostname on 3 nodes x 2 slots prints 6 lines from the 3 node hosts")
  void hostnameOnThreeNodes() {
    CompiledProject project = compile("runtime: mpi\nnodes: 3\nprocsPerNode: 2\nrun: hostname\n");
    try (NamespaceCluster cluster =
        new NamespaceCluster(
            project.run(), ImageStandIn.openMpi(), work.resolve("pods"), project.repo())) {
      MpiRun.Outcome outcome = MpiRun.run(cluster);
      assertEquals(0, outcome.exit(), outcome.output());
      List<String> lines = hostLines(outcome.output(), project).toList();
      assertEquals(6, lines.size(), outcome.output());
      Set<String> hosts = new TreeSet<>(lines);
      String js = project.run().jobSetName();
      assertEquals(
          Set.of(js + "-node-0-0", js + "-node-0-1", js + "-node-0-2"), hosts, outcome.output());
    }
  }

  @Test
  @DisplayName(
      "an mpi4py allreduce over the 6 ranks of 3 nodes gives every rank the sum 1+2+...+6 = 21")
  void mpi4pyAllreduce() {
    HostTools.requireMpi4py();
    CompiledProject project =
        CompiledProject.compile(
            work.resolve("repo"),
            "job",
            Map.of(
                "train.yaml",
                "runtime: mpi\nnodes: 3\nprocsPerNode: 2\nrun: python3 allreduce.py\n",
                "allreduce.py",
                ALLREDUCE),
            Optional.empty());
    try (NamespaceCluster cluster =
        new NamespaceCluster(
            project.run(), ImageStandIn.openMpi(), work.resolve("pods"), project.repo())) {
      MpiRun.Outcome outcome = MpiRun.run(cluster);
      assertEquals(0, outcome.exit(), outcome.output());
      List<String> sums =
          outcome.output().lines().filter(l -> l.startsWith("allreduce ")).sorted().toList();
      assertEquals(6, sums.size(), outcome.output());
      for (int rank = 0; rank < 6; rank++) {
        assertTrue(sums.contains("allreduce rank " + rank + " of 6 sum 21"), outcome.output());
      }
    }
  }

  static final String ALLREDUCE =
      "from mpi4py import MPI\n"
          + "comm = MPI.COMM_WORLD\n"
          + "total = comm.allreduce(comm.Get_rank() + 1, op=MPI.SUM)\n"
          + "print(f'allreduce rank {comm.Get_rank()} of {comm.Get_size()} sum {total}', flush=True)\n";

  /** The mpi runtime plus template env, as a platform team would write it; one copy as root. */
  static String runtime(String name, long uid, String home) {
    return "apiVersion: trainyard.dev/v1\nkind: Runtime\nname: "
        + name
        + "\nversion: 1.0.0-1\n"
        + "description: Open MPI with sshd, template env\nframework: mpi\nimage: docker.io/mpioperator/openmpi:v0.6.0\n"
        + "resources:\n  gpus: 0\n  cpu: \"2\"\n  memory: 4Gi\n  launcherCpu: \"1\"\n  launcherMemory: 1Gi\n"
        + "user:\n  uid: "
        + uid
        + "\n  home: "
        + home
        + "\n"
        + "mpi:\n  implementation: OpenMPI\n  sshPort: 2222\n  launcherAsNode: false\n"
        + "jobset:\n  spec:\n    replicatedJobs:\n"
        + "      - name: node\n        template:\n          spec:\n            template:\n              spec:\n"
        + "                containers:\n                  - name: node\n                    env:\n"
        + "                      - {name: OMP_NUM_THREADS, value: \"1\"}\n"
        + "      - name: launcher\n        template:\n          spec:\n            template:\n              spec:\n"
        + "                containers:\n                  - name: node\n                    env:\n"
        + "                      - {name: OMP_NUM_THREADS, value: \"1\"}\n";
  }

  private Path runtimes(String name, long uid, String home) throws IOException {
    Path dir = Files.createDirectories(work.resolve("runtimes").resolve(name).resolve("1.0.0-1"));
    Files.writeString(dir.resolve("runtime.yaml"), runtime(name, uid, home));
    return work.resolve("runtimes");
  }

  /** Every rank prints the user's, the template's, the image's and the node's variables. */
  static final String ENVCHECK =
      "runtime: mpienv\nnodes: 3\nprocsPerNode: 2\nenv:\n  HF_MODEL: t5-small\n"
          + "run: echo \"envcheck rank=$OMPI_COMM_WORLD_RANK host=$(hostname) HF_MODEL=$HF_MODEL OMP=$OMP_NUM_THREADS"
          + " LD=$LD_LIBRARY_PATH NCCL=$NCCL_SOCKET_IFNAME\"\n";

  @Test
  @DisplayName(
      "a train.yaml env value, the runtime template's env, LD_LIBRARY_PATH and the node's NCCL_* reach every rank started over ssh")
  void environmentReachesRemoteRanks() throws Exception {
    CompiledProject project =
        CompiledProject.compile(
            work.resolve("repo"),
            "job",
            Map.of("train.yaml", ENVCHECK),
            Optional.of(runtimes("mpienv", 1000, "/home/mpiuser")));
    try (NamespaceCluster cluster =
        new NamespaceCluster(
            project.run(), ImageStandIn.openMpi(), work.resolve("pods"), project.repo())) {
      MpiRun.Outcome outcome = MpiRun.run(cluster);
      assertEquals(0, outcome.exit(), outcome.output());
      List<String> lines = outcome.output().lines().filter(l -> l.startsWith("envcheck ")).toList();
      assertEquals(6, lines.size(), outcome.output());
      for (String line : lines) {
        assertTrue(
            line.endsWith(
                " HF_MODEL=t5-small OMP=1 LD=" + ImageStandIn.CUDA_LD_LIBRARY_PATH + " NCCL=eth0"),
            "a rank lacks the forwarded env: " + line + "\n" + outcome.output());
      }
      assertEquals(
          3,
          lines.stream().map(l -> l.replaceAll(".* host=(\\S+) .*", "$1")).distinct().count(),
          outcome.output());
    }
  }

  @Test
  @DisplayName(
      "the premise of the fix: with the same tree but launch.sh exporting only the user's env, ranks started over ssh lack LD_LIBRARY_PATH, NCCL_* and the template env")
  void withoutForwardingTheEnvironmentIsLost() throws Exception {
    CompiledProject project =
        CompiledProject.compile(
            work.resolve("repo"),
            "job",
            Map.of("train.yaml", ENVCHECK),
            Optional.of(runtimes("mpienv", 1000, "/home/mpiuser")));
    // launch.sh as compiled before the fix: no run-time forward list, no template names.
    Map<String, byte[]> mpi = project.run().configMaps().get(project.run().jobSetName() + "-mpi");
    String launch = new String(mpi.get("launch.sh"), StandardCharsets.UTF_8);
    String before = launch.replace(" \"${forward[@]}\"", "").replace(" -x OMP_NUM_THREADS", "");
    assertTrue(
        !before.equals(launch),
        "the compiled launch.sh has the forward list and the template name");
    mpi.put("launch.sh", before.getBytes(StandardCharsets.UTF_8));
    try (NamespaceCluster cluster =
        new NamespaceCluster(
            project.run(), ImageStandIn.openMpi(), work.resolve("pods"), project.repo())) {
      MpiRun.Outcome outcome = MpiRun.run(cluster);
      assertEquals(0, outcome.exit(), outcome.output());
      List<String> lines = outcome.output().lines().filter(l -> l.startsWith("envcheck ")).toList();
      assertEquals(6, lines.size(), outcome.output());
      for (String line : lines) {
        assertTrue(
            line.endsWith(" HF_MODEL=t5-small OMP= LD= NCCL="),
            "sshd gave this rank a fresh environment: " + line);
      }
    }
  }

  @Test
  @DisplayName(
      "a node whose DNS name appears only after the launcher started still joins: launch.sh waits, then all 6 ranks run")
  void lateNodeJoins() {
    CompiledProject project = compile("runtime: mpi\nnodes: 3\nprocsPerNode: 2\nrun: hostname\n");
    try (NamespaceCluster cluster =
        new NamespaceCluster(
            project.run(), ImageStandIn.openMpi(), work.resolve("pods"), project.repo())) {
      List<CompiledRun.PodPlan> nodes = project.run().podsOf("node");
      MpiRun.startNodes(cluster, nodes.subList(0, 2));
      RunningPod launcher = cluster.start(cluster.pod("launcher", 0));
      assertTrue(
          launcher.awaitExit(Duration.ofSeconds(6)).isEmpty(),
          "the launcher must wait for the third node's name, it ended: " + launcher.output());
      assertEquals(0, hostLines(launcher.output(), project).count(), launcher.output());
      RunningPod late = cluster.start(nodes.get(2), false);
      late.awaitListening(MpiRun.SSH_PORT, MpiRun.READY_TIMEOUT);
      cluster.publish(nodes.get(2));
      assertEquals(0, launcher.requireExit(MpiRun.RUN_TIMEOUT), launcher.output());
      assertEquals(6, hostLines(launcher.output(), project).count(), launcher.output());
      assertTrue(
          launcher
              .output()
              .lines()
              .anyMatch(l -> l.equals(nodes.get(2).hostname(project.run().jobSetName()))),
          launcher.output());
    }
  }

  @Test
  @DisplayName(
      "non-root uid 1000 with fsGroup: the key is root:1000 0640 on every pod and ssh accepts it")
  void nonRootKeyAccepted() throws Exception {
    CompiledProject project = compile("runtime: mpi\nnodes: 2\nrun: hostname\n");
    try (NamespaceCluster cluster =
        new NamespaceCluster(
            project.run(), ImageStandIn.openMpi(), work.resolve("pods"), project.repo())) {
      MpiRun.Outcome outcome = MpiRun.run(cluster);
      assertEquals(0, outcome.exit(), outcome.output());
      // The mpi runtime's 2 CPUs per node give 2 slots: 4 ranks on 2 hosts.
      assertEquals(4, hostLines(outcome.output(), project).count(), outcome.output());
      Path key = keyFile(cluster, "launcher", "/home/mpiuser");
      assertEquals(
          "0:1000 640",
          stat(key),
          "kubelet: root-owned, group fsGroup, mode 0640 for the non-root runtime");
    }
  }

  @Test
  @DisplayName("root (uid 0, no fsGroup): the key is root:root 0600 and ssh accepts it")
  void rootKeyAccepted() throws Exception {
    CompiledProject project =
        CompiledProject.compile(
            work.resolve("repo"),
            "job",
            Map.of("train.yaml", "runtime: mpiroot\nnodes: 2\nrun: hostname\n"),
            Optional.of(runtimes("mpiroot", 0, "/root")));
    try (NamespaceCluster cluster =
        new NamespaceCluster(
            project.run(), ImageStandIn.openMpiRoot(), work.resolve("pods"), project.repo())) {
      MpiRun.Outcome outcome = MpiRun.run(cluster);
      assertEquals(0, outcome.exit(), outcome.output());
      assertEquals(4, hostLines(outcome.output(), project).count(), outcome.output());
      assertEquals("0:0 600", stat(keyFile(cluster, "launcher", "/root")));
    }
  }

  @Test
  @DisplayName(
      "root with the launcher's key at 0640 (mpi-operator#429's mode): ssh refuses the key as too open, no rank starts, and the launcher exits non-zero at once: every node pod's sshd answers, so the failure is the run's own")
  void rootWrongModeRefusedByssh() throws Exception {
    CompiledProject project = rootProject();
    keyMode(project.run(), "launcher", 0640);
    try (NamespaceCluster cluster =
        new NamespaceCluster(
            project.run(), ImageStandIn.openMpiRoot(), work.resolve("pods"), project.repo())) {
      MpiRun.Outcome outcome = MpiRun.run(cluster);
      assertTrue(outcome.exit() != 0, outcome.output());
      assertTrue(
          outcome.output().contains("are too open"), "ssh names the mode: " + outcome.output());
      assertEquals(0, hostLines(outcome.output(), project).count(), outcome.output());
      // the real mpirun failed while every node pod's sshd answers: launch.sh ends at once with
      // mpirun's status
      assertTrue(
          outcome
              .output()
              .contains(
                  "every peer pod answers on port 2222, so the failure is this pod's own: the run fails now"),
          outcome.output());
    }
  }

  @Test
  @DisplayName(
      "root with the node's key at 0640: sshd refuses it as its host key and exits, so the node never turns ready")
  void rootWrongModeRefusedBySshd() throws Exception {
    CompiledProject project = rootProject();
    keyMode(project.run(), "node", 0640);
    try (NamespaceCluster cluster =
        new NamespaceCluster(
            project.run(), ImageStandIn.openMpiRoot(), work.resolve("pods"), project.repo())) {
      RunningPod node = cluster.start(cluster.pod("node", 0));
      OptionalInt exit = node.awaitExit(MpiRun.READY_TIMEOUT);
      assertTrue(exit.isPresent() && exit.getAsInt() != 0, "sshd must exit: " + node.output());
      assertTrue(node.output().contains("are too open"), node.output());
      assertTrue(!node.listens(MpiRun.SSH_PORT), node.output());
    }
  }

  private CompiledProject rootProject() throws IOException {
    return CompiledProject.compile(
        work.resolve("repo"),
        "job",
        Map.of("train.yaml", "runtime: mpiroot\nnodes: 2\nrun: hostname\n"),
        Optional.of(runtimes("mpiroot", 0, "/root")));
  }

  /**
   * Sets the private key's item mode in the pods of {@code rjob} (a hand edit of the compiled
   * tree).
   */
  private static void keyMode(CompiledRun run, String rjob, int mode) {
    run.podsOf(rjob).get(0).template().getSpec().getVolumes().stream()
        .filter(v -> v.getSecret() != null)
        .forEach(
            v ->
                v.getSecret().getItems().stream()
                    .filter(i -> i.getKey().equals("ssh-privatekey"))
                    .forEach(i -> i.setMode(mode)));
  }

  /** The output lines that are a node pod's hostname (what `run: hostname` prints per rank). */
  private static Stream<String> hostLines(String output, CompiledProject project) {
    String node = project.run().jobSetName() + "-node-0-";
    return output
        .lines()
        .filter(l -> l.startsWith(node) && l.substring(node.length()).matches("\\d+"));
  }

  private Path keyFile(NamespaceCluster cluster, String rjob, String home) {
    String host = cluster.pod(rjob, 0).hostname(cluster.run().jobSetName());
    return work.resolve("pods")
        .resolve("pods")
        .resolve(host)
        .resolve("volumes")
        .resolve("ssh")
        .resolve("id_trainyard");
  }

  private static String stat(Path file) {
    return HostCommand.check("stat", "-c", "%u:%g %a", file.toString()).trim();
  }
}
