package dev.trainyard.compiler.render;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

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
    return TrainProject.tree(r).files().keySet().stream()
        .filter(f -> f.contains("/_") && !f.endsWith("/kustomization.yaml"))
        .sorted()
        .toList();
  }

  private CompileCall call(String platform) {
    TrainProject p = TrainProject.create(temp, "run: torchrun train.py\n");
    return CompileCall.of(p.trainYaml()).platformText(temp, platform);
  }

  @Test
  @DisplayName(
      "compiling for cluster local emits its ClusterQueue, ResourceFlavor and LocalQueue; prod's stay out")
  void otherClusterStaysOut() {
    assertEquals(
        List.of(
            "clusters/local/_cluster/clusterqueue-cqa.yaml",
            "clusters/local/_cluster/resourceflavor-fa.yaml",
            "clusters/local/team-a/_queues/localqueue-qa.yaml"),
        queueFiles(call(TwoClusterPlatform.TEXT)));
  }

  @Test
  @DisplayName(
      "a forge (app: or token:) adds the RoleBinding that lets the controller read pod logs in the"
          + " run's namespace only (progress, a check's log lines); no forge adds nothing")
  void checkRunsGrantLogsPerNamespace() {
    String checks =
        TwoClusterPlatform.TEXT
            + "status:\n  forges:\n  - {source: github.com, kind: github, api: https://api.github.com,"
            + " app: {id: 7, privateKey: {secret: gh-app, key: key.pem}}}\n";
    assertEquals(
        List.of(
            "clusters/local/_cluster/clusterqueue-cqa.yaml",
            "clusters/local/_cluster/resourceflavor-fa.yaml",
            "clusters/local/team-a/_queues/localqueue-qa.yaml",
            "clusters/local/team-a/_queues/rolebinding-trainyard-controller-logs.yaml"),
        queueFiles(call(checks)));
    var files = TrainProject.tree(call(checks).compile()).files();
    var rb =
        TrainProject.parse(
            "rb",
            files.get("clusters/local/team-a/_queues/rolebinding-trainyard-controller-logs.yaml"));
    assertEquals("rbac.authorization.k8s.io/v1", rb.path("apiVersion").asText());
    var lq =
        TrainProject.parse("lq", files.get("clusters/local/team-a/_queues/localqueue-qa.yaml"));
    assertEquals(
        lq.at("/metadata/annotations").toString(),
        rb.at("/metadata/annotations").toString(),
        "the RoleBinding carries the queue objects' provenance annotations");
    assertFalse(rb.at("/metadata/annotations").isEmpty());
    assertEquals("team-a", rb.at("/metadata/namespace").asText());
    assertEquals(
        "{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\",\"name\":\"trainyard-controller-logs\"}",
        rb.path("roleRef").toString());
    assertEquals(
        "[{\"kind\":\"ServiceAccount\",\"name\":\"trainyard-controller\",\"namespace\":\"trainyard-system\"}]",
        rb.path("subjects").toString());
    String tokens =
        TwoClusterPlatform.TEXT
            + "status:\n  forges:\n  - {source: github.com, kind: github, api: https://api.github.com,"
            + " token: {secret: t, key: k}}\n";
    assertEquals(
        "clusters/local/team-a/_queues/rolebinding-trainyard-controller-logs.yaml",
        queueFiles(call(tokens)).get(3));
    assertEquals(3, queueFiles(call(TwoClusterPlatform.TEXT)).size());
  }

  @Test
  @DisplayName("compiling for cluster prod emits prod's queue objects only")
  void prodOnly() {
    assertEquals(
        List.of(
            "clusters/prod/_cluster/clusterqueue-cqb.yaml",
            "clusters/prod/_cluster/resourceflavor-fb.yaml",
            "clusters/prod/team-b/_queues/localqueue-qb.yaml"),
        queueFiles(call(TwoClusterPlatform.TEXT).cluster("prod")));
  }

  @Test
  @DisplayName("a ResourceFlavor no ClusterQueue of the cluster uses stays out, even when defined")
  void unusedFlavorStaysOut() {
    String text =
        TwoClusterPlatform.with("    - {name: fb}\n", "    - {name: fb}\n    - {name: fc}\n");
    assertEquals(
        List.of(
            "clusters/local/_cluster/clusterqueue-cqa.yaml",
            "clusters/local/_cluster/resourceflavor-fa.yaml",
            "clusters/local/team-a/_queues/localqueue-qa.yaml"),
        queueFiles(call(text)));
  }

  @Test
  @DisplayName(
      "a ClusterQueue lists its namespaces, cohort, covered resources and each flavor's quota (0 where none); flavors keep node labels")
  void objectContents() {
    String text =
        TwoClusterPlatform.with(
                "    - {name: fa}\n", "    - {name: fa, nodeLabels: {zone: b, pool: gpu}}\n")
            .replace(
                "{name: cqa, namespaces: [team-a], flavors: [{name: fa, quota: {cpu: \"8\", memory: 32Gi}}]}",
                "{name: cqa, namespaces: [team-a], cohort: pool, flavors: [{name: fa, quota: {cpu: \"8\", memory: 32Gi}},"
                    + " {name: fb, quota: {cpu: \"2\"}}]}");
    var files = TrainProject.tree(call(text).compile()).files();
    var cq = TrainProject.parse("cq", files.get("clusters/local/_cluster/clusterqueue-cqa.yaml"));
    assertEquals(
        "trainyard",
        cq.path("metadata").path("labels").path("app.kubernetes.io/managed-by").asText());
    assertEquals(false, cq.path("metadata").path("annotations").isEmpty(), cq.toString());
    var spec = cq.path("spec");
    assertEquals(
        "kubernetes.io/metadata.name",
        spec.path("namespaceSelector").path("matchExpressions").path(0).path("key").asText());
    assertEquals(
        "[\"team-a\"]",
        spec.path("namespaceSelector").path("matchExpressions").path(0).path("values").toString());
    assertEquals("pool", spec.path("cohortName").asText());
    assertEquals("BestEffortFIFO", spec.path("queueingStrategy").asText());
    var group = spec.path("resourceGroups").path(0);
    assertEquals("[\"cpu\",\"memory\"]", group.path("coveredResources").toString());
    assertEquals(
        "[{\"name\":\"cpu\",\"nominalQuota\":\"8\"},{\"name\":\"memory\",\"nominalQuota\":\"32Gi\"}]",
        group.path("flavors").path(0).path("resources").toString());
    assertEquals("fb", group.path("flavors").path(1).path("name").asText());
    assertEquals(
        "[{\"name\":\"cpu\",\"nominalQuota\":\"2\"},{\"name\":\"memory\",\"nominalQuota\":\"0\"}]",
        group.path("flavors").path(1).path("resources").toString());
    var fa = TrainProject.parse("rf", files.get("clusters/local/_cluster/resourceflavor-fa.yaml"));
    assertEquals(
        "{\"pool\":\"gpu\",\"zone\":\"b\"}", fa.path("spec").path("nodeLabels").toString());
    assertEquals(false, fa.path("metadata").path("annotations").isEmpty(), fa.toString());
    var fb = TrainProject.parse("rf", files.get("clusters/local/_cluster/resourceflavor-fb.yaml"));
    assertEquals(true, fb.path("spec").path("nodeLabels").isMissingNode(), fb.toString());
    var lq =
        TrainProject.parse("lq", files.get("clusters/local/team-a/_queues/localqueue-qa.yaml"));
    assertEquals("cqa", lq.path("spec").path("clusterQueue").asText());
    assertEquals(false, lq.path("metadata").path("annotations").isEmpty(), lq.toString());
  }

  @Test
  @DisplayName(
      "a ClusterQueue for every namespace ('*') gets an empty namespaceSelector, which matches all")
  void allNamespaces() {
    String text =
        TwoClusterPlatform.TEXT.replace(
            "{name: cqa, namespaces: [team-a]", "{name: cqa, namespaces: [\"*\"]");
    var cq =
        TrainProject.parse(
            "cq",
            TrainProject.tree(call(text).compile())
                .files()
                .get("clusters/local/_cluster/clusterqueue-cqa.yaml"));
    assertEquals("{}", cq.path("spec").path("namespaceSelector").toString());
  }
}
