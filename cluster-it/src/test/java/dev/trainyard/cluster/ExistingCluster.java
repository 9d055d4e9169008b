package dev.trainyard.cluster;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

/**
 * A cluster the suite did not start, given by {@code -Dtrainyard.kubeconfig=PATH} or env {@code
 * TRAINYARD_KUBECONFIG}. It must already run JobSet (and, for lifecycle tests, nodes that complete
 * pods); the Kueue controller counts as present when namespace {@code kueue-system} exists.
 * Namespaces created by tests are deleted on close; cluster-scoped test objects are left in place.
 */
final class ExistingCluster implements KubeCluster, AutoCloseable {

  private final Path kubeconfig;
  private final KubernetesClient client;

  ExistingCluster(Path kubeconfig) {
    this.kubeconfig = kubeconfig;
    try {
      this.client =
          new KubernetesClientBuilder()
              .withConfig(Config.fromKubeconfig(Files.readString(kubeconfig)))
              .build();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read kubeconfig " + kubeconfig, e);
    }
  }

  @Override
  public KubernetesClient client() {
    return client;
  }

  @Override
  public Path kubeconfig() {
    return kubeconfig;
  }

  @Override
  public String newNamespace() {
    String name = "trainyard-it-" + UUID.randomUUID().toString().substring(0, 8);
    client
        .namespaces()
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName(name)
                .addToLabels("trainyard.dev/it", "true")
                .endMetadata()
                .build())
        .create();
    return name;
  }

  @Override
  public boolean runs(Component component) {
    if (component == Component.KUEUE_CONTROLLER) {
      return client.namespaces().withName("kueue-system").get() != null;
    }
    return true;
  }

  @Override
  public void close() {
    client.namespaces().withLabel("trainyard.dev/it", "true").delete();
    client.close();
  }
}
