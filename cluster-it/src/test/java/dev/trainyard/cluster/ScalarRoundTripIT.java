package dev.trainyard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.CompileRequest;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import dev.trainyard.compiler.manifest.CanonicalJson;
import dev.trainyard.compiler.manifest.YamlWriter;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * Strings that YAML 1.1 reads as other types reach the API server as the same strings: the emitted
 * YAML is read as Go's yaml.v2 under kubectl and Flux reads it (YAML 1.1 types; SnakeYAML here),
 * sent as JSON, and the stored ConfigMap data and JobSet env values are compared with what was
 * written. A ConfigMap value read as a number would be refused outright (data values must be
 * strings).
 */
@ExtendWith(KubeClusterExtension.class)
class ScalarRoundTripIT {
  static final List<String> VALUES =
      List.of(
          "1e-4",
          "2E5",
          "0x1F",
          "0o17",
          "0b101",
          "1_000",
          ".inf",
          "-.Inf",
          ".nan",
          "1:30",
          "190:20:30",
          "~",
          "null",
          "yes",
          "no",
          "on",
          "off",
          "y",
          "N",
          "3.10",
          "012",
          "+1",
          "2026-01-01",
          "<<",
          "=",
          "",
          "true",
          "False");

  @Test
  @DisplayName(
      "a ConfigMap written by YamlWriter, read as YAML 1.1 and stored by kube-apiserver, keeps every value as the same string")
  void configMap(KubeCluster cluster) {
    ObjectNode cm =
        CanonicalJson.mapper().createObjectNode().put("apiVersion", "v1").put("kind", "ConfigMap");
    cm.putObject("metadata").put("name", "scalars");
    Map<String, String> expected = new LinkedHashMap<>();
    for (int i = 0; i < VALUES.size(); i++) {
      expected.put("k" + i, VALUES.get(i));
      cm.withObjectProperty("data").put("k" + i, VALUES.get(i));
    }
    Manifests manifests = new Manifests(cluster.client());
    GenericKubernetesResource stored =
        manifests.apply(manifests.placed(viaYaml11(YamlWriter.write(cm)), cluster.newNamespace()));
    assertEquals(expected, stored.getAdditionalProperties().get("data"));
  }

  @Test
  @DisplayName(
      "env values of a compiled JobSet, read as YAML 1.1 and stored by kube-apiserver with the JobSet webhook, stay the same strings")
  void jobSetEnv(KubeCluster cluster, @TempDir Path temp) throws Exception {
    StringBuilder env = new StringBuilder("env:\n");
    for (int i = 0; i < VALUES.size(); i++) {
      env.append("  V").append(i).append(": \"").append(VALUES.get(i)).append("\"\n");
    }
    Path trainYaml = SourceRepo.withTrainYaml(temp, "scalars", "run: python train.py\n" + env);
    CompileResult result =
        new Compiler(SshSecretProvider.system()).compile(CompileRequest.of(trainYaml));
    assertFalse(result.hasErrors(), result.diagnostics().toString());
    String yaml =
        result.tree().orElseThrow().files().entrySet().stream()
            .filter(e -> e.getKey().contains("/jobset-"))
            .findFirst()
            .orElseThrow()
            .getValue();
    Manifests manifests = new Manifests(cluster.client());
    GenericKubernetesResource stored =
        manifests.apply(manifests.placed(viaYaml11(yaml), cluster.newNamespace()));
    String json = Serialization.asJson(stored);
    var envList =
        CanonicalJson.mapper()
            .readTree(json)
            .at("/spec/replicatedJobs/0/template/spec/template/spec/containers/0/env");
    Map<String, String> seen = new LinkedHashMap<>();
    envList.forEach(
        e ->
            seen.put(
                e.path("name").asText(),
                e.path("value").isTextual()
                    ? e.path("value").asText()
                    : "<" + e.path("value") + ">"));
    for (int i = 0; i < VALUES.size(); i++) {
      assertEquals(VALUES.get(i), seen.get("V" + i), "V" + i + " in " + seen);
    }
  }

  /** The object as a YAML 1.1 reader (kubectl's, Flux's) makes it, sent on as JSON. */
  private static GenericKubernetesResource viaYaml11(String yaml) {
    Object tree = new Yaml().load(yaml);
    return Serialization.unmarshal(Serialization.asJson(tree), GenericKubernetesResource.class);
  }
}
