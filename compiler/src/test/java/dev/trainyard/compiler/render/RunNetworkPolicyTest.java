package dev.trainyard.compiler.render;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.trainyard.compiler.testing.CompileCall;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.TwoClusterPlatform;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** platform.yaml {@code networkPolicy.runs}: the run's pods may reach each other, nothing more. */
class RunNetworkPolicyTest {
  @TempDir Path temp;

  private Map<String, String> files(String platform) {
    TrainProject p = TrainProject.create(temp, "run: torchrun train.py\nnodes: 2\n");
    return TrainProject.tree(CompileCall.of(p.trainYaml()).platformText(temp, platform).compile())
        .files();
  }

  @Test
  @DisplayName(
      "runs: true puts an ingress-only NetworkPolicy in the run folder: the run's pods accept the"
          + " run's pods, selected by the JobSet's name label; egress is left alone")
  void emitted() {
    var files = files(TwoClusterPlatform.TEXT + "networkPolicy: {runs: true}\n");
    String key =
        files.keySet().stream()
            .filter(f -> f.contains("/networkpolicy-"))
            .findFirst()
            .orElseThrow(() -> new AssertionError(files.keySet().toString()));
    var np = TrainProject.parse("np", files.get(key));
    String run = np.at("/metadata/name").asText().replaceFirst("-ranks$", "");
    assertEquals(run + "-ranks", np.at("/metadata/name").asText());
    assertEquals("clusters/local/team-a/" + run + "/networkpolicy-" + run + "-ranks.yaml", key);
    assertEquals("networking.k8s.io/v1", np.path("apiVersion").asText());
    assertEquals("team-a", np.at("/metadata/namespace").asText());
    assertEquals(
        "{\"matchLabels\":{\"jobset.sigs.k8s.io/jobset-name\":\"" + run + "\"}}",
        np.at("/spec/podSelector").toString());
    assertEquals("[\"Ingress\"]", np.at("/spec/policyTypes").toString());
    assertEquals(
        "[{\"from\":[{\"podSelector\":{\"matchLabels\":{\"jobset.sigs.k8s.io/jobset-name\":\""
            + run
            + "\"}}}]}]",
        np.at("/spec/ingress").toString());
    assertEquals(run, np.at("/metadata/labels/trainyard.dev~1run").asText());
    var jobSet =
        TrainProject.parse(
            "js",
            files.get(
                files.keySet().stream()
                    .filter(f -> f.contains("/jobset-"))
                    .findFirst()
                    .orElseThrow()));
    assertEquals(run, jobSet.at("/metadata/name").asText());
  }

  @Test
  @DisplayName("by default (and with runs: false) no NetworkPolicy is written")
  void offByDefault() {
    assertFalse(
        files(TwoClusterPlatform.TEXT).keySet().stream()
            .anyMatch(f -> f.contains("networkpolicy")));
    assertFalse(
        files(TwoClusterPlatform.TEXT + "networkPolicy: {runs: false}\n").keySet().stream()
            .anyMatch(f -> f.contains("networkpolicy")));
  }
}
