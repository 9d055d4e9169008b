package dev.trainyard.gitops.preview;

import dev.trainyard.gitops.MapSnapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.platform.PlatformLoader;
import dev.trainyard.compiler.schema.NetworkntSchemaValidator;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Call-outs and summary facts from in-memory trees (the pure stage), one rule per test. */
class CallOutsTest {
  @TempDir Path temp;

  private Platform platform(String yaml) throws Exception {
    Path file = Files.writeString(temp.resolve("platform.yaml"), yaml);
    return new PlatformLoader(new YamlDocumentLoader(), new NetworkntSchemaValidator()).load(Optional.of(file), "platform.yaml").value().orElseThrow();
  }

  private Preview preview(Platform platform, Map<String, String> base, Map<String, String> head) {
    MapSnapshot a = new MapSnapshot(base);
    MapSnapshot b = new MapSnapshot(head);
    return new PreviewBuilder(platform).build(new PreviewBuilder.Labels(Preview.Mode.GITOPS, "base", "head", List.of(), ""), a, b, MapSnapshot.changed(a, b));
  }

  private Map<String, String> run(String folder, String trainYaml, String platform, char commit) {
    return PreviewRepos.compile(temp, folder, trainYaml, platform, PreviewRepos.sha(commit), PreviewRepos.T0, 1);
  }

  private static List<String> codes(Preview p) {
    return p.callOuts().stream().map(CallOut::code).toList();
  }

  @Test
  @DisplayName("a run whose LocalQueue platform.yaml lacks is refused: Kueue never admits it")
  void queueMissing() throws Exception {
    Map<String, String> a = run("jobs/a", PreviewCases.TORCH, PreviewCases.QUEUES, '1');
    Preview p = preview(platform(PreviewCases.EXAMPLE), Map.of(), a);
    assertEquals(List.of("queue-missing"), codes(p));
    assertTrue(p.refused());
    assertTrue(p.queues().get(0).clusterQueue().isEmpty());
  }

  @Test
  @DisplayName("GPUs a queue does not cover are refused")
  void notCovered() throws Exception {
    String noGpus = PreviewCases.QUEUES.replace(", nvidia.com/gpu: \"32\"", "");
    Map<String, String> a = run("jobs/a", "run: torchrun train.py\nresources: {gpus: 8}\n", PreviewCases.QUEUES_GENEROUS, '1');
    Preview p = preview(platform(noGpus), Map.of(), a);
    assertEquals(List.of("not-covered"), codes(p));
    assertTrue(p.callOuts().get(0).message().contains("8 `nvidia.com/gpu`"), p.callOuts().toString());
  }

  @Test
  @DisplayName("a LocalQueue's clusterQueue changed in place is refused as immutable; a ConfigMap change is not")
  void localQueueImmutable() throws Exception {
    Map<String, String> files = new HashMap<>();
    files.put("clusters/c/ns/r-000000/localqueue-q.yaml", "kind: LocalQueue\nmetadata: {name: q, namespace: ns}\nspec: {clusterQueue: a}\n");
    files.put("clusters/c/ns/r-000000/configmap-x.yaml", "kind: ConfigMap\nmetadata: {name: x, namespace: ns}\ndata: {k: a}\n");
    Map<String, String> head = new HashMap<>(files);
    head.put("clusters/c/ns/r-000000/localqueue-q.yaml", "kind: LocalQueue\nmetadata: {name: q, namespace: ns}\nspec: {clusterQueue: b}\n");
    head.put("clusters/c/ns/r-000000/configmap-x.yaml", "kind: ConfigMap\nmetadata: {name: x, namespace: ns}\ndata: {k: b}\n");
    Preview p = preview(platform(PreviewCases.EXAMPLE), files, head);
    assertEquals(List.of("immutable-field"), codes(p));
    assertTrue(p.callOuts().get(0).message().startsWith("LocalQueue ns/q changes spec.clusterQueue in place"), p.callOuts().toString());
  }

  @Test
  @DisplayName("an image change without a runtime change is called out; a run with neither is not")
  void imageChanged() throws Exception {
    Map<String, String> a = run("jobs/a", PreviewCases.TORCH, PreviewCases.EXAMPLE, '1');
    Map<String, String> b = run("jobs/a", PreviewCases.TORCH + "image: ghcr.io/acme/torch:v2\n", PreviewCases.EXAMPLE, '2');
    Map<String, String> c = run("jobs/a", PreviewCases.TORCH, PreviewCases.EXAMPLE, '3');
    Platform example = platform(PreviewCases.EXAMPLE);
    Preview changed = preview(example, a, PreviewCases.files(a, b));
    assertEquals(List.of("image-changed"), codes(changed));
    assertTrue(changed.callOuts().get(0).message().contains("→ ghcr.io/acme/torch:v2 since `" + changed.runs().get(0).previous().get().folder().run() + "`"));
    assertEquals(List.of(), codes(preview(example, a, PreviewCases.files(a, c))));
  }

  @Test
  @DisplayName("the previous run is the newest by created-at among runs of the same train.yaml; other train.yaml files do not count")
  void previousIsNewest() throws Exception {
    Map<String, String> old = PreviewRepos.compile(temp, "jobs/a", PreviewCases.TORCH, PreviewCases.EXAMPLE, PreviewRepos.sha('1'), PreviewRepos.T0, 1);
    Map<String, String> newer = PreviewRepos.compile(temp, "jobs/a", PreviewCases.TORCH.replace("nodes: 2", "nodes: 3"), PreviewCases.EXAMPLE,
        PreviewRepos.sha('2'), PreviewCases.T1, 1);
    Map<String, String> otherJob = PreviewRepos.compile(temp, "jobs/b", "name: a\n" + PreviewCases.TORCH, PreviewCases.EXAMPLE, PreviewRepos.sha('3'), PreviewCases.T2, 1);
    Map<String, String> head = run("jobs/a", PreviewCases.TORCH.replace("nodes: 2", "nodes: 4"), PreviewCases.EXAMPLE, '4');
    Map<String, String> base = PreviewCases.files(old, newer, otherJob);
    Preview p = preview(platform(PreviewCases.EXAMPLE), base, PreviewCases.files(base, head));
    RunChange added = p.runs(RunChange.Status.ADDED).get(0);
    assertEquals(PreviewCases.runFolder(newer), added.previous().orElseThrow().folder().path());
    assertEquals(List.of(PreviewRepos.sha('2'), PreviewCases.T1.toString()), List.of(added.previous().get().sourceCommit(), added.previous().get().createdAt()),
        "the previous run's own provenance, not the new run's");
    assertEquals("nodes 3 → 4 (vs. " + added.previous().get().folder().run() + ")", SummaryTables.since(added));
  }

  @Test
  @DisplayName("runs of several queues are totalled per LocalQueue, with the quota summed over flavors; nothing over quota is refused")
  void totals() throws Exception {
    String gpus = "run: torchrun train.py\nresources: {gpus: 4}\n";
    Map<String, String> x = run("jobs/x", gpus + "nodes: 2\nqueue: small\n", PreviewCases.QUEUES_GENEROUS, '1');
    Map<String, String> y = run("jobs/y", gpus + "nodes: 1\nqueue: small\n", PreviewCases.QUEUES_GENEROUS, '2');
    Preview p = preview(platform(PreviewCases.QUEUES), Map.of(), PreviewCases.files(x, y));
    QueueTotal small = p.queues().get(0);
    assertEquals(List.of("team-a", "small", 2, "12", "32"), List.of(small.namespace(), small.queue(), small.runs(), Quantity.plain(small.gpus()),
        Quantity.plain(small.quota().orElseThrow())));
    assertFalse(small.over());
    assertFalse(p.refused());
    assertEquals(List.of(), codes(p));
  }
}
