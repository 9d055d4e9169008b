package dev.trainyard.cluster;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every compiled output tree (golden cases found at run time, plus this module's fixtures) is
 * accepted by a real API server with the real JobSet webhooks and Kueue CRDs: first a server-side
 * dry run of every object, then a real server-side apply. Namespaced objects go into a fresh
 * namespace per case; cluster-scoped Kueue objects are applied idempotently (server-side apply,
 * forced).
 */
@ExtendWith(KubeClusterExtension.class)
class OutputTreeApplyIT {

  @TestFactory
  @DisplayName(
      "every golden and fixture output tree passes a server-side dry run, then applies for real")
  Stream<DynamicTest> outputTreesAreAccepted(KubeCluster cluster) {
    List<OutputTreeCase> cases =
        Stream.concat(
                OutputTreeCase.golden(K8sBinaries.repoRoot()).stream(),
                OutputTreeCase.fixtures().stream())
            .toList();
    return cases.stream()
        .map(
            c ->
                DynamicTest.dynamicTest(
                    c.name(), c.expected().toUri(), () -> applyTree(cluster, c)));
  }

  private static void applyTree(KubeCluster cluster, OutputTreeCase treeCase) {
    Manifests manifests = new Manifests(cluster.client());
    String namespace = cluster.newNamespace();
    List<GenericKubernetesResource> objects =
        manifests.loadTree(treeCase.expected()).stream()
            .map(o -> manifests.placed(o, namespace))
            .sorted(Comparator.comparingInt(manifests::applyRank))
            .toList();
    assertFalse(objects.isEmpty(), treeCase.name() + ": no objects under " + treeCase.expected());
    objects.forEach(manifests::dryRunApply);
    for (GenericKubernetesResource object : objects) {
      manifests.apply(object);
      assertNotNull(
          cluster.client().resource(object).get(),
          treeCase.name()
              + ": "
              + object.getKind()
              + " "
              + object.getMetadata().getName()
              + " not stored");
    }
  }
}
