package dev.trainyard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped {@code examples/gitops/flux} files without a cluster: the real {@code kubectl
 * kustomize} builds them once a kustomization.yaml lists them, and they say what the GitOps loop
 * relies on (the runs' Kustomization prunes, does not wait, and depends on the queues'). FluxSyncIT
 * runs them for real.
 */
class FluxExamplesIT {

  @Test
  @DisplayName("every YAML file in examples/gitops/flux is one that the Flux tests read")
  void everyFileIsTested() throws Exception {
    try (Stream<Path> list = Files.list(FluxExamples.dir())) {
      assertEquals(
          FluxExamples.FILES.stream().sorted().toList(),
          list.map(p -> p.getFileName().toString())
              .filter(n -> n.endsWith(".yaml") || n.endsWith(".yml"))
              .sorted()
              .toList());
    }
    assertTrue(
        Files.isRegularFile(FluxExamples.dir().resolve("README.md")),
        "examples/gitops/flux/README.md");
  }

  @Test
  @DisplayName(
      "kubectl kustomize builds examples/gitops/flux given a kustomization.yaml listing its files")
  void kustomizeBuildsTheFolder(@TempDir Path temp) throws Exception {
    for (String file : FluxExamples.FILES) {
      Files.copy(FluxExamples.dir().resolve(file), temp.resolve(file));
    }
    Files.writeString(
        temp.resolve("kustomization.yaml"),
        "apiVersion: kustomize.config.k8s.io/v1beta1\n"
            + "kind: Kustomization\nresources:\n"
            + String.join("", FluxExamples.FILES.stream().map(f -> "- " + f + "\n").toList()),
        StandardCharsets.UTF_8);
    Process process =
        new ProcessBuilder(kubectl(), "kustomize", temp.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(process.waitFor(60, TimeUnit.SECONDS), "kubectl kustomize timed out");
    assertEquals(0, process.exitValue(), out);
    assertEquals(
        List.of("kind: GitRepository", "kind: Kustomization", "kind: Kustomization"),
        out.lines().filter(l -> l.startsWith("kind: ")).sorted().toList(),
        out);
  }

  @Test
  @DisplayName(
      "the runs' Kustomization prunes, does not wait, depends on trainyard-queues; both sync the GitRepository")
  void runsKustomizationContract() {
    List<GenericKubernetesResource> objects =
        FluxExamples.objects(
            FluxExamples.EXAMPLE_URL, FluxExamples.EXAMPLE_CLUSTER, FluxExamples.EXAMPLE_NAMESPACE);
    GenericKubernetesResource runs =
        named(objects, FluxExamples.runsKustomization(FluxExamples.EXAMPLE_NAMESPACE));
    assertEquals(true, runs.get("spec", "prune"), "prune");
    assertEquals(false, runs.get("spec", "wait"), "wait");
    assertEquals(List.of(Map.of("name", FluxExamples.QUEUES)), runs.get("spec", "dependsOn"));
    assertEquals("./clusters/prod/team-a", runs.get("spec", "path"));
    GenericKubernetesResource queues = named(objects, FluxExamples.QUEUES);
    assertEquals("./clusters/prod/_cluster", queues.get("spec", "path"));
    for (GenericKubernetesResource kustomization : List.of(runs, queues)) {
      assertEquals(
          Map.of("kind", "GitRepository", "name", FluxExamples.GIT_REPOSITORY),
          kustomization.get("spec", "sourceRef"),
          kustomization.getMetadata().getName());
    }
    GenericKubernetesResource source = named(objects, FluxExamples.GIT_REPOSITORY);
    assertEquals(Map.of("branch", "main"), source.get("spec", "ref"));
  }

  private static GenericKubernetesResource named(
      List<GenericKubernetesResource> objects, String name) {
    return objects.stream()
        .filter(o -> name.equals(o.getMetadata().getName()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no object " + name + " in examples/gitops/flux"));
  }

  /**
   * kubectl from the Kubernetes test binaries cache when built ({@code scripts/k8s-testbin}), else
   * from PATH.
   */
  private static String kubectl() {
    String dir = System.getProperty("trainyard.k8s.dir", "");
    Path cached = Path.of(dir, "bin", "kubectl");
    return !dir.isEmpty() && Files.isExecutable(cached) ? cached.toString() : "kubectl";
  }
}
