package dev.trainyard.cluster;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * CRD files from a binaries cache ({@code crds/*.yaml}, copied there from the projects' Go modules
 * by the testbin scripts) installed with server-side apply, then awaited until the API server
 * reports each one {@code Established}: only then are its kinds served.
 */
final class CustomResourceDefinitions {

  private CustomResourceDefinitions() {}

  /**
   * Applies every {@code *.yaml} in {@code dir} (in parallel) and waits up to {@code timeout} per
   * CRD.
   */
  static void install(KubernetesClient client, Path dir, Duration timeout) {
    List<HasMetadata> crds = new ArrayList<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.yaml")) {
      for (Path file : files) {
        try (InputStream in = Files.newInputStream(file)) {
          crds.addAll(client.load(in).items());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read CRDs in " + dir, e);
    }
    crds.parallelStream()
        .forEach(
            crd ->
                client
                    .resource(crd)
                    .fieldManager(ClusterBootstrap.FIELD_MANAGER)
                    .forceConflicts()
                    .serverSideApply());
    for (HasMetadata crd : crds) {
      String name = crd.getMetadata().getName();
      Eventually.await("CRD " + name + " Established", timeout, () -> established(client, name));
    }
  }

  private static boolean established(KubernetesClient client, String name) {
    CustomResourceDefinition crd =
        client.apiextensions().v1().customResourceDefinitions().withName(name).get();
    return crd != null
        && crd.getStatus() != null
        && crd.getStatus().getConditions().stream()
            .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
  }
}
