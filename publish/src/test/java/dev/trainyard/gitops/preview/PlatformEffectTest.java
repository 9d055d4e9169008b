package dev.trainyard.gitops.preview;

import static dev.trainyard.gitops.preview.PreviewCases.QUEUES;
import static dev.trainyard.gitops.preview.PreviewCases.QUEUES_GENEROUS;
import static dev.trainyard.gitops.preview.PreviewRepos.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.manifest.CanonicalJson;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.platform.PlatformLoader;
import dev.trainyard.compiler.testing.Wording;
import dev.trainyard.gitops.MapSnapshot;
import dev.trainyard.gitops.PlatformRender;
import dev.trainyard.gitops.RunFolder;
import dev.trainyard.gitops.TreeEdit;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.BiFunction;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The GitOps preview of a platform.yaml change, on real git repositories holding runs the real
 * compiler wrote and queue objects {@code platform render} wrote: the quota table, the runs that no
 * longer fit, and the stale-queue check.
 */
class PlatformEffectTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path temp;

  /** Run files: a (small, 8 GPUs), b (small, 16 GPUs), c (shared, 8 GPUs). */
  Map<String, String> runs;

  String a;
  String b;
  String c;
  int repos;

  @BeforeEach
  void setUp() {
    Map<String, String> ra = run("jobs/a", "nodes: 2\nresources: {gpus: 4}\n", '1');
    Map<String, String> rb = run("jobs/b", "nodes: 2\nresources: {gpus: 8}\n", '2');
    Map<String, String> rc = run("jobs/c", "nodes: 2\nresources: {gpus: 4}\nqueue: shared\n", '3');
    a = name(ra);
    b = name(rb);
    c = name(rc);
    runs = new TreeMap<>();
    for (Map<String, String> r : List.of(ra, rb, rc)) {
      r.forEach(
          (path, text) -> {
            if (path.startsWith(PreviewCases.runFolder(r) + "/")) {
              runs.put(path, text);
            }
          });
    }
  }

  private Map<String, String> run(String folder, String extra, char commit) {
    return PreviewRepos.compile(
        temp,
        folder,
        "run: torchrun train.py\n" + extra,
        QUEUES_GENEROUS,
        PreviewRepos.sha(commit),
        T0,
        1);
  }

  private static String name(Map<String, String> files) {
    String folder = PreviewCases.runFolder(files);
    return folder.substring(folder.lastIndexOf('/') + 1);
  }

  /** {@code runs} with {@code platform} and the queue files {@code platform render} gives it. */
  private Map<String, String> rendered(String platform) {
    Map<String, String> tree = new TreeMap<>(runs);
    tree.put("platform.yaml", platform);
    PlatformRender.Result r = PlatformRender.of(new MapSnapshot(tree));
    assertEquals(List.of(), r.diagnostics());
    for (TreeEdit e : r.edits()) {
      tree.keySet().removeIf(p -> p.startsWith(e.path() + "/"));
      if (e instanceof TreeEdit.ReplaceFolder f) {
        f.files().forEach((k, v) -> tree.put(e.path() + "/" + k, v));
      } else if (e instanceof TreeEdit.WriteFile w) {
        tree.put(w.path(), w.text());
      }
    }
    return tree;
  }

  private Preview preview(Map<String, String> base, Map<String, String> head) throws Exception {
    List<String> deleted =
        base.keySet().stream().filter(p -> !head.containsKey(p)).sorted().toList();
    return PreviewCases.gitOps(temp.resolve("repo-" + (++repos)), base, head, deleted);
  }

  private static List<String> callOuts(Preview p) {
    return p.callOuts().stream().map(c -> c.severity().label() + " " + c.code()).toList();
  }

  @Test
  @DisplayName(
      "cluster prod renamed prod2 (all its queues deleted under clusters/prod/): every committed run there is never admitted; the preview is refused")
  void clusterRenamed() throws Exception {
    String renamed =
        QUEUES
            .replace("clusters: [{name: prod}]", "clusters: [{name: prod2}]")
            .replace("cluster: prod,", "cluster: prod2,");
    Map<String, String> head = rendered(renamed);
    assertFalse(head.keySet().stream().anyMatch(k -> k.startsWith("clusters/prod/_cluster/")));
    Preview p = preview(rendered(QUEUES), head);
    assertEquals(List.of("refused no-longer-fits"), callOuts(p));
    String text = p.callOuts().get(0).message();
    assertTrue(
        text.startsWith(
            "platform.yaml no longer has namespace `team-a` on cluster `prod` (the cluster was renamed or removed, or the namespace moved)"),
        text);
    assertTrue(text.contains("3 runs in git there will never be admitted"), text);
    WORDING.approve(text.replace(a, "<a>").replace(b, "<b>").replace(c, "<c>"));
  }

  @Test
  @DisplayName(
      "cpu and memory both shrink below every run's request: each resource's row counts every run it refuses, not only the first resource's")
  void eachResourceCounted() throws Exception {
    String smaller =
        QUEUES.replace(
            "cpu: \"512\", memory: 4096Gi, nvidia.com/gpu: \"32\"",
            "cpu: 1500m, memory: 1Gi, nvidia.com/gpu: \"32\"");
    Preview p = preview(rendered(QUEUES), rendered(smaller));
    List<QuotaChange> rows = p.platform().orElseThrow().quotas();
    assertEquals(
        List.of("small cpu 512 → 1.5", "small memory 4096Gi → 1Gi"),
        rows.stream().map(q -> q.clusterQueue() + " " + q.resource() + " " + q.shown()).toList());
    for (QuotaChange q : rows) {
      assertEquals(2, q.runs(), q.toString());
      assertEquals(List.of(a, b).stream().sorted().toList(), q.neverAdmitted(), q.toString());
    }
  }

  @Test
  @DisplayName(
      "team quota 32 → 8 GPUs: the run asking 16 is never admitted; over the whole cohort too; the preview is refused")
  void quotaShrinks() throws Exception {
    String smaller =
        QUEUES
            .replace("nvidia.com/gpu: \"32\"", "nvidia.com/gpu: \"8\"")
            .replace("nvidia.com/gpu: \"16\"", "nvidia.com/gpu: \"4\"");
    Preview p = preview(rendered(QUEUES), rendered(smaller));
    PlatformChange change = p.platform().orElseThrow();
    assertEquals(3, change.runs());
    assertEquals(
        List.of(
            new QuotaChange(
                "shared",
                "nvidia.com/gpu",
                Optional.of(new BigDecimal("16")),
                Optional.of(new BigDecimal("4")),
                Optional.of("research"),
                1,
                List.of(c),
                List.of()),
            new QuotaChange(
                "small",
                "nvidia.com/gpu",
                Optional.of(new BigDecimal("32")),
                Optional.of(new BigDecimal("8")),
                Optional.empty(),
                2,
                List.of(b),
                List.of())),
        change.quotas());
    assertEquals(List.of("refused no-longer-fits", "refused no-longer-fits"), callOuts(p));
    assertTrue(p.refused());
    p.callOuts().forEach(x -> WORDING.approve(x.message().replace(b, "<b>").replace(c, "<c>")));
    String md = MarkdownPreview.whole(p);
    assertTrue(md.contains("| `small` | `nvidia.com/gpu` | 32 → 8 | 2 | 1 never admitted |"), md);
    String section = md.substring(md.indexOf("### Platform change"), md.indexOf("### Call-outs"));
    WORDING.approve(section);
    assertTrue(
        p.otherObjects().stream()
            .anyMatch(o -> o.kind().equals("ClusterQueue") && o.name().equals("small")),
        "the ClusterQueue diff is shown");
    JsonNode json = CanonicalJson.mapper().readTree(JsonPreview.render(p));
    assertEquals("8", json.path("platform").path("quotas").get(1).path("after").asText());
    assertEquals(
        b, json.path("platform").path("quotas").get(1).path("neverAdmitted").get(0).asText());
    JsonNode shared = json.path("platform").path("quotas").get(0);
    assertEquals(
        List.of("shared", "16", "4", "research", "1", c),
        List.of(
            shared.path("clusterQueue").asText(),
            shared.path("before").asText(),
            shared.path("after").asText(),
            shared.path("cohort").asText(),
            shared.path("runs").asText(),
            shared.path("neverAdmitted").get(0).asText()));
    assertTrue(json.path("platform").path("quotas").get(1).path("cohort").isNull());
  }

  @Test
  @DisplayName(
      "platform.yaml changed but the queue files not re-rendered: refused, naming the stale ClusterQueue file")
  void notRendered() throws Exception {
    Map<String, String> head = new HashMap<>(rendered(QUEUES));
    head.put("platform.yaml", QUEUES.replace("nvidia.com/gpu: \"32\"", "nvidia.com/gpu: \"64\""));
    Preview p = preview(rendered(QUEUES), head);
    assertEquals(List.of("refused queue-objects-stale"), callOuts(p));
    assertTrue(
        p.callOuts()
            .get(0)
            .message()
            .contains("`clusters/prod/_cluster/clusterqueue-small.yaml` (differs)"),
        p.callOuts().get(0).message());
    WORDING.approve(p.callOuts().get(0).message());
    QuotaChange grew = p.platform().orElseThrow().quotas().get(0);
    assertEquals("32 → 64", grew.shown());
    assertEquals(List.of(), grew.neverAdmitted());
    assertTrue(
        MarkdownPreview.whole(p).contains("| `small` | `nvidia.com/gpu` | 32 → 64 | 2 | none |"));
  }

  @Test
  @DisplayName("a cohort that still holds enough: the run fits only by borrowing, a warning")
  void borrowing() throws Exception {
    String lender =
        QUEUES
            .replace("nvidia.com/gpu: \"16\"", "nvidia.com/gpu: \"4\"")
            .replace(
                "  localQueues:",
                "    - {name: lender, namespaces: [team-a], cohort: research, flavors: [{name: h100, quota: {cpu: \"8\", memory: 64Gi, nvidia.com/gpu: \"8\"}}]}\n  localQueues:");
    Map<String, String> base =
        rendered(lender.replace("nvidia.com/gpu: \"4\"", "nvidia.com/gpu: \"16\""));
    Preview p = preview(base, rendered(lender));
    assertEquals(List.of("warning fits-only-borrowing"), callOuts(p), p.callOuts().toString());
    assertFalse(p.refused());
    WORDING.approve(p.callOuts().get(0).message().replace(c, "<c>"));
    QuotaChange shared = p.platform().orElseThrow().quotas().get(0);
    assertEquals(List.of(c), shared.borrowing());
    assertTrue(MarkdownPreview.whole(p).contains("1 only by borrowing from `research`"));
    JsonNode json = CanonicalJson.mapper().readTree(JsonPreview.render(p));
    assertEquals(c, json.path("platform").path("quotas").get(0).path("borrowing").get(0).asText());
    Preview added = preview(rendered(QUEUES), rendered(lender));
    assertTrue(
        added.platform().orElseThrow().quotas().stream()
            .anyMatch(q -> q.clusterQueue().equals("lender") && q.shown().equals("none → 8")),
        "a new ClusterQueue's quotas are rows too: " + added.platform());
  }

  @Test
  @DisplayName(
      "a LocalQueue dropped and a resource no longer covered: their runs are never admitted")
  void queueGoneAndNotCovered() throws Exception {
    String changed =
        QUEUES
            .replace("    - {name: shared, namespace: team-a, clusterQueue: shared}\n", "")
            .replaceAll("    - \\{name: shared, namespaces: .*\\n", "")
            .replace(
                "cpu: \"512\", memory: 4096Gi, nvidia.com/gpu: \"32\"",
                "cpu: \"512\", memory: 4096Gi");
    Preview p = preview(rendered(QUEUES), rendered(changed));
    assertEquals(
        List.of("refused no-longer-fits", "refused no-longer-fits"),
        callOuts(p),
        p.callOuts().toString());
    p.callOuts()
        .forEach(
            x ->
                WORDING.approve(x.message().replace(a, "<a>").replace(b, "<b>").replace(c, "<c>")));
    List<QuotaChange> rows = p.platform().orElseThrow().quotas();
    assertEquals(
        List.of(
            "shared cpu 512 → none",
            "shared memory 4096Gi → none",
            "shared nvidia.com/gpu 16 → none",
            "small nvidia.com/gpu 32 → none"),
        rows.stream().map(q -> q.clusterQueue() + " " + q.resource() + " " + q.shown()).toList(),
        "a ClusterQueue platform.yaml dropped loses every quota");
    QuotaChange small = rows.get(3);
    assertEquals(List.of(a, b), small.neverAdmitted());
    assertEquals(1, rows.get(0).runs(), "the run that used the dropped ClusterQueue still counts");
    assertEquals(List.of(c), rows.get(0).neverAdmitted(), "and is never admitted");
  }

  @Test
  @DisplayName(
      "more than five runs shut out are named five at a time (\"and N more\"); so are more than five stale files")
  void manyRuns() throws Exception {
    Map<String, String> base = new TreeMap<>(rendered(QUEUES));
    String folder =
        runs.keySet().stream().filter(k -> k.contains("/" + b + "/")).findFirst().orElseThrow();
    folder = folder.substring(0, folder.indexOf("/" + b + "/"));
    for (int i = 1; i <= 6; i++) {
      String copy = "bb" + i;
      for (Map.Entry<String, String> e : runs.entrySet()) {
        if (e.getKey().startsWith(folder + "/" + b + "/")) {
          base.put(e.getKey().replace(b, copy), e.getValue().replace(b, copy));
        }
      }
    }
    Map<String, String> head = new TreeMap<>(base);
    Map<String, String> smaller =
        rendered(QUEUES.replace("nvidia.com/gpu: \"32\"", "nvidia.com/gpu: \"8\""));
    head.putAll(smaller);
    Preview p = preview(base, head);
    CallOut small =
        p.callOuts().stream()
            .filter(x -> x.message().contains("`small`"))
            .findFirst()
            .orElseThrow();
    assertTrue(small.message().contains("7 runs in git will never be admitted"), small.message());
    assertTrue(small.message().endsWith(" and 2 more"), small.message());
    assertEquals(
        List.of(b, "bb1", "bb2", "bb3", "bb4", "bb5", "bb6"),
        p.platform().orElseThrow().quotas().get(0).neverAdmitted());

    Map<String, String> bare = new TreeMap<>(base);
    bare.keySet().removeIf(k -> k.contains("/_queues/") || k.contains("/_cluster/"));
    bare.put("platform.yaml", QUEUES.replace("nvidia.com/gpu: \"32\"", "nvidia.com/gpu: \"64\""));
    CallOut stale =
        preview(base, bare).callOuts().stream()
            .filter(x -> x.code().equals("queue-objects-stale"))
            .findFirst()
            .orElseThrow();
    assertTrue(
        stale.message().startsWith("8 queue files are not what platform.yaml gives"),
        stale.message());
    assertTrue(stale.message().contains(" (missing) and 3 more; run"), stale.message());
  }

  /** QUEUES and a ClusterQueue {@code lender} (8 GPUs) in {@code shared}'s cohort research. */
  private Platform lenderPlatform() throws Exception {
    String lender =
        QUEUES.replace(
            "  localQueues:",
            "    - {name: lender, namespaces: [team-a], cohort: research, flavors: [{name: h100, quota: {cpu: \"8\", memory: 64Gi, nvidia.com/gpu: \"8\"}}]}\n  localQueues:");
    Path file = Files.writeString(temp.resolve("lender.yaml"), lender);
    return PlatformLoader.standard().load(Optional.of(file), "platform.yaml").value().orElseThrow();
  }

  /** A run in prod/team-a on {@code queue} that requests {@code requests} in all. */
  private static RunFacts facts(String queue, Map<String, BigDecimal> requests) {
    return new RunFacts(
        new RunFolder("prod", "team-a", "r"),
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        queue,
        1,
        1,
        0,
        "",
        new TreeMap<>(requests));
  }

  @Test
  @DisplayName(
      "judging one run: a zero request of an uncovered resource is no request; at the quota fits; at the whole cohort's borrows, above it never")
  void judge() throws Exception {
    Platform platform = lenderPlatform();
    BiFunction<String, Map<String, BigDecimal>, PlatformEffect.Verdict> judge =
        (queue, requests) -> PlatformEffect.judge(facts(queue, requests), platform);
    assertEquals(
        PlatformEffect.Kind.FITS,
        judge
            .apply(
                "small",
                Map.of("example.com/fpga", BigDecimal.ZERO, "nvidia.com/gpu", new BigDecimal("32")))
            .kind());
    assertEquals(
        PlatformEffect.Reason.NOT_COVERED,
        judge.apply("small", Map.of("example.com/fpga", BigDecimal.ONE)).reason());
    assertEquals(
        PlatformEffect.Reason.OVER_QUOTA,
        judge.apply("small", Map.of("nvidia.com/gpu", new BigDecimal("33"))).reason());
    assertEquals(
        PlatformEffect.Reason.FITS,
        judge.apply("shared", Map.of("nvidia.com/gpu", new BigDecimal("16"))).reason());
    PlatformEffect.Verdict borrows =
        judge.apply("shared", Map.of("nvidia.com/gpu", new BigDecimal("24")));
    assertEquals(
        PlatformEffect.Reason.BORROWS, borrows.reason(), "16 own + 8 lent = 24 in the cohort");
    assertEquals(new BigDecimal("24"), borrows.asked());
    assertEquals(
        PlatformEffect.Reason.OVER_COHORT,
        judge.apply("shared", Map.of("nvidia.com/gpu", new BigDecimal("24.5"))).reason());
    assertEquals(PlatformEffect.Reason.NO_QUEUE, judge.apply("gone", Map.of()).reason());
  }

  @Test
  @DisplayName("a pull request that touches no platform file has no platform section")
  void noPlatformChange() throws Exception {
    Map<String, String> base = rendered(QUEUES);
    Map<String, String> head = new TreeMap<>(base);
    head.keySet().removeIf(p -> p.contains("/" + a + "/"));
    Preview p = preview(base, head);
    assertEquals(Optional.empty(), p.platform());
    assertFalse(MarkdownPreview.whole(p).contains("Platform change"));
    assertTrue(JsonPreview.render(p).contains("\"platform\" : null"));
  }

  @Test
  @DisplayName("which paths make a platform change")
  void applies() {
    assertTrue(PlatformEffect.applies(List.of("platform.yaml")));
    assertTrue(PlatformEffect.applies(List.of("runtimes/torch/runtime.yaml")));
    assertTrue(PlatformEffect.applies(List.of("clusters/prod/_cluster/clusterqueue-small.yaml")));
    assertTrue(
        PlatformEffect.applies(List.of("clusters/prod/team-a/_queues/localqueue-small.yaml")));
    assertFalse(PlatformEffect.applies(List.of("clusters/prod/team-a/run-1/jobset-run-1.yaml")));
    assertFalse(PlatformEffect.applies(List.of("clusters/prod/kustomization.yaml", "README.md")));
    assertFalse(PlatformEffect.applies(List.of("clusters/_cluster/x.yaml")));
  }

  @Test
  @DisplayName(
      "each resource alone: no request fits; at the queue's quota fits; over it, up to the whole cohort borrows, above that or without a cohort never")
  void resourceKind() throws Exception {
    Platform platform = lenderPlatform();
    BiFunction<String, String, PlatformEffect.Kind> kind =
        (queue, request) -> {
          String[] r = request.split("=");
          return PlatformEffect.resourceKind(
              facts(queue, Map.of(r[0], new BigDecimal(r[1]))),
              platform,
              platform.clusterQueue(queue).orElseThrow(),
              r[0]);
        };
    assertEquals(PlatformEffect.Kind.FITS, kind.apply("small", "example.com/fpga=0"));
    assertEquals(PlatformEffect.Kind.NEVER, kind.apply("small", "example.com/fpga=1"));
    assertEquals(PlatformEffect.Kind.FITS, kind.apply("small", "nvidia.com/gpu=32"));
    assertEquals(PlatformEffect.Kind.NEVER, kind.apply("small", "nvidia.com/gpu=33"), "no cohort");
    assertEquals(PlatformEffect.Kind.FITS, kind.apply("shared", "nvidia.com/gpu=16"));
    assertEquals(PlatformEffect.Kind.BORROWS, kind.apply("shared", "nvidia.com/gpu=24"));
    assertEquals(PlatformEffect.Kind.NEVER, kind.apply("shared", "nvidia.com/gpu=24.5"));
  }
}
