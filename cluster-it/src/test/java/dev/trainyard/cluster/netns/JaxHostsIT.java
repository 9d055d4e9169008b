package dev.trainyard.cluster.netns;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.cluster.KubeCluster;
import dev.trainyard.cluster.KubeClusterExtension;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The {@code jax} example's script with a bare {@code jax.distributed.initialize()} on 2 namespace
 * hosts, its cluster detection (jax {@code _src/clusters/k8s_cluster.py}) served by the test
 * cluster's real API server: the compiled run (ServiceAccount, Role, RoleBinding, JobSet) is
 * applied there, the JobSet and Job controllers make the Jobs and pods, kwok gives them IPs, and
 * each namespace host takes its pod's IP, so JAX finds its own pod by {@code status.podIP}, the
 * process count in the Job's {@code parallelism}, its id in {@code JOB_COMPLETION_INDEX} and the
 * coordinator {@code <job>-0.<jobset>}, with the compiled RBAC.
 */
@ExtendWith(KubeClusterExtension.class)
class JaxHostsIT {
  static final String JAX_ENV = "jax-0.10.2";
  static final Duration TRAIN_TIMEOUT = PythonHosts.TRAIN_TIMEOUT;
  private PythonHosts hosts;

  @BeforeEach
  void tools() throws IOException {
    hosts = PythonHosts.open(JAX_ENV, "jax");
  }

  /** Closes the hosts first, then the relay, also after a failed assertion. */
  @AfterEach
  void closeHosts() throws Exception {
    hosts.close();
  }

  /**
   * examples/jax with its requirements.txt for the CPU: the example asks for {@code
   * jax[cuda12,k8s]}, whose CUDA plugin neither installs nor runs here; {@code jax[k8s]} is what
   * the detection needs.
   */
  private CompiledProject compileExample() throws IOException {
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> list = Files.list(PythonHosts.REPO_ROOT.resolve("examples/jax"))) {
      for (Path f : list.filter(Files::isRegularFile).toList()) {
        files.put(f.getFileName().toString(), Files.readString(f));
      }
    }
    files.put("requirements.txt", "jax[k8s]>=0.4.35\nnumpy>=1.24\n");
    return CompiledProject.compile(hosts.work().resolve("repo"), "jax", files, Optional.empty());
  }

  @Test
  @DisplayName(
      "the jax example's bare jax.distributed.initialize() forms one group of 2 processes through the API server and trains")
  void bareInitializeFormsOneGroup(KubeCluster cluster) throws IOException {
    List<RunningPod> pods = runOnHosts(cluster, true);
    for (RunningPod pod : pods) {
      assertEquals(0, pod.requireExit(TRAIN_TIMEOUT), pod.hostname() + ":\n" + pod.output());
    }
    String first = pods.get(0).output();
    assertTrue(first.contains("2 processes, 2 devices (1 local, cpu)"), first);
    assertTrue(first.contains("step 199: loss"), first);
    assertTrue(first.contains("|w - w_true| = "), first);
  }

  @Test
  @DisplayName(
      "without the compiled RoleBinding the API server refuses JAX's pod lookup (403) and every process fails: the RBAC is what makes detection work")
  void withoutRoleBindingDetectionIsRefused(KubeCluster cluster) throws IOException {
    List<RunningPod> pods = runOnHosts(cluster, false);
    for (RunningPod pod : pods) {
      int exit = pod.requireExit(TRAIN_TIMEOUT);
      assertTrue(exit != 0, pod.output());
      assertTrue(pod.output().contains("Kubernetes API Error: 403 - Forbidden"), pod.output());
    }
  }

  /**
   * Compiles and applies the example (with or without its RoleBinding), starts its 2 pods on
   * namespace hosts.
   */
  private List<RunningPod> runOnHosts(KubeCluster cluster, boolean withRoleBinding)
      throws IOException {
    CompiledProject project = compileExample();
    if (!withRoleBinding) {
      project.files().keySet().removeIf(f -> f.contains("/rolebinding-"));
    }
    String namespace = cluster.newNamespace();
    ClusterRunPods.apply(cluster.client(), project, namespace);
    Map<String, String> addresses =
        ClusterRunPods.podAddresses(cluster.client(), project.run(), namespace);
    String serviceAccount =
        project.run().pods().get(0).template().getSpec().getServiceAccountName();
    int apiPort = URI.create(cluster.client().getMasterUrl().toString()).getPort();
    ApiServerRelay relay =
        hosts.closeLater(new ApiServerRelay(hosts.work().resolve("api.sock"), apiPort));
    PodApiAccess api =
        new PodApiAccess(
            relay,
            ClusterRunPods.token(cluster.client(), namespace, serviceAccount),
            ClusterRunPods.caPem(cluster.client()),
            namespace);
    return hosts.start(project, "node", addresses, Optional.of(api));
  }
}
