package dev.trainyard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The harness leaves nothing running: a second, private cluster (etcd, apiserver, JobSet
 * controller) is started and closed, and every process it started, with all their descendants, must
 * be gone and the apiserver port closed. Runs without the shared cluster, so it needs only the
 * binaries cache.
 */
class HarnessCleanupIT {

  @Test
  @DisplayName(
      "closing a cluster kills every process the harness started and frees the apiserver port")
  void closeLeavesNoProcess() {
    LocalCluster cluster =
        LocalCluster.start(
            K8sBinaries.locate(),
            KubeClusterExtension.workDir("private"),
            EnumSet.of(Component.JOBSET_CONTROLLER));
    List<ProcessHandle> started = new ArrayList<>();
    for (ClusterProcess process : cluster.processes()) {
      ProcessHandle handle = ProcessHandle.of(process.pid()).orElseThrow();
      started.add(handle);
      handle.descendants().forEach(started::add);
    }
    int apiPort = URI.create(cluster.client().getMasterUrl().toString()).getPort();
    assertEquals(3, cluster.processes().size(), "etcd, kube-apiserver, jobset");
    assertTrue(LoopbackPorts.listening(apiPort), "apiserver listens before close");

    cluster.close();

    List<Long> alive =
        started.stream().filter(ProcessHandle::isAlive).map(ProcessHandle::pid).toList();
    assertEquals(List.of(), alive, "processes still alive after close");
    assertFalse(
        LoopbackPorts.listening(apiPort), "apiserver port " + apiPort + " still open after close");
    assertEquals(Optional.empty(), started.stream().filter(ProcessHandle::isAlive).findAny());
  }
}
