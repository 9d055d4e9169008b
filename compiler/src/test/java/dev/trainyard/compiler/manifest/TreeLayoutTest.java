package dev.trainyard.compiler.manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TreeLayoutTest {
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      nullValues = "-",
      value = {
        "clusters/c/ns/run/jobset-run.yaml | c | ns | run",
        "clusters/c/ns/run/sub/file.yaml | c | ns | run",
        "clusters/c/ns/run | c | ns | -",
        "clusters/c/ns/_queues/localqueue-q.yaml | c | ns | -",
        "clusters/c/_cluster/clusterqueue-q.yaml | c | - | -",
        "clusters/c/ns/.hidden/f.yaml | c | ns | -",
        "clusters/c/.git/x/f | c | - | -",
        "clusters/_c/ns/run/f.yaml | _c | ns | -",
        "clusters/c/kustomization.yaml | c | - | -",
        "clusters/c | - | - | -",
        "clusters/kustomization.yaml | - | - | -",
        "jobs/c/ns/run/f.yaml | - | - | -",
        "other | - | - | -",
      })
  @DisplayName(
      "a path lies inside a cluster folder, a namespace folder (not _queues/_cluster/hidden) and a run folder (none of the three reserved)")
  void places(String path, String cluster, String namespace, String run) {
    TreeLayout place = TreeLayout.of(path);
    assertEquals(Optional.ofNullable(cluster), place.cluster());
    assertEquals(Optional.ofNullable(namespace), place.namespace());
    assertEquals(Optional.ofNullable(run), place.run());
  }

  @Test
  @DisplayName("the folders it writes are the ones it reads back")
  void roundTrip() {
    String folder = TreeLayout.runFolder("prod", "team-a", "demo-1a2b3c");
    assertEquals("clusters/prod/team-a/demo-1a2b3c", folder);
    assertEquals("clusters/prod", TreeLayout.clusterFolder("prod"));
    TreeLayout place = TreeLayout.of(folder + "/jobset-demo-1a2b3c.yaml");
    assertEquals(Optional.of("demo-1a2b3c"), place.run());
  }

  @Test
  @DisplayName("Trainyard's own folders and hidden ones are reserved, DNS labels never are")
  void reserved() {
    assertTrue(TreeLayout.reserved(TreeLayout.CLUSTER_FOLDER));
    assertTrue(TreeLayout.reserved(TreeLayout.QUEUES_FOLDER + "/"));
    assertTrue(TreeLayout.reserved(".git"));
    assertFalse(TreeLayout.reserved("team-a"));
  }
}
