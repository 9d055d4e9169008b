package dev.trainyard.cluster;

import dev.trainyard.controller.forge.FakeForge;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Runs for the status controller ITs: the 2-pod minimal JobSet carrying the compiler's provenance
 * keys (source repo on a test forge host, source commit, train.yaml path, cluster "it", run label),
 * its pods labelled with a kwok outcome ({@code kwok/pod-outcome-stages.yaml}), and the posts a
 * forge accepted for one commit.
 */
final class StatusRuns {

  private StatusRuns() {}

  /**
   * A JobSet {@code name} whose source is {@code https://<host>/acme/<name>.git} at {@code sha}.
   */
  static GenericKubernetesResource run(
      String name, String host, String sha, String outcome, String runFor, String localQueue) {
    GenericKubernetesResource js = JobSets.minimal(name, "node", 1, 2);
    Map<String, String> labels = new LinkedHashMap<>(Map.of("trainyard.dev/run", name));
    if (localQueue != null) {
      labels.put("kueue.x-k8s.io/queue-name", localQueue);
    }
    js.getMetadata().setLabels(labels);
    js.getMetadata()
        .setAnnotations(
            new LinkedHashMap<>(
                Map.of(
                    "trainyard.dev/source-repo",
                    "https://" + host + "/acme/" + name + ".git",
                    "trainyard.dev/source-commit",
                    sha,
                    "trainyard.dev/source-path",
                    "jobs/" + name + "/train.yaml",
                    "trainyard.dev/cluster",
                    "it")));
    JobSets.labelPods(js, "trainyard.dev/kwok-outcome", outcome);
    if (runFor != null) {
      for (Map<String, Object> rjob : JobSets.replicatedJobs(js)) {
        @SuppressWarnings("unchecked")
        Map<String, Object> podMeta =
            (Map<String, Object>)
                ((Map<String, Object>)
                        ((Map<String, Object>)
                                ((Map<String, Object>) rjob.get("template")).get("spec"))
                            .get("template"))
                    .get("metadata");
        podMeta.put(
            "annotations", new LinkedHashMap<>(Map.of("trainyard.dev/kwok-run-for", runFor)));
      }
    }
    return js;
  }

  /** A 40-hex SHA made from {@code seed}, unique per test. */
  static String sha(String seed) {
    String hex = Integer.toHexString(seed.hashCode() & 0x7fffffff);
    return (hex + "0".repeat(40)).substring(0, 40);
  }

  /** What the forge accepted for {@code sha}, in order. */
  static List<FakeForge.Accepted> posts(FakeForge forge, String sha) {
    return forge.accepted().stream().filter(a -> a.sha().equals(sha)).toList();
  }

  /** "state description" lines, for assertions and messages. */
  static List<String> lines(List<FakeForge.Accepted> posts) {
    return posts.stream().map(a -> a.state() + " | " + a.description()).toList();
  }

  /**
   * The states with consecutive repeats collapsed: pending, pending, success → pending, success.
   */
  static List<String> transitions(List<FakeForge.Accepted> posts) {
    List<String> out = new ArrayList<>();
    for (FakeForge.Accepted a : posts) {
      if (out.isEmpty() || !out.get(out.size() - 1).equals(a.state())) {
        out.add(a.state());
      }
    }
    return out;
  }

  /** Whether any post repeats its predecessor's state and description (a duplicate). */
  static boolean hasDuplicate(List<FakeForge.Accepted> posts) {
    for (int i = 1; i < posts.size(); i++) {
      if (posts.get(i).state().equals(posts.get(i - 1).state())
          && posts.get(i).description().equals(posts.get(i - 1).description())) {
        return true;
      }
    }
    return posts.stream()
        .collect(Collectors.groupingBy(a -> a.state() + a.description(), Collectors.counting()))
        .values()
        .stream()
        .anyMatch(n -> n > 1);
  }

  static boolean terminal(FakeForge.Accepted a) {
    return List.of("success", "failure", "error", "failed", "canceled").contains(a.state());
  }
}
