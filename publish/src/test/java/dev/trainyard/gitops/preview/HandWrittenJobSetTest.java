package dev.trainyard.gitops.preview;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.platform.PlatformLoader;
import dev.trainyard.compiler.schema.NetworkntSchemaValidator;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import dev.trainyard.gitops.MapSnapshot;
import dev.trainyard.gitops.RunFolder;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Runs whose JobSets a person wrote or edited (no Trainyard env, other layouts, missing labels):
 * what the preview reads from them, and which earlier run an added one is compared with.
 */
class HandWrittenJobSetTest {
  private static final Platform EMBEDDED =
      new PlatformLoader(new YamlDocumentLoader(), new NetworkntSchemaValidator())
          .load(Optional.empty(), PlatformLoader.EMBEDDED_NAME)
          .value()
          .orElseThrow();
  private static final RunFolder RUN = new RunFolder("local", "default", "a-000009");

  /**
   * A JobSet of run {@code name} created at {@code createdAt}, of jobs/a/train.yaml, without the
   * trainyard.dev/job label.
   */
  private static String jobSet(String name, String createdAt, String image) {
    return "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  annotations:\n    trainyard.dev/created-at: \""
        + createdAt
        + "\"\n"
        + "    trainyard.dev/source-path: jobs/a/train.yaml\n    trainyard.dev/source-repo: https://github.com/acme/ml.git\n  labels:\n"
        + "    kueue.x-k8s.io/queue-name: default\n  name: "
        + name
        + "\n  namespace: default\nspec:\n  replicatedJobs:\n  - name: node\n    replicas: 2\n"
        + "    template:\n      spec:\n        parallelism: 1\n        template:\n          spec:\n            containers:\n            - name: node\n"
        + "              image: "
        + image
        + "\n              env:\n              - {name: PET_NPROC_PER_NODE, value: many}\n"
        + "              resources:\n                limits: {nvidia.com/gpu: \"4\", cpu: \"8\"}\n                requests: {cpu: \"2\"}\n";
  }

  private static String path(String run) {
    return new RunFolder("local", "default", run).jobSetFile();
  }

  private static Preview preview(Map<String, String> base, Map<String, String> head) {
    MapSnapshot a = new MapSnapshot(base);
    MapSnapshot b = new MapSnapshot(head);
    return new PreviewBuilder(EMBEDDED)
        .build(
            new PreviewBuilder.Labels(Preview.Mode.GITOPS, "base", "head", List.of(), ""),
            a,
            b,
            MapSnapshot.changed(a, b));
  }

  @Test
  @DisplayName(
      "an added run is compared with the newest earlier run of its train.yaml wherever it sits in the listing; equal times go to the greater run name")
  void newestEarlierRun() {
    Map<String, String> base = new HashMap<>();
    base.put(path("a-000001"), jobSet("a-000001", "2026-11-01T09:00:00Z", "img:1"));
    base.put(path("a-000002"), jobSet("a-000002", "2026-11-03T09:00:00Z", "img:2"));
    base.put(path("a-000003"), jobSet("a-000003", "2026-11-02T09:00:00Z", "img:3"));
    base.put(path("b-000001"), jobSet("b-000001", "2026-11-09T09:00:00Z", "img:4"));
    Map<String, String> head = new HashMap<>(base);
    head.put(path("a-000009"), jobSet("a-000009", "2026-12-01T09:00:00Z", "img:9"));
    RunChange added = preview(base, head).runs().get(0);
    assertEquals(
        "a-000002",
        added.previous().orElseThrow().folder().run(),
        "b-000001 is another job (run name without its run id), though newer");
    assertEquals("img:2", added.previous().get().image());
    assertEquals("2026-11-03T09:00:00Z", added.previous().get().createdAt());
    base.put(path("a-000004"), jobSet("a-000004", "2026-11-03T09:00:00Z", "img:5"));
    head.putAll(base);
    assertEquals(
        "a-000004", preview(base, head).runs().get(0).previous().orElseThrow().folder().run());
  }

  @Test
  @DisplayName(
      "without Trainyard's env the topology comes from the pods: GPUs per node from the limits, a process count that is no number reads 1")
  void factsWithoutTrainyardEnv() {
    RunFacts f =
        new JobSetFacts(EMBEDDED, new YamlTrees())
            .read(RUN, Optional.of(jobSet("a-000009", "t", "img:9")))
            .orElseThrow();
    assertEquals(
        List.of(2, 1, 4, "img:9", "default"),
        List.of(f.nodes(), f.procsPerNode(), f.gpusPerNode(), f.image(), f.queue()));
    assertEquals(
        Map.of("cpu", new BigDecimal("4"), "nvidia.com/gpu", new BigDecimal("8")),
        Map.copyOf(f.requestsView()),
        "requests over limits, limits where there is no request, times the pods");
  }

  @Test
  @DisplayName("a hand edit of the GPU limit wins over the GPUS_PER_NODE env it leaves stale")
  void gpuLimitOverStaleEnv() {
    String text =
        jobSet("a-000009", "t", "img:9")
            .replace(
                "- {name: PET_NPROC_PER_NODE, value: many}",
                "- {name: PET_NPROC_PER_NODE, value: many}\n              - {name: GPUS_PER_NODE, value: \"1\"}")
            .replace("nvidia.com/gpu: \"4\"", "nvidia.com/gpu: \"50\"");
    RunFacts f =
        new JobSetFacts(EMBEDDED, new YamlTrees()).read(RUN, Optional.of(text)).orElseThrow();
    assertEquals(50, f.gpusPerNode());
  }

  @Test
  @DisplayName(
      "a replicated job whose pod template says trainyard.dev/runs-ranks: \"false\" (an MPI launcher) is no node; a CPU pod's NVIDIA_VISIBLE_DEVICES=void does not make it one")
  void ranklessLauncherByAnnotation() throws Exception {
    ObjectMapper json = new ObjectMapper();
    String node =
        "{\"name\":\"node\",\"replicas\":1,\"template\":{\"spec\":{\"parallelism\":2,\"template\":{\"spec\":{\"containers\":[{\"name\":\"node\","
            + "\"env\":[{\"name\":\"NVIDIA_VISIBLE_DEVICES\",\"value\":\"void\"}]}]}}}}}";
    String launcher =
        "{\"name\":\"launcher\",\"replicas\":1,\"template\":{\"spec\":{\"parallelism\":1,\"template\":{\"metadata\":{\"annotations\":"
            + "{\"trainyard.dev/runs-ranks\":\"false\"}},\"spec\":{\"containers\":[{\"name\":\"node\"}]}}}}}";
    assertEquals(
        2,
        JobSetFacts.nodes(
            json.readTree("{\"spec\":{\"replicatedJobs\":[" + node + "," + launcher + "]}}")));
    assertEquals(
        3,
        JobSetFacts.nodes(
            json.readTree(
                "{\"spec\":{\"replicatedJobs\":["
                    + node
                    + ","
                    + launcher.replace("\"false\"", "\"true\"")
                    + "]}}")));
  }

  @Test
  @DisplayName("a file of several objects: the facts are the JobSet's, whatever comes before it")
  void jobSetAmongOthers() {
    String text = "kind: ConfigMap\nmetadata: {name: c}\n---\n" + jobSet("a-000009", "t", "img:9");
    RunFacts f =
        new JobSetFacts(EMBEDDED, new YamlTrees()).read(RUN, Optional.of(text)).orElseThrow();
    assertEquals("img:9", f.image());
    assertEquals(2, f.nodes());
  }

  @Test
  @DisplayName(
      "annotations not in Trainyard's layout are read from the whole file; the metadata block may end the file")
  void annotationsFromTheWholeFile() {
    JobSetFacts facts = new JobSetFacts(EMBEDDED, new YamlTrees());
    assertEquals(
        Map.of("k", "v w"),
        facts.annotations(
            RUN, "metadata:\n  annotations:\n    k: >-\n      v\n      w\nspec: {}\n"));
    assertEquals(
        Optional.of("metadata:\n  name: n"),
        JobSetFacts.metadataBlock("kind: X\nmetadata:\n  name: n"),
        "the last block of a file without a final newline");
  }

  @Test
  @DisplayName(
      "the metadata block ends at the next metadata key; a deeper or odd indentation is not read as annotations")
  void fastPathEnds() {
    JobSetFacts facts = new JobSetFacts(EMBEDDED, new YamlTrees());
    assertEquals(
        Map.of("a", "1"),
        facts.annotations(RUN, "metadata:\n  annotations:\n    a: \"1\"\n  name: n\n"));
    assertEquals(Map.of("a", "1"), facts.annotations(RUN, "metadata:\n  annotations:\n    a: 1\n"));
    assertEquals(
        Map.of(), facts.annotations(RUN, "metadata:\n  annotations:\n    a: 1\n   odd: 2\n"));
    assertEquals(Map.of(), facts.annotations(RUN, "metadata:\n  name: n\n"));
    assertEquals(Map.of(), facts.annotations(RUN, "kind: X\n  annotations:\n    a: 1\n"));
    assertEquals(Map.of(), facts.annotations(RUN, "metadata:\n  annotations:\n"));
  }

  @Test
  @DisplayName("a YAML list as the second document is named in the problem")
  void documentNumber() {
    assertEquals(
        "not a Kubernetes object (document 2 is not a YAML mapping)",
        YamlTrees.parse("kind: A\n---\n- x\n").problem());
    assertTrue(YamlTrees.parse("kind: A\n").readable());
  }

  @Test
  @DisplayName(
      "runs are listed added, changed, removed, each by path; a run folder is clusters/<cluster>/<namespace>/<run>/, never a _ or . folder")
  void orderAndFolders() {
    Map<String, String> base = new HashMap<>();
    base.put(path("a-000001"), jobSet("a-000001", "t1", "img:1"));
    base.put(path("c-000001"), jobSet("c-000001", "t1", "img:1"));
    Map<String, String> head = new HashMap<>();
    head.put(path("c-000001"), jobSet("c-000001", "t1", "img:2"));
    head.put(path("d-000001"), jobSet("d-000001", "t1", "img:1"));
    head.put(path("b-000001"), jobSet("b-000001", "t1", "img:1"));
    List<String> order =
        preview(base, head).runs().stream().map(r -> r.status() + " " + r.folder().run()).toList();
    assertEquals(
        List.of("ADDED b-000001", "ADDED d-000001", "CHANGED c-000001", "REMOVED a-000001"), order);
    assertEquals(
        Optional.of(new RunFolder("c", "ns", "r")), RunFolder.containing("clusters/c/ns/r/f.yaml"));
    assertEquals(
        Optional.of(new RunFolder("c", "ns", "r")),
        RunFolder.containing("clusters/c/ns/r/sub/f.yaml"));
    for (String other :
        List.of(
            "clusters/c/ns/f.yaml",
            "other/c/ns/r/f.yaml",
            "clusters/_c/ns/r/f.yaml",
            "clusters/c/_queues/r/f.yaml",
            "clusters/c/ns/.git/f",
            "clusters/.c/ns/r/f.yaml",
            "clusters/c/.ns/r/f.yaml",
            "clusters/c/ns/_r/f.yaml")) {
      assertEquals(Optional.empty(), RunFolder.containing(other), other);
    }
  }

  @Test
  @DisplayName(
      "a previous run without a source commit or creation time is compared as it is: only what really differs shows")
  void previousWithoutProvenance() {
    Map<String, String> base =
        Map.of(
            path("a-000001"),
            jobSet("a-000001", "", "img:1").replace("    trainyard.dev/created-at: \"\"\n", ""));
    Map<String, String> head = new HashMap<>(base);
    head.put(
        path("a-000009"),
        jobSet("a-000009", "2026-12-01T09:00:00Z", "img:1")
            .replace(
                "  labels:\n",
                "    trainyard.dev/source-commit: 0123456789abcdef0123456789abcdef01234567\n  labels:\n"));
    RunChange added = preview(base, head).runs().get(0);
    assertEquals("a-000001", added.previous().orElseThrow().folder().run());
    assertEquals(
        List.of(
            "metadata.annotations[\"trainyard.dev/created-at\"]",
            "metadata.annotations[\"trainyard.dev/source-commit\"]"),
        added.objects().get(0).fields().stream().map(FieldChange::path).toList());
  }
}
