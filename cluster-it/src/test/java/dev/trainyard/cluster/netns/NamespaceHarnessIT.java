package dev.trainyard.cluster.netns;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The namespace harness itself: what a pod sees (hostname, DNS names, addresses only inside the
 * namespaces, uid and groups, volume modes), and that closing it leaves nothing behind, also when
 * the test fails while pods still run.
 */
class NamespaceHarnessIT {
  private Path work;

  @BeforeEach
  void tools() throws Exception {
    HostTools.requireNamespaces();
    work = Files.createDirectories(NetnsWork.dir()).resolve("harness-" + System.nanoTime());
  }

  private CompiledProject compile(String run) {
    return CompiledProject.compile(
        work.resolve("repo"),
        "job",
        Map.of("train.yaml", "runtime: mpi\nnodes: 2\nrun: " + run + "\n"),
        Optional.empty());
  }

  @Test
  @DisplayName(
      "a pod runs as uid 1000 with fsGroup 1000, its hostname, its peers' DNS names, and addresses that exist only in its namespace")
  void podSeesItsIdentity() {
    CompiledProject project = compile("hostname");
    // The node pod's command replaced by a probe: the rest of the pod (env, volumes, identity) as
    // compiled.
    var node = project.run().podsOf("node").get(0);
    node.template()
        .getSpec()
        .getContainers()
        .get(0)
        .setCommand(
            List.of(
                "/bin/bash",
                "-c",
                "id -u; id -G; hostname; getent hosts $MASTER_ADDR | cut -d' ' -f1; stat -c '%u:%g %a' ~/.ssh/id_trainyard;"
                    + " ip -4 -o addr show eth0 | tr -s ' ' | cut -d' ' -f4"));
    try (NamespaceCluster cluster =
        new NamespaceCluster(
            project.run(), ImageStandIn.openMpi(), work.resolve("pods"), project.repo())) {
      RunningPod pod = cluster.start(node);
      assertEquals(0, pod.requireExit(MpiRun.READY_TIMEOUT), pod.output());
      List<String> lines = pod.output().lines().toList();
      String js = project.run().jobSetName();
      assertEquals(
          List.of("1000", "1000", js + "-node-0-0", "10.213.0.2", "0:1000 640", "10.213.0.2/24"),
          lines,
          pod.output());
      String hostAddresses = HostCommand.check("ip", "-4", "-o", "addr");
      assertFalse(
          hostAddresses.contains("10.213.0."),
          "no harness address in the machine's own namespace: " + hostAddresses);
    }
  }

  @Test
  @DisplayName(
      "a failure while pods run still kills them, deletes every namespace and removes the mount points it created")
  void teardownAfterFailure() {
    CompiledProject project = compile("sleep 600");
    NamespaceCluster[] held = new NamespaceCluster[1];
    RunningPod[] pod = new RunningPod[1];
    assertThrows(
        IllegalStateException.class,
        () -> {
          try (NamespaceCluster cluster =
              new NamespaceCluster(
                  project.run(), ImageStandIn.openMpi(), work.resolve("pods"), project.repo())) {
            held[0] = cluster;
            pod[0] = cluster.start(cluster.pod("node", 0));
            pod[0].awaitListening(MpiRun.SSH_PORT, MpiRun.READY_TIMEOUT);
            throw new IllegalStateException("a failing test");
          }
        });
    assertTrue(
        pod[0].awaitExit(Duration.ofSeconds(10)).isPresent(), "the pod's process was killed");
    assertEquals(List.of(), held[0].remainingNamespaces());
    assertFalse(
        Files.exists(Path.of("/etc/mpi")), "the /etc/mpi mount point the harness made is gone");
  }
}
