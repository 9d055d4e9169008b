package dev.trainyard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code trainyard platform render} against the real Kueue controller: the queue objects it writes
 * from platform.yaml are what Kueue admits by. A run queued under a ClusterQueue too small for it
 * stays suspended; the platform team raises the quota in platform.yaml, {@code render --check}
 * names the stale ClusterQueue, {@code render} rewrites it, and once that file is applied (as Flux
 * or Argo CD would after the merge) Kueue admits the waiting run.
 */
@ExtendWith(KubeClusterExtension.class)
class PlatformRenderIT {
  @TempDir Path temp;

  private static String platform(String namespace, String prefix, String cpuQuota) {
    return String.join(
        "\n",
        "apiVersion: trainyard.dev/v1",
        "kind: Platform",
        "clusters: [{name: local}]",
        "namespaces: [{name: "
            + namespace
            + ", cluster: local, sources: [\"*\"], defaultQueue: "
            + prefix
            + "-lq}]",
        "secrets: {policy: plain, allowPlain: true}",
        "queues:",
        "  resourceFlavors: [{name: " + prefix + "-flavor}]",
        "  clusterQueues: [{name: "
            + prefix
            + "-cq, namespaces: ["
            + namespace
            + "], flavors: [{name: "
            + prefix
            + "-flavor, quota: {cpu: \""
            + cpuQuota
            + "\", memory: 8Gi}}]}]",
        "  localQueues: [{name: "
            + prefix
            + "-lq, namespace: "
            + namespace
            + ", clusterQueue: "
            + prefix
            + "-cq}]",
        "");
  }

  /** Applies every object file (not kustomization.yaml) of the rendered queue folders. */
  private static void applyQueues(Manifests manifests, Path gitops, String namespace)
      throws Exception {
    try (Stream<Path> files = Files.walk(gitops.resolve("clusters"))) {
      for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
        String name = f.getFileName().toString();
        if (name.equals("kustomization.yaml")) {
          continue;
        }
        for (GenericKubernetesResource o :
            Manifests.parse(Files.readString(f, StandardCharsets.UTF_8))) {
          manifests.apply(manifests.placed(o, namespace));
        }
      }
    }
  }

  @Test
  @DisplayName(
      "a run queued under a 100m-CPU ClusterQueue stays suspended; raised to 4 in platform.yaml and re-rendered, it is admitted")
  void renderedQuotaAdmits(KubeCluster cluster) throws Exception {
    assumeTrue(
        cluster.runs(Component.KUEUE_CONTROLLER),
        "NOT RUN: Kueue controller not built (see VERSIONS)");
    String namespace = cluster.newNamespace();
    String prefix = "render-" + Integer.toHexString(namespace.hashCode());
    Path gitops = Files.createDirectories(temp.resolve("gitops"));
    Files.writeString(gitops.resolve("platform.yaml"), platform(namespace, prefix, "100m"));
    TrainyardCli.run("platform", "render", gitops.toString()).requireSuccess("platform render");
    Manifests manifests = new Manifests(cluster.client());
    applyQueues(manifests, gitops, namespace);

    GenericKubernetesResource run = JobSets.minimal(prefix + "-run", "node", 1, 2);
    run.getMetadata().setLabels(new HashMap<>(Map.of("kueue.x-k8s.io/queue-name", prefix + "-lq")));
    manifests.apply(manifests.placed(run, namespace));
    Resource<GenericKubernetesResource> jobSet =
        JobSets.api(cluster.client()).inNamespace(namespace).withName(prefix + "-run");
    Eventually.await(
        "Kueue suspends the JobSet", KueueIT.ADMIT_TIMEOUT, () -> JobSets.suspended(jobSet.get()));
    Eventually.sleep(KueueIT.STAYS_QUEUED);
    assertTrue(
        JobSets.suspended(jobSet.get()),
        "200m asked, 100m quota: " + JobSets.describe(jobSet.get()));

    Files.writeString(gitops.resolve("platform.yaml"), platform(namespace, prefix, "4"));
    TrainyardCli.Result check =
        TrainyardCli.run("platform", "render", "--check", gitops.toString());
    assertEquals(1, check.exit(), check.err());
    assertTrue(
        check.err().startsWith("clusters/local/_cluster/clusterqueue-" + prefix + "-cq.yaml:"),
        check.err());
    TrainyardCli.Result render = TrainyardCli.run("platform", "render", gitops.toString());
    assertEquals(
        List.of("  M clusters/local/_cluster/clusterqueue-" + prefix + "-cq.yaml"),
        render.out().lines().filter(l -> l.startsWith("  ")).toList(),
        render.out());
    applyQueues(manifests, gitops, namespace);
    Eventually.await(
        "JobSet admitted (spec.suspend=false) under the re-rendered quota",
        KueueIT.ADMIT_TIMEOUT,
        () -> !JobSets.suspended(jobSet.get()),
        () -> JobSets.describe(jobSet.get()));
  }
}
