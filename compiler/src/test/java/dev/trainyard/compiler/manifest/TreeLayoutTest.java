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

  @Test
  @DisplayName(
      "a checkpoint claim's folder: _checkpoint-<key> beside the runs, reserved (never a run), its key read back; other names have none")
  void checkpointFolder() {
    String folder = TreeLayout.checkpointFolder("prod", "team-a", "llm-3f2a1b");
    assertEquals("clusters/prod/team-a/_checkpoint-llm-3f2a1b", folder);
    TreeLayout place = TreeLayout.of(folder + "/persistentvolumeclaim-llm-3f2a1b.yaml");
    assertEquals(Optional.of("team-a"), place.namespace());
    assertEquals(Optional.empty(), place.run());
    assertEquals(Optional.of("llm-3f2a1b"), TreeLayout.checkpointKey("_checkpoint-llm-3f2a1b"));
    assertEquals(Optional.of("x"), TreeLayout.checkpointKey("_checkpoint-x"));
    assertEquals(Optional.empty(), TreeLayout.checkpointKey("_checkpoint-"));
    assertEquals(Optional.empty(), TreeLayout.checkpointKey("llm-3f2a1b"));
    assertEquals(Optional.empty(), TreeLayout.checkpointKey("_queues"));
  }
}
