package dev.trainyard.compiler.render;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.manifest.CheckStage;
import dev.trainyard.compiler.manifest.Manifest;
import dev.trainyard.compiler.manifest.OutputTree;
import dev.trainyard.compiler.manifest.QueueSet;
import dev.trainyard.compiler.testing.CompileCall;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.TwoClusterPlatform;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code Compiler.renderQueues}: the queue folders of a whole platform, the same bytes a run's
 * compile writes for its own cluster and namespace.
 */
class PlatformQueuesTest {
  @TempDir Path temp;

  private StageResult<OutputTree> render(String platform, String display) throws Exception {
    Path file = Files.writeString(temp.resolve("platform.yaml"), platform);
    try (Compiler c = new Compiler(SshSecretProvider.system())) {
      return c.renderQueues(Optional.of(file), display, Optional.empty());
    }
  }

  @Test
  @DisplayName(
      "every cluster gets its _cluster folder and each of its namespaces its _queues folder, owned, in platform order")
  void everyCluster() throws Exception {
    StageResult<OutputTree> r = render(TwoClusterPlatform.TEXT, "platform.yaml (GitOps repo)");
    assertEquals(List.of(), r.diagnostics());
    OutputTree tree = r.value().orElseThrow();
    assertEquals(
        List.of(
            "clusters/local/_cluster",
            "clusters/local/team-a/_queues",
            "clusters/prod/_cluster",
            "clusters/prod/team-b/_queues"),
        tree.ownedFolders());
    assertEquals(
        List.of(
            "clusters/local/_cluster/clusterqueue-cqa.yaml",
            "clusters/local/_cluster/kustomization.yaml",
            "clusters/local/_cluster/resourceflavor-fa.yaml",
            "clusters/local/team-a/_queues/kustomization.yaml",
            "clusters/local/team-a/_queues/localqueue-qa.yaml",
            "clusters/prod/_cluster/clusterqueue-cqb.yaml",
            "clusters/prod/_cluster/kustomization.yaml",
            "clusters/prod/_cluster/resourceflavor-fb.yaml",
            "clusters/prod/team-b/_queues/kustomization.yaml",
            "clusters/prod/team-b/_queues/localqueue-qb.yaml"),
        List.copyOf(tree.files().keySet()));
    assertTrue(
        tree.files()
            .get("clusters/prod/_cluster/clusterqueue-cqb.yaml")
            .contains("trainyard.dev/platform: platform.yaml (GitOps repo)\n"));
  }

  @Test
  @DisplayName(
      "a run's compile writes the same queue files, byte for byte, for its cluster and namespace")
  void sameAsCompile() throws Exception {
    TrainProject p = TrainProject.create(temp.resolve("src"), "run: torchrun train.py\n");
    CompileCall call =
        CompileCall.of(p.trainYaml()).platformText(temp.resolve("p"), TwoClusterPlatform.TEXT);
    SortedMap<String, String> compiled = new TreeMap<>();
    TrainProject.tree(call.compile())
        .files()
        .forEach(
            (k, v) -> {
              if (k.contains("/_cluster/") || k.contains("/_queues/")) {
                compiled.put(k, v);
              }
            });
    Path file = temp.resolve("p").resolve("platform.yaml");
    assertTrue(Files.exists(file), "CompileCall writes platform.yaml there");
    StageResult<OutputTree> r;
    try (Compiler c = new Compiler(SshSecretProvider.system())) {
      // The display name the compile stamped (platform.yaml's path from the working folder).
      Matcher m =
          Pattern.compile("trainyard.dev/platform: (.+)\n")
              .matcher(compiled.get("clusters/local/_cluster/clusterqueue-cqa.yaml"));
      assertTrue(m.find());
      r = c.renderQueues(Optional.of(file), m.group(1), Optional.empty());
    }
    SortedMap<String, String> rendered = new TreeMap<>();
    r.value()
        .orElseThrow()
        .files()
        .forEach(
            (k, v) -> {
              if (compiled.containsKey(k)) {
                rendered.put(k, v);
              }
            });
    assertEquals(compiled, rendered);
    assertEquals(5, compiled.size(), compiled.keySet().toString());
  }

  @Test
  @DisplayName(
      "a namespace with no queue object gets no folder; the embedded default renders local/default")
  void embedded() throws Exception {
    try (Compiler c = new Compiler(SshSecretProvider.system())) {
      OutputTree embedded =
          c.renderQueues(Optional.empty(), "<embedded default platform>", Optional.empty())
              .value()
              .orElseThrow();
      assertEquals(
          List.of("clusters/local/_cluster", "clusters/local/default/_queues"),
          embedded.ownedFolders());
    }
  }

  @Test
  @DisplayName(
      "a broken platform.yaml, or a runtime it names that is missing, stops the render with its diagnostics")
  void broken() throws Exception {
    StageResult<OutputTree> schema =
        render(TwoClusterPlatform.TEXT + "bogus: 1\n", "platform.yaml");
    assertTrue(schema.failed());
    assertTrue(schema.diagnostics().stream().anyMatch(Diagnostic::isError));
    StageResult<OutputTree> runtime =
        render(
            TwoClusterPlatform.with("defaultRuntime: torch", "defaultRuntime: nope"),
            "platform.yaml");
    assertTrue(runtime.failed(), runtime.diagnostics().toString());
  }

  @Test
  @DisplayName(
      "the queue objects pass the output check; a bad object name is E601 at platform.yaml")
  void checked() {
    Manifest bad =
        Manifest.of(Manifest.skeleton("kueue.x-k8s.io/v1beta2", "ClusterQueue", "Bad_Name", ""));
    StageResult<QueueSet> r =
        new CheckStage()
            .check(
                new QueueSet("local", List.of(bad), new TreeMap<>(Map.of("ns", List.of()))),
                "platform.yaml");
    assertTrue(r.failed());
    assertEquals(DiagnosticCode.OUTPUT_INVALID, r.diagnostics().get(0).code());
    assertEquals("platform.yaml", r.diagnostics().get(0).location().file());
    QueueSet empty = new QueueSet("local", List.of(), new TreeMap<>(Map.of("ns", List.of())));
    assertEquals(Map.of(), empty.localQueues(), "a namespace without objects is dropped");
  }
}
