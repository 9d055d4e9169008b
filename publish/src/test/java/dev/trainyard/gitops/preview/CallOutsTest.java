package dev.trainyard.gitops.preview;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.platform.PlatformLoader;
import dev.trainyard.compiler.schema.NetworkntSchemaValidator;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import dev.trainyard.compiler.testing.Wording;
import dev.trainyard.gitops.MapSnapshot;
import dev.trainyard.gitops.RunFolder;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Call-outs and summary facts from in-memory trees (the pure stage), one rule per test. */
class CallOutsTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path temp;

  private Platform platform(String yaml) throws Exception {
    Path file = Files.writeString(temp.resolve("platform.yaml"), yaml);
    return new PlatformLoader(new YamlDocumentLoader(), new NetworkntSchemaValidator())
        .load(Optional.of(file), "platform.yaml")
        .value()
        .orElseThrow();
  }

  private Preview preview(Platform platform, Map<String, String> base, Map<String, String> head) {
    MapSnapshot a = new MapSnapshot(base);
    MapSnapshot b = new MapSnapshot(head);
    return new PreviewBuilder(platform)
        .build(
            new PreviewBuilder.Labels(Preview.Mode.GITOPS, "base", "head", List.of(), ""),
            a,
            b,
            MapSnapshot.changed(a, b));
  }

  private Map<String, String> run(String folder, String trainYaml, String platform, char commit) {
    return PreviewRepos.compile(
        temp, folder, trainYaml, platform, PreviewRepos.sha(commit), PreviewRepos.T0, 1);
  }

  private static final RunFolder FOLDER = new RunFolder("prod", "team-a", "r-000001");

  /**
   * A run on {@code queue} asking {@code gpus} GPUs in all (and {@code extra} of other resources).
   */
  private static RunFacts asking(String queue, long gpus, Map<String, BigDecimal> extra) {
    TreeMap<String, BigDecimal> requests = new TreeMap<>(extra);
    requests.put("nvidia.com/gpu", BigDecimal.valueOf(gpus));
    return new RunFacts(
        FOLDER,
        "r",
        "repo",
        "jobs/r/train.yaml",
        "c",
        "t",
        "torch@1",
        "img:1",
        "",
        queue,
        1,
        1,
        (int) gpus,
        "",
        requests);
  }

  private static RunChange added(RunFacts f) {
    return new RunChange(
        RunChange.Status.ADDED,
        f.folder(),
        Optional.empty(),
        Optional.of(f),
        Optional.empty(),
        List.of());
  }

  private static ObjectChange changedJobSet(String... paths) {
    List<FieldChange> fields =
        Arrays.stream(paths)
            .map(p -> new FieldChange(p, Optional.of("1"), Optional.of("2"), false))
            .toList();
    return new ObjectChange(
        "jobset-r.yaml",
        "JobSet",
        "team-a/r",
        ObjectChange.Status.CHANGED,
        ObjectChange.SecretForm.NONE,
        false,
        fields,
        Optional.empty(),
        false);
  }

  private static List<String> messages(List<CallOut> callOuts) {
    return callOuts.stream().map(CallOut::message).toList();
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
    Map<String, String> a =
        run(
            "jobs/a",
            "run: torchrun train.py\nresources: {gpus: 8}\n",
            PreviewCases.QUEUES_GENEROUS,
            '1');
    Preview p = preview(platform(noGpus), Map.of(), a);
    assertEquals(List.of("not-covered"), codes(p));
    WORDING.approve(p.callOuts().get(0).message());
  }

  @Test
  @DisplayName(
      "a LocalQueue's clusterQueue changed in place is refused as immutable; a ConfigMap change is not")
  void localQueueImmutable() throws Exception {
    Map<String, String> files = new HashMap<>();
    files.put(
        "clusters/c/ns/r-000000/localqueue-q.yaml",
        "kind: LocalQueue\nmetadata: {name: q, namespace: ns}\nspec: {clusterQueue: a}\n");
    files.put(
        "clusters/c/ns/r-000000/configmap-x.yaml",
        "kind: ConfigMap\nmetadata: {name: x, namespace: ns}\ndata: {k: a}\n");
    Map<String, String> head = new HashMap<>(files);
    head.put(
        "clusters/c/ns/r-000000/localqueue-q.yaml",
        "kind: LocalQueue\nmetadata: {name: q, namespace: ns}\nspec: {clusterQueue: b}\n");
    head.put(
        "clusters/c/ns/r-000000/configmap-x.yaml",
        "kind: ConfigMap\nmetadata: {name: x, namespace: ns}\ndata: {k: b}\n");
    Preview p = preview(platform(PreviewCases.EXAMPLE), files, head);
    assertEquals(List.of("immutable-field"), codes(p));
    WORDING.approve(p.callOuts().get(0).message());
  }

  @Test
  @DisplayName("an image change without a runtime change is called out; a run with neither is not")
  void imageChanged() throws Exception {
    Map<String, String> a = run("jobs/a", PreviewCases.TORCH, PreviewCases.EXAMPLE, '1');
    Map<String, String> b =
        run(
            "jobs/a",
            PreviewCases.TORCH + "image: ghcr.io/acme/torch:v2\n",
            PreviewCases.EXAMPLE,
            '2');
    Map<String, String> c = run("jobs/a", PreviewCases.TORCH, PreviewCases.EXAMPLE, '3');
    Platform example = platform(PreviewCases.EXAMPLE);
    Preview changed = preview(example, a, PreviewCases.files(a, b));
    assertEquals(List.of("image-changed"), codes(changed));
    assertTrue(
        changed
            .callOuts()
            .get(0)
            .message()
            .contains(
                "→ ghcr.io/acme/torch:v2 since `"
                    + changed.runs().get(0).previous().get().folder().run()
                    + "`"));
    assertEquals(List.of(), codes(preview(example, a, PreviewCases.files(a, c))));
  }

  @Test
  @DisplayName(
      "the previous run is the newest by created-at among runs of the same train.yaml; other train.yaml files do not count")
  void previousIsNewest() throws Exception {
    Map<String, String> old =
        PreviewRepos.compile(
            temp,
            "jobs/a",
            PreviewCases.TORCH,
            PreviewCases.EXAMPLE,
            PreviewRepos.sha('1'),
            PreviewRepos.T0,
            1);
    Map<String, String> newer =
        PreviewRepos.compile(
            temp,
            "jobs/a",
            PreviewCases.TORCH.replace("nodes: 2", "nodes: 3"),
            PreviewCases.EXAMPLE,
            PreviewRepos.sha('2'),
            PreviewCases.T1,
            1);
    Map<String, String> otherJob =
        PreviewRepos.compile(
            temp,
            "jobs/b",
            "name: a\n" + PreviewCases.TORCH,
            PreviewCases.EXAMPLE,
            PreviewRepos.sha('3'),
            PreviewCases.T2,
            1);
    Map<String, String> head =
        run(
            "jobs/a",
            PreviewCases.TORCH.replace("nodes: 2", "nodes: 4"),
            PreviewCases.EXAMPLE,
            '4');
    Map<String, String> base = PreviewCases.files(old, newer, otherJob);
    Preview p = preview(platform(PreviewCases.EXAMPLE), base, PreviewCases.files(base, head));
    RunChange added = p.runs(RunChange.Status.ADDED).get(0);
    assertEquals(PreviewCases.runFolder(newer), added.previous().orElseThrow().folder().path());
    assertEquals(
        List.of(PreviewRepos.sha('2'), PreviewCases.T1.toString()),
        List.of(added.previous().get().sourceCommit(), added.previous().get().createdAt()),
        "the previous run's own provenance, not the new run's");
    assertEquals(
        "nodes 3 → 4 (vs. " + added.previous().get().folder().run() + ")",
        SummaryTables.since(added));
  }

  @Test
  @DisplayName(
      "runs of several queues are totalled per LocalQueue, with the quota summed over flavors; nothing over quota is refused")
  void totals() throws Exception {
    String gpus = "run: torchrun train.py\nresources: {gpus: 4}\n";
    Map<String, String> x =
        run("jobs/x", gpus + "nodes: 2\nqueue: small\n", PreviewCases.QUEUES_GENEROUS, '1');
    Map<String, String> y =
        run("jobs/y", gpus + "nodes: 1\nqueue: small\n", PreviewCases.QUEUES_GENEROUS, '2');
    Preview p = preview(platform(PreviewCases.QUEUES), Map.of(), PreviewCases.files(x, y));
    QueueTotal small = p.queues().get(0);
    assertEquals(
        List.of("team-a", "small", 2, "12", "32"),
        List.of(
            small.namespace(),
            small.queue(),
            small.runs(),
            Quantity.plain(small.gpus()),
            Quantity.plain(small.quota().orElseThrow())));
    assertFalse(small.over());
    assertFalse(p.refused());
    assertEquals(List.of(), codes(p));
  }

  @Test
  @DisplayName(
      "an immutable JobSet field is refused whether it is a scalar (spec.managedBy) or below a list; the first three paths are named, then how many more")
  void immutablePaths() throws Exception {
    RunFacts f = asking("small", 0, Map.of());
    RunChange run =
        new RunChange(
            RunChange.Status.CHANGED,
            FOLDER,
            Optional.of(f),
            Optional.of(f),
            Optional.empty(),
            List.of(
                changedJobSet(
                    "spec.suspend",
                    "spec.managedBy",
                    "spec.networking",
                    "spec.replicatedJobs[node].replicas",
                    "spec.successPolicy.operator",
                    "spec.failurePolicy.maxRestarts",
                    "spec.network.subdomain")));
    List<CallOut> out = CallOuts.of(List.of(run), List.of(), platform(PreviewCases.QUEUES));
    assertEquals(
        List.of(
            "JobSet team-a/r changes spec.managedBy, spec.replicatedJobs[node].replicas, spec.successPolicy.operator and 2 more in place, which the API"
                + " server refuses (immutable): start a new run instead (`trainyard submit --rerun`)"),
        messages(out));
    RunChange mutable =
        new RunChange(
            RunChange.Status.CHANGED,
            FOLDER,
            Optional.of(f),
            Optional.of(f),
            Optional.empty(),
            List.of(changedJobSet("spec.suspend", "spec.networking", "metadata.labels.x")));
    assertEquals(
        List.of(), CallOuts.of(List.of(mutable), List.of(), platform(PreviewCases.QUEUES)));
    RunChange three =
        new RunChange(
            RunChange.Status.CHANGED,
            FOLDER,
            Optional.of(f),
            Optional.of(f),
            Optional.empty(),
            List.of(changedJobSet("spec.managedBy", "spec.network.a", "spec.startupPolicy.order")));
    assertTrue(
        messages(CallOuts.of(List.of(three), List.of(), platform(PreviewCases.QUEUES)))
            .get(0)
            .startsWith(
                "JobSet team-a/r changes spec.managedBy, spec.network.a, spec.startupPolicy.order in place"));
  }

  @Test
  @DisplayName(
      "a runtime changed in place names both runtimes and, when it changed too, both images; same image, no image note")
  void runtimeInPlace() throws Exception {
    RunFacts was = asking("small", 0, Map.of());
    RunFacts now =
        new RunFacts(
            FOLDER,
            "r",
            "repo",
            "jobs/r/train.yaml",
            "c",
            "t",
            "torch@2",
            "img:2",
            "",
            "small",
            1,
            1,
            0,
            "",
            new TreeMap<>());
    RunFacts sameImage =
        new RunFacts(
            FOLDER,
            "r",
            "repo",
            "jobs/r/train.yaml",
            "c",
            "t",
            "torch@2",
            "img:1",
            "",
            "small",
            1,
            1,
            0,
            "",
            new TreeMap<>());
    Platform queues = platform(PreviewCases.QUEUES);
    assertEquals(
        List.of("runtime torch@1 → torch@2 in place (image img:1 → img:2)"),
        messages(
            CallOuts.of(
                List.of(
                    new RunChange(
                        RunChange.Status.CHANGED,
                        FOLDER,
                        Optional.of(was),
                        Optional.of(now),
                        Optional.empty(),
                        List.of())),
                List.of(),
                queues)));
    assertEquals(
        List.of("runtime torch@1 → torch@2 in place"),
        messages(
            CallOuts.of(
                List.of(
                    new RunChange(
                        RunChange.Status.CHANGED,
                        FOLDER,
                        Optional.of(was),
                        Optional.of(sameImage),
                        Optional.empty(),
                        List.of())),
                List.of(),
                queues)));
  }

  @Test
  @DisplayName(
      "a request equal to the nominal quota fits; one GPU more is over it; a resource asked 0 of needs no cover")
  void quotaBoundary() throws Exception {
    Platform queues = platform(PreviewCases.QUEUES);
    Map<String, BigDecimal> zero = Map.of("example.com/fpga", BigDecimal.ZERO);
    assertEquals(
        List.of(), CallOuts.of(List.of(added(asking("small", 32, zero))), List.of(), queues));
    List<CallOut> over =
        CallOuts.of(List.of(added(asking("small", 33, Map.of()))), List.of(), queues);
    assertEquals(List.of("over-quota"), over.stream().map(CallOut::code).toList());
    WORDING.approve(over.get(0).message());
    List<CallOut> fpga =
        CallOuts.of(
            List.of(added(asking("small", 1, Map.of("example.com/fpga", BigDecimal.ONE)))),
            List.of(),
            queues);
    assertEquals(List.of("not-covered"), fpga.stream().map(CallOut::code).toList());
    List<CallOut> memory =
        CallOuts.of(
            List.of(added(asking("small", 0, Map.of("memory", BigDecimal.valueOf(5_000L << 30))))),
            List.of(),
            queues);
    WORDING.approve(memory.get(0).message());
  }

  @Test
  @DisplayName(
      "runs that together exceed a queue's quota get one queue call-out, naming the cohort they could borrow from; one run alone or a queue without GPU quota gets none")
  void together() throws Exception {
    Platform queues = platform(PreviewCases.QUEUES);
    QueueTotal shared =
        new QueueTotal(
            "team-a",
            "shared",
            Optional.of("shared"),
            2,
            BigDecimal.valueOf(20),
            Optional.of(BigDecimal.valueOf(16)),
            Optional.of("research"));
    assertEquals(
        List.of(
            "together the 2 runs ask for 20 GPUs of LocalQueue team-a/shared, nominal quota 16: they cannot all run at once unless they borrow"
                + " from cohort `research`; Kueue admits them one after another"),
        messages(CallOuts.of(List.of(), List.of(shared), queues)));
    QueueTotal alone =
        new QueueTotal(
            "team-a",
            "shared",
            Optional.of("shared"),
            1,
            BigDecimal.valueOf(20),
            Optional.of(BigDecimal.valueOf(16)),
            Optional.of("research"));
    QueueTotal uncovered =
        new QueueTotal(
            "team-a",
            "cpu",
            Optional.of("cpu"),
            2,
            BigDecimal.valueOf(20),
            Optional.empty(),
            Optional.empty());
    QueueTotal fits =
        new QueueTotal(
            "team-a",
            "small",
            Optional.of("small"),
            2,
            BigDecimal.valueOf(16),
            Optional.of(BigDecimal.valueOf(16)),
            Optional.empty());
    assertEquals(List.of(), CallOuts.of(List.of(), List.of(alone, uncovered, fits), queues));
  }

  @Test
  @DisplayName(
      "a plain Secret is refused under a sealed policy when added or changed, not when removed, and never under the plain policy")
  void plainSecretRule() throws Exception {
    RunFacts f =
        new RunFacts(
            new RunFolder("local", "ml", "r-000001"),
            "r",
            "repo",
            "p",
            "c",
            "t",
            "torch@1",
            "img",
            "",
            "ml",
            1,
            1,
            0,
            "",
            new TreeMap<>());
    Function<ObjectChange.Status, RunChange> with =
        status ->
            new RunChange(
                RunChange.Status.CHANGED,
                f.folder(),
                Optional.of(f),
                Optional.of(f),
                Optional.empty(),
                List.of(
                    new ObjectChange(
                        "secret-s.yaml",
                        "Secret",
                        "ml/s",
                        status,
                        ObjectChange.SecretForm.PLAIN,
                        false,
                        List.of(),
                        Optional.empty(),
                        false)));
    Platform sealed = platform(PreviewCases.EXAMPLE);
    assertEquals(
        List.of("plain-secret"),
        CallOuts.of(List.of(with.apply(ObjectChange.Status.ADDED)), List.of(), sealed).stream()
            .map(CallOut::code)
            .toList());
    assertEquals(
        List.of("plain-secret"),
        CallOuts.of(List.of(with.apply(ObjectChange.Status.CHANGED)), List.of(), sealed).stream()
            .map(CallOut::code)
            .toList());
    assertEquals(
        List.of(),
        CallOuts.of(List.of(with.apply(ObjectChange.Status.REMOVED)), List.of(), sealed));
    assertEquals(
        List.of(),
        CallOuts.of(
            List.of(with.apply(ObjectChange.Status.ADDED)),
            List.of(),
            platform(PreviewCases.EXAMPLE_PLAIN)));
  }
}
