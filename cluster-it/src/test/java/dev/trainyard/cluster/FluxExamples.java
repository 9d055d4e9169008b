package dev.trainyard.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The Flux files shipped in {@code examples/gitops/flux/} ({@link #FILES}), read as a platform team
 * uses them: the example URL, cluster ({@value #EXAMPLE_CLUSTER}) and namespace ({@value
 * #EXAMPLE_NAMESPACE}) replaced by their own. Every example value must occur in the files, so an
 * edit of the examples that these tests would no longer cover fails here instead of being tested
 * half.
 *
 * <pre>
 * List&lt;GenericKubernetesResource&gt; objects = FluxExamples.objects(url, "flux-it", namespace);
 * FluxExamples.shortenIntervals(objects, Duration.ofSeconds(5));
 * </pre>
 */
final class FluxExamples {

  static final String EXAMPLE_URL = "https://git.example.com/platform/trainyard-gitops.git";
  static final String EXAMPLE_CLUSTER = "prod";
  static final String EXAMPLE_NAMESPACE = "team-a";
  static final List<String> FILES =
      List.of("gitrepository.yaml", "queues.yaml", "runs-team-a.yaml");
  static final String GIT_REPOSITORY = "trainyard-gitops";
  static final String QUEUES = "trainyard-queues";

  private FluxExamples() {}

  static Path dir() {
    return K8sBinaries.repoRoot().resolve("examples/gitops/flux");
  }

  /**
   * Name of the Kustomization that syncs {@code namespace}'s runs (the example's name, adapted).
   */
  static String runsKustomization(String namespace) {
    return "trainyard-runs-" + namespace;
  }

  /** The shipped files as one YAML stream with the example values replaced. */
  static String text(String url, String cluster, String namespace) {
    String text = String.join("\n---\n", FILES.stream().map(f -> read(dir().resolve(f))).toList());
    Map<String, String> replacements =
        Map.of(
            EXAMPLE_URL,
            url,
            "./clusters/" + EXAMPLE_CLUSTER + "/_cluster",
            "./clusters/" + cluster + "/_cluster",
            "./clusters/" + EXAMPLE_CLUSTER + "/" + EXAMPLE_NAMESPACE,
            "./clusters/" + cluster + "/" + namespace,
            runsKustomization(EXAMPLE_NAMESPACE),
            runsKustomization(namespace));
    for (Map.Entry<String, String> replacement : replacements.entrySet()) {
      if (!text.contains(replacement.getKey())) {
        throw new AssertionError(
            "examples/gitops/flux no longer contains '"
                + replacement.getKey()
                + "'; update FluxExamples with the example");
      }
      text = text.replace(replacement.getKey(), replacement.getValue());
    }
    return text;
  }

  /**
   * The shipped objects (GitRepository, then the Kustomizations) with the example values replaced.
   */
  static List<GenericKubernetesResource> objects(String url, String cluster, String namespace) {
    return Manifests.parse(text(url, cluster, namespace));
  }

  /**
   * Sets {@code spec.interval} and {@code spec.retryInterval} of every object to {@code interval}:
   * the shipped minutes suit a cluster, a test cannot wait that long. Nothing else is changed.
   */
  static void shortenIntervals(List<GenericKubernetesResource> objects, Duration interval) {
    for (GenericKubernetesResource object : objects) {
      @SuppressWarnings("unchecked")
      Map<String, Object> spec = (Map<String, Object>) object.getAdditionalProperties().get("spec");
      spec.put("interval", interval.toSeconds() + "s");
      if (spec.containsKey("retryInterval")) {
        spec.put("retryInterval", interval.toSeconds() + "s");
      }
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the shipped Flux example " + file, e);
    }
  }
}
