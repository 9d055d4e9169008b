package dev.trainyard.compiler.cases;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tainted GPU nodes: platform.yaml flavors carry Kueue's {@code nodeTaints} and {@code tolerations}
 * (kueue resourceflavor_types.go), emitted into the ResourceFlavor; mistakes Kueue's CEL rules
 * would reject, and taints no toleration covers, are located diagnostics.
 */
class FlavorTaintsTest {
  @TempDir Path dir;

  static String platform(String flavor) {
    return "apiVersion: trainyard.dev/v1\nkind: Platform\nsecrets: {policy: plain, allowPlain: true}\n"
        + "clusters: [{name: local}]\nnamespaces: [{name: default, cluster: local}]\n"
        + "queues:\n  resourceFlavors:\n    - name: gpu\n"
        + flavor
        + "  clusterQueues: [{name: q, flavors: [{name: gpu, quota: {cpu: \"64\", memory: 256Gi}}]}]\n"
        + "  localQueues: [{name: default, namespace: default, clusterQueue: q}]\n";
  }

  CompileResult compile(String flavor) {
    return TrainProject.create(dir, "run: python train.py\n")
        .withPlatform(platform(flavor))
        .compile();
  }

  static JsonNode resourceFlavor(CompileResult r) {
    Map.Entry<String, String> file =
        TrainProject.tree(r).files().entrySet().stream()
            .filter(e -> e.getKey().contains("/resourceflavor-"))
            .findFirst()
            .orElseThrow();
    return TrainProject.parse(file.getKey(), file.getValue());
  }

  @Test
  @DisplayName(
      "nodeTaints and tolerations reach the ResourceFlavor as Kueue spells them; unset fields stay out")
  void emitted() {
    CompileResult r =
        compile(
            "      nodeTaints: [{key: nvidia.com/gpu, effect: NoSchedule}, {key: pool, value: spot, effect: PreferNoSchedule}]\n"
                + "      tolerations:\n        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}\n"
                + "        - {key: zone, value: a}\n        - {operator: Exists}\n"
                + "        - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 300}\n");
    JsonNode spec = resourceFlavor(r).path("spec");
    assertEquals(
        "[{\"effect\":\"NoSchedule\",\"key\":\"nvidia.com/gpu\"},{\"effect\":\"PreferNoSchedule\",\"key\":\"pool\",\"value\":\"spot\"}]",
        spec.path("nodeTaints").toString());
    assertEquals(
        "[{\"effect\":\"NoSchedule\",\"key\":\"nvidia.com/gpu\",\"operator\":\"Exists\"},"
            + "{\"key\":\"zone\",\"operator\":\"Equal\",\"value\":\"a\"},{\"operator\":\"Exists\"},"
            + "{\"effect\":\"NoExecute\",\"key\":\"node.kubernetes.io/unreachable\",\"operator\":\"Exists\",\"tolerationSeconds\":300}]",
        spec.path("tolerations").toString());
  }

  @Test
  @DisplayName("a flavor without taints or tolerations emits neither list")
  void noLists() {
    JsonNode spec = resourceFlavor(compile("      nodeLabels: {pool: gpu}\n")).path("spec");
    assertTrue(
        spec.path("nodeTaints").isMissingNode() && spec.path("tolerations").isMissingNode(),
        spec.toString());
  }

  @Test
  @DisplayName(
      "each broken toleration rule and an untolerated NoSchedule taint is an error at its pointer")
  void rules() {
    CompileResult r =
        compile(
            "      nodeTaints: [{key: a, effect: PreferNoSchedule}, {key: b, effect: NoExecute}]\n"
                + "      tolerations:\n        - {value: x}\n        - {key: c, operator: Exists, value: y}\n"
                + "        - {key: d, effect: NoSchedule, tolerationSeconds: 5}\n");
    List<String> pointers =
        TrainProject.withCode(r, DiagnosticCode.INVALID_PLATFORM).stream()
            .map(Diagnostic::pointer)
            .sorted()
            .toList();
    assertEquals(
        List.of(
            "/queues/resourceFlavors/0/nodeTaints/1",
            "/queues/resourceFlavors/0/tolerations/0",
            "/queues/resourceFlavors/0/tolerations/1/value",
            "/queues/resourceFlavors/0/tolerations/2/tolerationSeconds"),
        pointers);
    assertTrue(
        TrainProject.withCode(r, DiagnosticCode.INVALID_PLATFORM).stream()
            .allMatch(d -> d.hint() != null && !d.hint().isEmpty()));
  }

  @Test
  @DisplayName("a taint its own flavor tolerates (or a catch-all toleration) is fine")
  void toleratedTaint() {
    CompileResult r =
        compile(
            "      nodeTaints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]\n"
                + "      tolerations: [{key: nvidia.com/gpu, operator: Equal, value: present}]\n");
    assertEquals(List.of(), r.diagnostics().stream().filter(Diagnostic::isError).toList());
  }
}
