package dev.trainyard.gitops.preview;

import static dev.trainyard.gitops.preview.PreviewCases.EXAMPLE;
import static dev.trainyard.gitops.preview.PreviewCases.TORCH;
import static dev.trainyard.gitops.preview.PreviewRepos.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a first user found: hand-broken files, Secrets in Lists and kustomizations, several objects
 * per file, stale node counts.
 */
class PreviewFindingsTest {
  private static final String VALUE = "hunter2-very-secret-value-9d8c7b6a";
  private static final String B64 =
      Base64.getEncoder().encodeToString(VALUE.getBytes(StandardCharsets.UTF_8));
  @TempDir Path temp;
  private final ObjectDiff diff = new ObjectDiff(new YamlTrees());

  private Map<String, String> run() {
    return PreviewRepos.compile(temp, "jobs/a", TORCH, EXAMPLE, PreviewRepos.sha('1'), T0, 1);
  }

  private static String jobSet(Map<String, String> files) {
    return files.keySet().stream()
        .filter(p -> p.contains("/jobset-") && !p.contains("/_"))
        .findFirst()
        .orElseThrow();
  }

  private static String everything(Preview p) {
    return String.join("\n", MarkdownPreview.parts(p, MarkdownPreview.GITHUB_LIMIT))
        + JsonPreview.render(p);
  }

  private static void assertHidden(Preview p) {
    String out = everything(p);
    assertFalse(out.contains(VALUE), "Secret value in the output");
    assertFalse(out.contains(B64), "Secret base64 in the output");
    assertFalse(out.contains(VALUE.substring(0, 16)), "Secret fragment in the output");
  }

  @Test
  @DisplayName(
      "a hand-broken JobSet of a changed run: a preview with a refused call-out naming file:line:col, never an internal error")
  void brokenJobSetChanged() throws Exception {
    Map<String, String> base = PreviewCases.files(Map.of("platform.yaml", EXAMPLE), run());
    String js = jobSet(base);
    Preview p =
        PreviewCases.gitOps(
            temp.resolve("g"), base, Map.of(js, base.get(js) + "  bad: [\n"), List.of());
    CallOut c =
        p.callOuts().stream()
            .filter(x -> x.code().equals("unreadable-jobset"))
            .findFirst()
            .orElseThrow();
    assertEquals(CallOut.Severity.REFUSED, c.severity());
    assertTrue(c.message().matches("(?s)`" + Pattern.quote(js) + ":\\d+:\\d+`.*"), c.message());
    assertTrue(p.refused());
    assertTrue(MarkdownPreview.whole(p).contains("JobSet unreadable"));
    assertTrue(JsonPreview.render(p).contains("unreadable-jobset"));
  }

  @Test
  @DisplayName(
      "a hand-broken JobSet of an added run: the run is listed with unknown facts, and the preview is refused")
  void brokenJobSetAdded() throws Exception {
    Map<String, String> head = new HashMap<>(run());
    String js = jobSet(head);
    head.put(js, "{{{ not yaml");
    Preview p =
        PreviewCases.gitOps(temp.resolve("g"), Map.of("platform.yaml", EXAMPLE), head, List.of());
    assertEquals(1, p.runs(RunChange.Status.ADDED).size());
    assertTrue(p.refused());
    assertTrue(
        MarkdownPreview.whole(p).contains("unreadable-jobset")
            || MarkdownPreview.whole(p).contains("JobSet is not valid YAML"));
  }

  @Test
  @DisplayName(
      "other broken or non-object files under clusters/ get a warning call-out each, with their path and line:col")
  void brokenOtherFiles() throws Exception {
    Map<String, String> base = PreviewCases.files(Map.of("platform.yaml", EXAMPLE), run());
    String folder = PreviewCases.runFolder(base);
    Preview p =
        PreviewCases.gitOps(
            temp.resolve("g"),
            base,
            Map.of(
                folder + "/configmap-x.yaml",
                "a: [1,\n",
                "clusters/local/extra.yaml",
                "just a scalar\n",
                "clusters/local/notes.txt",
                "not a manifest {{\n"),
            List.of());
    List<String> warned =
        p.callOuts().stream()
            .filter(c -> c.code().equals("unreadable-file"))
            .map(CallOut::message)
            .toList();
    assertEquals(2, warned.size(), warned.toString());
    assertTrue(
        warned.get(0).startsWith("`clusters/local/extra.yaml` is not a Kubernetes object"),
        warned.get(0));
    assertTrue(
        warned
            .get(1)
            .matches(
                "`" + Pattern.quote(folder) + "/configmap-x.yaml:\\d+:\\d+` is not valid YAML.*"),
        warned.get(1));
    assertFalse(MarkdownPreview.whole(p).contains("**No errors.**") && warned.isEmpty());
  }

  @Test
  @DisplayName("a Secret inside a kind: List (and nested deeper) is masked, in Markdown and JSON")
  void secretInList() throws Exception {
    String list =
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Secret\n  metadata: {name: s}\n  data: {password: "
            + B64
            + "}\n"
            + "- apiVersion: v1\n  kind: List\n  items:\n  - kind: Secret\n    metadata: {name: t}\n    stringData: {token: "
            + VALUE
            + "}\n";
    Map<String, String> base = PreviewCases.files(Map.of("platform.yaml", EXAMPLE), run());
    String folder = PreviewCases.runFolder(base);
    Preview added =
        PreviewCases.gitOps(
            temp.resolve("a"), base, Map.of(folder + "/list-x.yaml", list), List.of());
    assertHidden(added);
    assertTrue(
        MarkdownPreview.whole(added).contains("password: '***'")
            || MarkdownPreview.whole(added).contains("password: \"***\""),
        MarkdownPreview.whole(added));
    Preview changed =
        PreviewCases.gitOps(
            temp.resolve("c"),
            PreviewCases.files(
                base,
                Map.of(folder + "/list-x.yaml", list.replace(VALUE, "other-value-abcdefghijkl"))),
            Map.of(folder + "/list-x.yaml", list),
            List.of());
    assertHidden(changed);
    ObjectChange c = changed.runs().get(0).objects().get(0);
    assertTrue(c.fields().stream().allMatch(FieldChange::secret), c.toString());
    assertEquals(ObjectChange.SecretForm.PLAIN, c.secret());
  }

  @Test
  @DisplayName("SOPS ENC[...] values are masked in any file, any depth")
  void sopsAnywhere() {
    ObjectChange c =
        diff.diff(
            "x.yaml",
            Optional.of(
                "kind: ConfigMap\ndata: {a: [{b: 'ENC[AES256_GCM,data:old" + VALUE + "]'}]}\n"),
            Optional.of(
                "kind: ConfigMap\ndata: {a: [{b: 'ENC[AES256_GCM,data:" + VALUE + "]'}]}\n"));
    assertEquals(
        List.of(
            new FieldChange(
                "data.a[0].b",
                Optional.of(SecretMask.BEFORE),
                Optional.of(SecretMask.AFTER),
                true)),
        c.fields());
  }

  @Test
  @DisplayName(
      "kustomization.yaml: secretGenerator literals show their keys, never values; inline patches of a Secret are masked")
  void kustomization() throws Exception {
    String k =
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nsecretGenerator:\n- name: creds\n  literals:\n  - PASSWORD="
            + VALUE
            + "\n  envs: [creds.env]\npatches:\n- target: {kind: Secret, name: creds}\n  patch: |\n    - op: replace\n      path: /data/token\n      value: "
            + B64
            + "\n- patch: |\n    apiVersion: v1\n    kind: Secret\n    metadata: {name: other}\n    stringData: {api-key: "
            + VALUE
            + "}\n"
            + "patchesStrategicMerge:\n- |\n  apiVersion: v1\n  kind: Secret\n  metadata: {name: third}\n  data: {k: "
            + B64
            + "}\n- plain-file.yaml\n";
    Map<String, String> base = PreviewCases.files(Map.of("platform.yaml", EXAMPLE), run());
    String folder = PreviewCases.runFolder(base);
    Preview added =
        PreviewCases.gitOps(
            temp.resolve("a"), base, Map.of(folder + "/kustomization.yaml", k), List.of());
    assertHidden(added);
    String md = MarkdownPreview.whole(added);
    assertTrue(md.contains("PASSWORD=***"), md);
    assertTrue(
        md.contains("/data/token")
            && md.contains("api-key")
            && md.contains("plain-file.yaml")
            && md.contains("creds.env"),
        md);
    String changedValue =
        k.replace(VALUE, "another-secret-value-zyxwvu")
            .replace(B64, "YW5vdGhlci1zZWNyZXQtdmFsdWUtenl4d3Z1");
    Preview changed =
        PreviewCases.gitOps(
            temp.resolve("c"),
            PreviewCases.files(base, Map.of(folder + "/kustomization.yaml", changedValue)),
            Map.of(folder + "/kustomization.yaml", k),
            List.of());
    assertHidden(changed);
    List<FieldChange> fields = changed.runs().get(0).objects().get(0).fields();
    assertTrue(fields.stream().allMatch(FieldChange::secret), fields.toString());
    assertTrue(
        fields.stream()
            .anyMatch(
                f ->
                    f.before().equals(Optional.of("PASSWORD=*** (before)"))
                        && f.after().equals(Optional.of("PASSWORD=*** (after)"))),
        fields.toString());
    String json = JsonPreview.render(changed);
    assertFalse(json.contains("another-secret") || json.contains(VALUE), json);
  }

  @Test
  @DisplayName(
      "a file of several YAML documents: every object is shown, each Secret among them masked")
  void multiDocument() throws Exception {
    String two =
        "kind: ConfigMap\nmetadata: {name: cm}\ndata: {a: b}\n---\nkind: Secret\nmetadata: {name: s}\ndata: {p: "
            + B64
            + "}\n---\nkind: ConfigMap\nmetadata: {name: third}\ndata: {c: d}\n";
    Map<String, String> base = PreviewCases.files(Map.of("platform.yaml", EXAMPLE), run());
    String folder = PreviewCases.runFolder(base);
    Preview p =
        PreviewCases.gitOps(
            temp.resolve("a"), base, Map.of(folder + "/extra.yaml", two), List.of());
    List<String> titles = p.runs().get(0).objects().stream().map(ObjectChange::title).toList();
    assertEquals(List.of("ConfigMap cm", "Secret s", "ConfigMap third"), titles);
    assertEquals("extra.yaml (object 2 of 3)", p.runs().get(0).objects().get(1).file());
    assertHidden(p);
    assertTrue(MarkdownPreview.whole(p).contains("ConfigMap third: new"));
    List<ObjectChange> changes =
        diff.diffAll(
            "f.yaml",
            Optional.of(two),
            Optional.of(two.replace("c: d", "c: e").replace(B64, "b3RoZXI=")));
    assertEquals(
        List.of(
            ObjectChange.Status.UNCHANGED,
            ObjectChange.Status.CHANGED,
            ObjectChange.Status.CHANGED),
        changes.stream().map(ObjectChange::status).toList());
    assertEquals(
        List.of(
            new FieldChange(
                "data.p", Optional.of(SecretMask.BEFORE), Optional.of(SecretMask.AFTER), true)),
        changes.get(1).fields());
  }

  @Test
  @DisplayName(
      "a run's nodes (and GPUs) come from replicas × parallelism, not NNODES: a hand edit of parallelism shows in the row")
  void nodesFromPods() throws Exception {
    Map<String, String> base = PreviewCases.files(Map.of("platform.yaml", EXAMPLE), run());
    String js = jobSet(base);
    assertTrue(base.get(js).contains("parallelism: 2"), base.get(js));
    String edited =
        base.get(js)
            .replace("parallelism: 2", "parallelism: 3")
            .replace("completions: 2", "completions: 3");
    Preview p = PreviewCases.gitOps(temp.resolve("g"), base, Map.of(js, edited), List.of());
    RunFacts after = p.runs().get(0).after().orElseThrow();
    assertEquals(3, after.nodes());
    assertEquals(2, p.runs().get(0).before().orElseThrow().nodes());
    assertEquals(after.total("nvidia.com/gpu").intValue(), after.nodes() * after.gpusPerNode());
  }

  @Test
  @DisplayName("an MPI launcher that runs no ranks (GPUs hidden) is not counted as a node")
  void mpiLauncher() {
    String js =
        "kind: JobSet\nspec:\n  replicatedJobs:\n  - name: node\n    replicas: 1\n    template: {spec: {parallelism: 2, template: {spec: {containers: [{name: c}]}}}}\n"
            + "  - name: launcher\n    replicas: 1\n    template: {spec: {parallelism: 1, template: {spec: {containers: [{name: c, env: [{name: NVIDIA_VISIBLE_DEVICES, value: ''}]}]}}}}\n";
    assertEquals(2, JobSetFacts.nodes(YamlTrees.parse(js).objects().get(0)));
    assertEquals(
        3,
        JobSetFacts.nodes(YamlTrees.parse(js.replace("value: ''", "value: all")).objects().get(0)));
  }

  @Test
  @DisplayName(
      "no JobSet file content gives an internal error: empty, a list, a scalar, wrong types, several documents, anchors")
  void anyJobSetContent() throws Exception {
    Map<String, String> base = PreviewCases.files(Map.of("platform.yaml", EXAMPLE), run());
    String js = jobSet(base);
    List<String> contents =
        List.of(
            "",
            "[]\n",
            "42\n",
            "kind: JobSet\nspec: 5\n",
            "kind: JobSet\nspec: {replicatedJobs: 7}\n",
            "kind: JobSet\nspec: {replicatedJobs: [{replicas: x, template: [1]}]}\nmetadata: {annotations: [1], labels: 3}\n",
            "---\n---\n",
            "a: &x [1]\nb: *x\n",
            "kind: ConfigMap\n---\nkind: Secret\ndata: {k: " + B64 + "}\n",
            "\t\u0000bad");
    int n = 0;
    for (String content : contents) {
      Preview p =
          PreviewCases.gitOps(temp.resolve("g" + n++), base, Map.of(js, content), List.of());
      assertHidden(p);
      if (content.contains("*x")) {
        // Valid YAML the preview cannot read faithfully: a warning naming the file, not a refusal.
        assertTrue(
            p.callOuts().stream()
                .anyMatch(c -> c.code().equals("yaml-aliases") && c.message().startsWith("`" + js)),
            p.callOuts().toString());
        continue;
      }
      assertTrue(p.refused(), content);
      // A readable JobSet of the wrong shape is checked like any other (its queue is unknown:
      // refused); anything else is unreadable.
      boolean named =
          p.callOuts().stream()
              .anyMatch(
                  c -> c.code().equals("unreadable-jobset") && c.message().startsWith("`" + js));
      assertEquals(!content.startsWith("kind: JobSet"), named, content + p.callOuts());
      assertHidden(p);
    }
  }

  @Test
  @DisplayName(
      "a GitOps pull request editing queues and Secrets outside run folders: each object diffed field by field, "
          + "an immutable LocalQueue change and a plain Secret called out, Secret data masked, kustomization files only named")
  void objectsOutsideRuns() throws Exception {
    String cq =
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: ml}\nspec:\n  resourceGroups:\n  - coveredResources: [nvidia.com/gpu]\n"
            + "    flavors:\n    - name: gpu\n      resources:\n      - {name: nvidia.com/gpu, nominalQuota: \"32\"}\n";
    String lq =
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: ml, namespace: ml}\nspec: {clusterQueue: ml}\n";
    Map<String, String> base =
        Map.of(
            "platform.yaml",
            EXAMPLE,
            "clusters/local/_cluster/clusterqueue-ml.yaml",
            cq,
            "clusters/local/ml/_queues/localqueue-ml.yaml",
            lq,
            "clusters/local/ml/_queues/kustomization.yaml",
            "resources: [localqueue-ml.yaml]\n",
            "clusters/local/ml/_queues/old.yaml",
            lq.replace("name: ml,", "name: old,"));
    Map<String, String> head =
        Map.of(
            "clusters/local/_cluster/clusterqueue-ml.yaml",
            cq.replace("\"32\"", "\"64\""),
            "clusters/local/ml/_queues/localqueue-ml.yaml",
            lq.replace("clusterQueue: ml", "clusterQueue: other"),
            "clusters/local/ml/_queues/kustomization.yaml",
            "resources: [localqueue-ml.yaml, secret-db.yaml]\n",
            "clusters/local/ml/_queues/secret-db.yaml",
            "apiVersion: v1\nkind: Secret\nmetadata: {name: db, namespace: ml}\ndata: {password: "
                + B64
                + "}\n");
    Preview p =
        PreviewCases.gitOps(
            temp.resolve("g"), base, head, List.of("clusters/local/ml/_queues/old.yaml"));
    assertEquals(
        List.of(
            "clusters/local/_cluster/clusterqueue-ml.yaml",
            "clusters/local/ml/_queues/localqueue-ml.yaml",
            "clusters/local/ml/_queues/old.yaml",
            "clusters/local/ml/_queues/secret-db.yaml"),
        p.otherObjects().stream().map(ObjectChange::file).toList());
    ObjectChange quota = p.otherObjects().get(0);
    assertEquals(
        List.of(
            new FieldChange(
                "spec.resourceGroups[0].flavors[gpu].resources[nvidia.com/gpu].nominalQuota",
                Optional.of("32"),
                Optional.of("64"),
                false)),
        quota.fields());
    assertEquals(
        List.of(
            ObjectChange.Status.CHANGED,
            ObjectChange.Status.CHANGED,
            ObjectChange.Status.REMOVED,
            ObjectChange.Status.ADDED),
        p.otherObjects().stream().map(ObjectChange::status).toList());
    // The hand-edited queue files are not what the repo's platform.yaml gives: the next platform
    // render or submit would undo them (queue-objects-stale).
    assertEquals(
        List.of("immutable-field", "plain-secret", "queue-objects-stale"),
        p.callOuts().stream().map(CallOut::code).toList());
    assertTrue(
        p.callOuts().stream()
            .allMatch(c -> c.run().isEmpty() && c.severity() == CallOut.Severity.REFUSED),
        p.callOuts().toString());
    assertTrue(
        p.callOuts()
                .get(0)
                .message()
                .startsWith("LocalQueue ml/ml changes spec.clusterQueue in place")
            && p.callOuts().get(0).message().endsWith("delete it and create it anew instead"),
        p.callOuts().get(0).message());
    String md = MarkdownPreview.whole(p);
    String others = md.substring(md.indexOf("#### Other files"));
    assertTrue(
        others.contains("<details><summary>ClusterQueue ml: 1 field changed</summary>")
            && others.contains("- 32\n+ 64"),
        others);
    assertTrue(
        others.contains("<details><summary>Secret ml/db: new, Secret data masked</summary>")
            && others.contains("- removed `LocalQueue ml/old`"),
        others);
    assertTrue(
        others.contains("- `clusters/local/ml/_queues/kustomization.yaml`")
            && !others.contains("secret-db.yaml]"),
        others);
    assertTrue(
        JsonPreview.render(p)
            .contains(
                "\"otherObjects\" : [ {\n    \"file\" : \"clusters/local/_cluster/clusterqueue-ml.yaml\""));
    assertHidden(p);
  }

  @Test
  @DisplayName(
      "a manifest written with YAML aliases (which the preview's reader would take as plain text) is a warning call-out, its content not shown; "
          + "a JobSet with aliases is not refused, its facts unknown")
  void yamlAliases() throws Exception {
    Map<String, String> base = PreviewCases.files(Map.of("platform.yaml", EXAMPLE), run());
    String folder = PreviewCases.runFolder(base);
    String js = jobSet(base);
    String aliased =
        "kind: ConfigMap\nmetadata: {name: x}\ndata:\n  a: &v " + VALUE + "\n  b: *v\n";
    Preview p =
        PreviewCases.gitOps(
            temp.resolve("g"),
            base,
            Map.of(
                folder + "/configmap-x.yaml",
                aliased,
                js,
                base.get(js)
                    .replaceFirst(
                        "\nspec:\n", "\nx-shared: &shared {a: b}\nx-use: *shared\nspec:\n")),
            List.of());
    List<CallOut> warned =
        p.callOuts().stream().filter(c -> c.code().equals("yaml-aliases")).toList();
    assertEquals(2, warned.size(), p.callOuts().toString());
    assertTrue(
        warned.stream().allMatch(c -> c.severity() == CallOut.Severity.WARNING), warned.toString());
    assertTrue(
        warned
            .get(0)
            .message()
            .startsWith("`" + folder + "/configmap-x.yaml` is written with YAML aliases"),
        warned.get(0).message());
    assertTrue(
        p.runs().get(0).after().isEmpty(),
        "the aliased JobSet is not read as if its aliases were text");
    assertFalse(
        p.callOuts().stream().anyMatch(c -> c.code().equals("unreadable-jobset")),
        p.callOuts().toString());
    assertTrue(
        p.runs().get(0).objects().stream()
            .filter(o -> o.file().equals("configmap-x.yaml"))
            .allMatch(ObjectChange::unreadable));
    assertFalse(everything(p).contains(VALUE.substring(0, 16)));
    assertTrue(
        YamlTrees.parse("a: '*not an alias'\nb: \"x * y\"\n").readable(),
        "a * inside a scalar is no alias");
  }
}
