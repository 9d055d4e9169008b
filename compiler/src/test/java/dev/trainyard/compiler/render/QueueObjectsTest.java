package dev.trainyard.compiler.render;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.testing.CompileCall;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.TwoClusterPlatform;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Queue objects in the tree: only those of the target cluster's namespaces. */
class QueueObjectsTest {
  @TempDir Path temp;

  private List<String> queueFiles(CompileCall call) {
    CompileResult r = call.compile();
    return TrainProject.tree(r).files().keySet().stream().filter(f -> f.contains("/_") && !f.endsWith("/kustomization.yaml")).sorted().toList();
  }

  private CompileCall call(String platform) {
    TrainProject p = TrainProject.create(temp, "run: torchrun train.py\n");
    return CompileCall.of(p.trainYaml()).platformText(temp, platform);
  }

  @Test
  @DisplayName("compiling for cluster local emits its ClusterQueue, ResourceFlavor and LocalQueue; prod's stay out")
  void otherClusterStaysOut() {
    assertEquals(List.of("clusters/local/_cluster/clusterqueue-cqa.yaml", "clusters/local/_cluster/resourceflavor-fa.yaml",
        "clusters/local/team-a/_queues/localqueue-qa.yaml"), queueFiles(call(TwoClusterPlatform.TEXT)));
  }

  @Test
  @DisplayName("compiling for cluster prod emits prod's queue objects only")
  void prodOnly() {
    assertEquals(List.of("clusters/prod/_cluster/clusterqueue-cqb.yaml", "clusters/prod/_cluster/resourceflavor-fb.yaml",
        "clusters/prod/team-b/_queues/localqueue-qb.yaml"), queueFiles(call(TwoClusterPlatform.TEXT).cluster("prod")));
  }

  @Test
  @DisplayName("a ResourceFlavor no ClusterQueue of the cluster uses stays out, even when defined")
  void unusedFlavorStaysOut() {
    String text = TwoClusterPlatform.with("    - {name: fb}\n", "    - {name: fb}\n    - {name: fc}\n");
    assertEquals(List.of("clusters/local/_cluster/clusterqueue-cqa.yaml", "clusters/local/_cluster/resourceflavor-fa.yaml",
        "clusters/local/team-a/_queues/localqueue-qa.yaml"), queueFiles(call(text)));
  }
}
