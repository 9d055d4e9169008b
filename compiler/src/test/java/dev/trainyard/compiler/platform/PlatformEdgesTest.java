package dev.trainyard.compiler.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.schema.NetworkntSchemaValidator;
import dev.trainyard.compiler.source.SourceFile;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * platform.yaml read through {@link PlatformLoader}: each step's failure stops it with that step's
 * diagnostics, and the flavor taint and toleration rules say the whole diagnostic ({@code
 * file:line:col code message | hint}).
 */
class PlatformEdgesTest {
  private static final PlatformLoader LOADER =
      new PlatformLoader(new YamlDocumentLoader(), new NetworkntSchemaValidator());
  @TempDir Path dir;

  private StageResult<Platform> load(String yaml) throws Exception {
    Path file = dir.resolve("platform.yaml");
    Files.writeString(file, yaml);
    return LOADER.load(Optional.of(file), "platform.yaml");
  }

  private static List<String> lines(StageResult<?> result) {
    return result.diagnostics().stream()
        .map(d -> d.location() + " " + d.code().id() + " " + d.message() + " | " + d.hint())
        .toList();
  }

  private static String platform(String flavor) {
    return "apiVersion: trainyard.dev/v1\nkind: Platform\nsecrets: {policy: plain, allowPlain: true}\n"
        + "clusters: [{name: local}]\nnamespaces: [{name: default, cluster: local}]\n"
        + "queues:\n  resourceFlavors:\n    - name: gpu\n"
        + flavor
        + "  clusterQueues: [{name: q, flavors: [{name: gpu, quota: {cpu: \"64\", memory: 256Gi}}]}]\n"
        + "  localQueues: [{name: default, namespace: default, clusterQueue: q}]\n";
  }

  @Test
  @DisplayName(
      "toleration rules and untolerated taints: whole diagnostics; a taint shows its value; PreferNoSchedule is"
          + " never checked")
  void flavorRules() throws Exception {
    StageResult<Platform> r =
        load(
            platform(
                "      nodeTaints: [{key: a, effect: PreferNoSchedule}, {key: b, value: v,"
                    + " effect: NoExecute}, {key: c, effect: NoSchedule}]\n"
                    + "      tolerations:\n        - {value: x}\n        - {key: k, operator: Exists, value: y}\n"
                    + "        - {key: d, effect: NoSchedule, tolerationSeconds: 5}\n"));
    String admit =
        " but no toleration for it; Kueue would never admit a run on this flavor | add `tolerations: [{key: ";
    String puts = "}]` to the flavor; Kueue puts the flavor's tolerations on the pods it admits";
    assertEquals(
        List.of(
            "platform.yaml:11:11 E304 a toleration without `key` must have `operator: Exists` (it matches every taint) |"
                + " name the taint's `key`, or write `operator: Exists` to tolerate every taint",
            "platform.yaml:12:45 E304 a toleration with `operator: Exists` takes no `value` | drop `value`, or use"
                + " `operator: Equal` to match that value only",
            "platform.yaml:13:59 E304 `tolerationSeconds` needs `effect: NoExecute` | set `effect: NoExecute`, or drop"
                + " `tolerationSeconds` (it bounds how long a pod stays on a NoExecute-tainted node)",
            "platform.yaml:9:56 E304 flavor `gpu` has node taint b=v:NoExecute"
                + admit
                + "b, operator: Exists, effect:"
                + " NoExecute"
                + puts,
            "platform.yaml:9:95 E304 flavor `gpu` has node taint c:NoSchedule"
                + admit
                + "c, operator: Exists, effect:"
                + " NoSchedule"
                + puts),
        lines(r));
    assertTrue(r.failed());
  }

  @Test
  @DisplayName(
      "the embedded default is the jar's default-platform.yaml, named as such, read once per JVM (the same text every time)")
  void embeddedReadOnce() throws Exception {
    SourceFile embedded = PlatformLoader.embedded();
    assertEquals(PlatformLoader.EMBEDDED_NAME, embedded.displayPath());
    try (var in =
        PlatformLoader.class.getClassLoader().getResourceAsStream(PlatformLoader.EMBEDDED)) {
      assertEquals(new String(in.readAllBytes(), StandardCharsets.UTF_8), embedded.text());
    }
    assertSame(embedded, PlatformLoader.embedded());
  }

  @Test
  @DisplayName(
      "a missing file, a YAML error and schema errors each stop the loader with their own diagnostics")
  void stepsStop() throws Exception {
    assertEquals(
        List.of(
            "absent.yaml E108 cannot read the file: no such file | check the path and its permissions"),
        lines(LOADER.load(Optional.of(dir.resolve("absent.yaml")), "absent.yaml")));
    StageResult<Platform> yaml = load("a: b: c\n");
    assertTrue(yaml.failed());
    assertEquals(
        List.of("platform.yaml:1:5 E101 unexpected `:` inside a value"),
        yaml.diagnostics().stream()
            .map(d -> d.location() + " " + d.code().id() + " " + d.message())
            .toList());
    StageResult<Platform> schema = load("apiVersion: trainyard.dev/v1\nkind: Platform\n");
    assertTrue(schema.failed() && schema.value().isEmpty());
    assertEquals(
        List.of(
            "platform.yaml:1:1 E203 missing required field `clusters` | add `clusters:`",
            "platform.yaml:1:1 E203 missing required field `namespaces` | add `namespaces:`",
            "platform.yaml:1:1 E203 missing required field `queues` | add `queues:`"),
        lines(schema));
  }

  @Test
  @DisplayName(
      "gpu.types bind each GPU type to its node labels, sorted by type; without gpu the resource is nvidia.com/gpu")
  void gpuTypes() throws Exception {
    Platform p =
        load(platform("      nodeLabels: {pool: gpu}\n")
                .replace(
                    "clusters:",
                    "gpu:\n  resourceName: amd.com/gpu\n  types:\n    MI300: {amd.com/gpu.product: MI300X}\n"
                        + "    H100: {nvidia.com/gpu.product: H100, zone: a}\nclusters:"))
            .value()
            .orElseThrow();
    assertEquals("amd.com/gpu", p.gpu().resourceName());
    assertEquals(
        Map.of(
            "H100",
            Map.of("nvidia.com/gpu.product", "H100", "zone", "a"),
            "MI300",
            Map.of("amd.com/gpu.product", "MI300X")),
        p.gpu().types());
    assertEquals(List.of("H100", "MI300"), List.copyOf(p.gpu().types().keySet()));
    Platform bare = load(platform("      nodeLabels: {pool: gpu}\n")).value().orElseThrow();
    assertEquals("nvidia.com/gpu", bare.gpu().resourceName());
    assertEquals(Map.of(), bare.gpu().types());
  }

  @Test
  @DisplayName(
      "without a file the embedded default platform loads, named as such, with no diagnostic")
  void embeddedDefault() {
    StageResult<Platform> embedded = LOADER.load(Optional.empty(), "ignored");
    assertEquals(List.of(), embedded.diagnostics());
    assertTrue(embedded.value().isPresent());
    assertEquals("<embedded default platform>", PlatformLoader.EMBEDDED_NAME);
  }
}
