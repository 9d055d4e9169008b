package dev.trainyard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The controller's kustomize folder ({@code controller/deploy}) rendered by the cache's real
 * kubectl through an overlay that sets the image, then accepted object by object by a server-side
 * dry run.
 */
@ExtendWith(KubeClusterExtension.class)
class ControllerDeployIT {

  @Test
  @DisplayName("controller/deploy with an image overlay passes a server-side dry run, every object")
  void deployManifestsPassDryRun(KubeCluster cluster) throws Exception {
    Path overlay =
        LocalCluster.mkdirs(
            Path.of(System.getProperty("trainyard.work.dir", "target/cluster"))
                .toAbsolutePath()
                .resolve("controller-deploy-overlay"));
    Path base = K8sBinaries.repoRoot().resolve("controller/deploy").toAbsolutePath();
    Files.writeString(
        overlay.resolve("kustomization.yaml"),
        """
                resources:
                - %s
                images:
                - name: trainyard-controller
                  newName: registry.test/trainyard-controller
                  newTag: "0.1.0"
                """
            .formatted(overlay.relativize(base)));
    List<GenericKubernetesResource> objects = Manifests.parse(kustomize(overlay));
    Manifests manifests = new Manifests(cluster.client());
    String namespace = cluster.newNamespace();
    int accepted = 0;
    for (GenericKubernetesResource o : objects) {
      if ("Namespace".equals(o.getKind())) {
        continue;
      }
      GenericKubernetesResource result = manifests.dryRunApply(manifests.placed(o, namespace));
      assertEquals(o.getMetadata().getName(), result.getMetadata().getName());
      accepted++;
    }
    assertEquals(objects.size() - 1, accepted);
    assertTrue(objects.stream().anyMatch(o -> "Deployment".equals(o.getKind())));
  }

  private static String kustomize(Path dir) throws Exception {
    K8sBinaries binaries = K8sBinaries.locate();
    Process p =
        new ProcessBuilder(binaries.bin("kubectl").toString(), "kustomize", dir.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "kubectl kustomize hung");
    assertEquals(0, p.exitValue(), out);
    return out;
  }
}
