package dev.trainyard.cluster.netns;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A compiled run applied to the test cluster (real kube-apiserver, JobSet controller, Job
 * controller, scheduler, kwok nodes) so that its pods, Jobs and RBAC exist there: the run's own
 * objects (ServiceAccount, Role, RoleBinding, ConfigMaps, Secrets, JobSet) in a test namespace (the
 * RoleBinding's subject moved with it). The JobSet's Kueue queue label is dropped: the test
 * cluster's queues are not the compiled platform's, and admission is not what these tests check.
 */
final class ClusterRunPods {
  static final Duration POD_IP_TIMEOUT = Duration.ofSeconds(120);
  private static final String QUEUE_LABEL = "kueue.x-k8s.io/queue-name";

  private ClusterRunPods() {}

  /** Creates the run's objects in {@code namespace}. */
  static void apply(KubernetesClient client, CompiledProject project, String namespace) {
    String runFolder = "/" + project.run().jobSetName() + "/";
    for (Map.Entry<String, String> file : project.files().entrySet()) {
      if (!file.getKey().contains(runFolder) || file.getKey().endsWith("kustomization.yaml")) {
        continue;
      }
      HasMetadata object =
          (HasMetadata) Serialization.unmarshal(file.getValue(), KubernetesResource.class);
      object.getMetadata().setNamespace(namespace);
      if (object instanceof GenericKubernetesResource g && "JobSet".equals(g.getKind())) {
        g.getMetadata().getLabels().remove(QUEUE_LABEL);
      }
      if (object instanceof RoleBinding binding) {
        // The compiled subject names the compiled namespace; the run is placed in the test's.
        binding.getSubjects().forEach(subject -> subject.setNamespace(namespace));
      }
      client.resource(object).inNamespace(namespace).create();
    }
  }

  /** Waits until every pod of the JobSet has an IP; returns pod hostname → IP. */
  static Map<String, String> podAddresses(
      KubernetesClient client, CompiledRun run, String namespace) {
    long deadline = System.nanoTime() + POD_IP_TIMEOUT.toNanos();
    List<Pod> pods = List.of();
    while (System.nanoTime() < deadline) {
      pods =
          client
              .pods()
              .inNamespace(namespace)
              .withLabel("jobset.sigs.k8s.io/jobset-name", run.jobSetName())
              .list()
              .getItems();
      if (pods.size() == run.pods().size()
          && pods.stream()
              .allMatch(p -> p.getStatus() != null && p.getStatus().getPodIP() != null)) {
        Map<String, String> out = new TreeMap<>();
        pods.forEach(p -> out.put(p.getSpec().getHostname(), p.getStatus().getPodIP()));
        return out;
      }
      sleep();
    }
    throw new AssertionError(
        "the JobSet's "
            + run.pods().size()
            + " pods did not all get an IP within "
            + POD_IP_TIMEOUT.toSeconds()
            + "s: "
            + pods.stream().map(p -> p.getMetadata().getName() + "=" + p.getStatus()).toList());
  }

  /** A token of {@code serviceAccount} (TokenRequest API, one hour). */
  static String token(KubernetesClient client, String namespace, String serviceAccount) {
    return client
        .serviceAccounts()
        .inNamespace(namespace)
        .withName(serviceAccount)
        .tokenRequest(
            new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec().build())
        .getStatus()
        .getToken();
  }

  /** The API server's CA certificate in PEM, from the client's configuration. */
  static String caPem(KubernetesClient client) {
    var config = client.getConfiguration();
    try {
      if (config.getCaCertData() != null) {
        return new String(
            Base64.getDecoder().decode(config.getCaCertData()), StandardCharsets.UTF_8);
      }
      return Files.readString(Path.of(config.getCaCertFile()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void sleep() {
    try {
      Thread.sleep(500);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
