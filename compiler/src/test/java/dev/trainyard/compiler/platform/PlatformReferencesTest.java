package dev.trainyard.compiler.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.CompileCall;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.TwoClusterPlatform;
import dev.trainyard.compiler.testing.Wording;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Cross-references inside platform.yaml, each an E304 at the line of the broken reference. */
class PlatformReferencesTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path temp;
  private int projects;

  private CompileResult compile(String platformYaml) {
    Path dir = temp.resolve("p" + projects++);
    TrainProject p = TrainProject.create(dir, "run: torchrun train.py\n");
    return CompileCall.of(p.trainYaml()).platformText(dir, platformYaml).compile();
  }

  /** The E304 diagnostics of compiling against {@code platformYaml}, which must fail. */
  private List<Diagnostic> invalid(String platformYaml) {
    CompileResult r = compile(platformYaml);
    assertFalse(r.tree().isPresent(), r.diagnostics().toString());
    List<Diagnostic> d = TrainProject.withCode(r, DiagnosticCode.INVALID_PLATFORM);
    d.forEach(
        x ->
            assertTrue(x.isError() && x.location().file().endsWith("platform.yaml"), x.toString()));
    return d;
  }

  private Diagnostic only(String platformYaml) {
    List<Diagnostic> d = invalid(platformYaml);
    assertEquals(1, d.size(), d.toString());
    return d.get(0);
  }

  @Test
  @DisplayName("the two-cluster platform itself compiles with no platform diagnostic")
  void baselineCompiles() {
    CompileResult r = compile(TwoClusterPlatform.TEXT);
    assertEquals(List.of(), TrainProject.withCode(r, DiagnosticCode.INVALID_PLATFORM));
    assertTrue(r.tree().isPresent(), r.diagnostics().toString());
  }

  @Test
  @DisplayName(
      "a namespace naming an unknown cluster is E304 at its line, listing the known clusters")
  void unknownCluster() {
    Diagnostic d = only(TwoClusterPlatform.with("cluster: prod,", "cluster: stage,"));
    WORDING.approve(d.message());
    assertEquals("/namespaces/1/cluster", d.pointer());
    assertEquals(9, d.location().line());
    WORDING.approve(d.hint());
  }

  @Test
  @DisplayName(
      "a defaultQueue that is no LocalQueue, or a LocalQueue of another namespace, is E304 at its line")
  void defaultQueueNotLocalQueue() {
    Diagnostic d = only(TwoClusterPlatform.with("defaultQueue: qb", "defaultQueue: qz"));
    WORDING.approve(d.message());
    assertEquals("/namespaces/1/defaultQueue", d.pointer());
    assertEquals(9, d.location().line());
    WORDING.approve(d.hint());
    Diagnostic other = only(TwoClusterPlatform.with("defaultQueue: qa", "defaultQueue: qb"));
    WORDING.approve(other.message());
    assertEquals(8, other.location().line());
  }

  @Test
  @DisplayName("a ClusterQueue naming an unknown ResourceFlavor is E304 at the flavor's line")
  void unknownFlavor() {
    Diagnostic d = only(TwoClusterPlatform.with("{name: fb, quota", "{name: fz, quota"));
    WORDING.approve(d.message());
    assertEquals("/queues/clusterQueues/1/flavors/0/name", d.pointer());
    assertEquals(17, d.location().line());
  }

  @Test
  @DisplayName("a LocalQueue naming an unknown ClusterQueue is E304 at its line")
  void unknownClusterQueue() {
    Diagnostic d = only(TwoClusterPlatform.with("clusterQueue: cqb}", "clusterQueue: cqz}"));
    WORDING.approve(d.message());
    assertEquals("/queues/localQueues/1/clusterQueue", d.pointer());
    assertEquals(20, d.location().line());
  }

  @Test
  @DisplayName(
      "a LocalQueue whose ClusterQueue does not list its namespace is E304 (Kueue never admits it); '*' lists all")
  void clusterQueueNamespaces() {
    Diagnostic d = only(TwoClusterPlatform.with("clusterQueue: cqb}", "clusterQueue: cqa}"));
    WORDING.approve(d.message());
    assertEquals(20, d.location().line());
    WORDING.approve(d.hint());
    String star =
        TwoClusterPlatform.with("clusterQueue: cqb}", "clusterQueue: cqa}")
            .replace("{name: cqa, namespaces: [team-a]", "{name: cqa, namespaces: [\"*\"]");
    assertEquals(List.of(), TrainProject.withCode(compile(star), DiagnosticCode.INVALID_PLATFORM));
  }

  @Test
  @DisplayName(
      "a LocalQueue in a namespace that `namespaces` does not declare is E304 at its namespace")
  void undeclaredNamespace() {
    Diagnostic d =
        only(
            TwoClusterPlatform.with(
                    "namespace: team-b, clusterQueue: cqb}",
                    "namespace: team-b, clusterQueue: cqb}\n    - {name: qc, namespace: team-c, clusterQueue: cqc}")
                .replace(
                    "  localQueues:",
                    "    - {name: cqc, namespaces: [\"*\"], flavors: [{name: fa, quota: {cpu: \"1\"}}]}\n  localQueues:"));
    WORDING.approve(d.message());
    assertEquals("/queues/localQueues/2/namespace", d.pointer());
    assertEquals(22, d.location().line());
  }

  @Test
  @DisplayName(
      "a cluster, namespace, ResourceFlavor, ClusterQueue or LocalQueue defined twice is E304 at the second one")
  void duplicates() {
    assertDuplicate(
        TwoClusterPlatform.with(
            "  - {name: prod, domain: cluster.local}\n",
            "  - {name: prod, domain: cluster.local}\n  - {name: prod, domain: other.local}\n"),
        "cluster \"prod\" is defined twice",
        "/clusters/2",
        7);
    assertDuplicate(
        TwoClusterPlatform.with("    - {name: fb}\n", "    - {name: fb}\n    - {name: fb}\n"),
        "ResourceFlavor \"fb\" is defined twice",
        "/queues/resourceFlavors/2",
        15);
    String cq =
        "    - {name: cqb, namespaces: [team-b], flavors: [{name: fb, quota: {cpu: \"8\", memory: 32Gi}}]}\n";
    assertDuplicate(
        TwoClusterPlatform.with(cq, cq + cq),
        "ClusterQueue \"cqb\" is defined twice",
        "/queues/clusterQueues/2",
        18);
    String lq = "    - {name: qb, namespace: team-b, clusterQueue: cqb}\n";
    assertDuplicate(
        TwoClusterPlatform.with(lq, lq + lq),
        "LocalQueue \"team-b/qb\" is defined twice",
        "/queues/localQueues/2",
        21);
    String ns = "  - {name: team-b, cluster: prod, sources: [\"*\"], defaultQueue: qb}\n";
    assertDuplicate(
        TwoClusterPlatform.with(ns, ns + ns),
        "namespace \"prod/team-b\" is defined twice",
        "/namespaces/2",
        10);
  }

  @Test
  @DisplayName("the same namespace or LocalQueue name in two different places is no duplicate")
  void sameNameElsewhereIsNoDuplicate() {
    String text =
        TwoClusterPlatform.with(
                "  - {name: team-b, cluster: prod, sources: [\"*\"], defaultQueue: qb}\n",
                "  - {name: team-b, cluster: prod, sources: [\"*\"], defaultQueue: qb}\n  - {name: team-b, cluster: local, sources: [\"*\"], defaultQueue: qb}\n")
            .replace("namespaces: [team-a]", "namespaces: [\"*\"]")
            .replace(
                "  localQueues:\n",
                "  localQueues:\n    - {name: qb, namespace: team-a, clusterQueue: cqa}\n");
    assertEquals(List.of(), TrainProject.withCode(compile(text), DiagnosticCode.INVALID_PLATFORM));
  }

  private void assertDuplicate(String text, String message, String pointer, int line) {
    List<Diagnostic> d =
        invalid(text).stream().filter(x -> x.message().endsWith("is defined twice")).toList();
    assertEquals(1, d.size(), d.toString());
    assertEquals(message, d.get(0).message());
    assertEquals(pointer, d.get(0).pointer());
    assertEquals(line, d.get(0).location().line());
  }
}
