package dev.trainyard.compiler.manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.Severity;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.testing.Wording;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * CheckStage on hand-built objects: a valid baseline passes untouched, and each single violation of
 * an API-server or webhook rule is one E-code error naming the object and the rule, at the
 * runtime's file.
 */
class CheckStageTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  private static final String ORIGIN = "runtimes/torch/2.13.0-1/runtime.yaml";
  private static final String HINT =
      "this is a bug in the runtime definition or in Trainyard, not in train.yaml; please report it";

  /**
   * A JobSet named {@code name} with one replicated job {@code node} of 2 pods, a mounted volume
   * and env.
   */
  private static ObjectNode jobSet(String name) {
    ObjectNode o = Manifest.skeleton("jobset.x-k8s.io/v1alpha2", "JobSet", name, "team-a");
    o.withObject("metadata").putObject("labels").put("trainyard.dev/run", name);
    o.putObject("spec").putArray("replicatedJobs").add(replicatedJob("node", 1, 2));
    return o;
  }

  private static ObjectNode replicatedJob(String name, int replicas, int pods) {
    ObjectNode rj =
        CanonicalJson.mapper().createObjectNode().put("name", name).put("replicas", replicas);
    ObjectNode job =
        rj.putObject("template")
            .putObject("spec")
            .put("parallelism", pods)
            .put("completions", pods);
    ObjectNode pod = job.putObject("template").putObject("spec");
    pod.putArray("volumes").addObject().put("name", "dshm");
    ObjectNode c = pod.putArray("containers").addObject().put("name", "train");
    c.putArray("env").add(env("A")).add(env("B"));
    c.putArray("volumeMounts").addObject().put("name", "dshm").put("mountPath", "/dev/shm");
    return rj;
  }

  private static ObjectNode env(String name) {
    return CanonicalJson.mapper().createObjectNode().put("name", name).put("value", "1");
  }

  private static ObjectNode firstRj(ObjectNode jobSet) {
    return (ObjectNode) jobSet.path("spec").path("replicatedJobs").path(0);
  }

  private static ObjectNode firstPod(ObjectNode jobSet) {
    return (ObjectNode) firstRj(jobSet).path("template").path("spec").path("template").path("spec");
  }

  private static Manifest other(String kind, String name) {
    return Manifest.of(Manifest.skeleton("v1", kind, name, "team-a"));
  }

  private static ManifestSet runOf(Manifest... run) {
    return new ManifestSet("local", "team-a", "demo", List.of(run), List.of(), List.of());
  }

  private static StageResult<ManifestSet> check(ManifestSet set) {
    return new CheckStage().check(set, ORIGIN);
  }

  /**
   * The messages CheckStage reports for a baseline JobSet named {@code name} after {@code change}.
   */
  private static List<String> problems(String name, Consumer<ObjectNode> change) {
    ObjectNode js = jobSet(name);
    change.accept(js);
    return messages(check(runOf(Manifest.of(js))));
  }

  private static List<String> messages(StageResult<ManifestSet> r) {
    return r.diagnostics().stream().map(Diagnostic::message).toList();
  }

  @Test
  @DisplayName(
      "a valid JobSet, ConfigMap, ClusterQueue and LocalQueue pass with the set unchanged and no diagnostic")
  void validSetPasses() {
    ManifestSet set =
        new ManifestSet(
            "local",
            "team-a",
            "demo",
            List.of(Manifest.of(jobSet("demo")), other("ConfigMap", "demo-hostfile")),
            List.of(other("ClusterQueue", "team-a")),
            List.of(other("LocalQueue", "team-a")));
    StageResult<ManifestSet> r = check(set);
    assertEquals(List.of(), r.diagnostics());
    assertFalse(r.failed());
    assertEquals(set, r.value().orElseThrow());
  }

  @Test
  @DisplayName(
      "a violation is an OUTPUT_INVALID error at the runtime's file, with the 'not your fault' hint, and stops the stage")
  void diagnosticShape() {
    ObjectNode js = jobSet("demo");
    js.withObject("spec").put("suspend", true);
    StageResult<ManifestSet> r = check(runOf(Manifest.of(js)));
    assertTrue(r.failed());
    assertTrue(r.value().isEmpty());
    assertEquals(1, r.diagnostics().size());
    Diagnostic d = r.diagnostics().get(0);
    assertEquals(Severity.ERROR, d.severity());
    assertEquals(DiagnosticCode.OUTPUT_INVALID, d.code());
    assertEquals(SourceLocation.ofFile(ORIGIN), d.location());
    assertEquals("", d.pointer());
    assertEquals(HINT, d.hint());
    WORDING.approve(d.message());
  }

  @Test
  @DisplayName(
      "metadata.name: a DNS-1123 subdomain of 253 characters passes, 254 or an upper-case name fails")
  void subdomainName() {
    String n253 = "a".repeat(125) + "." + "b".repeat(127);
    assertEquals(253, n253.length());
    assertEquals(List.of(), messages(check(runOf(other("ConfigMap", n253)))));
    assertEquals(
        List.of("ConfigMap " + n253 + "x: metadata.name is not a DNS-1123 subdomain"),
        messages(check(runOf(other("ConfigMap", n253 + "x")))));
    assertEquals(
        List.of("ConfigMap Demo: metadata.name is not a DNS-1123 subdomain"),
        messages(check(runOf(other("ConfigMap", "Demo")))));
  }

  @Test
  @DisplayName("metadata.generateName is refused (Argo CD and Flux cannot own a generated name)")
  void generateName() {
    ObjectNode cm = Manifest.skeleton("v1", "ConfigMap", "demo", "team-a");
    cm.withObject("metadata").put("generateName", "demo-");
    assertEquals(
        List.of("ConfigMap demo: metadata.generateName must not be emitted"),
        messages(check(runOf(Manifest.of(cm)))));
  }

  @Test
  @DisplayName(
      "label values: 63 characters pass, 64 fail; a value starting with '-' or holding '/' fails; empty passes")
  void labelValues() {
    String v63 = "a".repeat(31) + "-_." + "b".repeat(29);
    assertEquals(63, v63.length());
    ObjectNode cm = Manifest.skeleton("v1", "ConfigMap", "demo", "team-a");
    cm.withObject("metadata")
        .putObject("labels")
        .put("ok", v63)
        .put("empty", "")
        .put("long", v63 + "c")
        .put("dash", "-a")
        .put("slash", "a/b");
    assertEquals(
        List.of(
            "ConfigMap demo: label long has an invalid value \"" + v63 + "c\"",
            "ConfigMap demo: label dash has an invalid value \"-a\"",
            "ConfigMap demo: label slash has an invalid value \"a/b\""),
        messages(check(runOf(Manifest.of(cm)))));
  }

  @Test
  @DisplayName(
      "JobSet name: an RFC 1035 label; a leading digit fails though it is a valid DNS-1123 subdomain")
  void rfc1035Name() {
    assertEquals(
        List.of("JobSet 1demo: name is not an RFC 1035 label"), problems("1demo", js -> {}));
    assertEquals(
        List.of("JobSet demo.x: name is not an RFC 1035 label"), problems("demo.x", js -> {}));
  }

  @Test
  @DisplayName(
      "JobSet name of 63 characters is an RFC 1035 label (only the pod budget fails), 64 is not")
  void rfc1035Length() {
    String n63 = "j" + "x".repeat(62);
    List<String> at63 = problems(n63, js -> {});
    assertEquals(1, at63.size(), at63.toString());
    assertTrue(at63.get(0).contains("pod names exceed 63 characters"), at63.toString());
    List<String> at64 = problems(n63 + "y", js -> {});
    assertTrue(
        at64.contains("JobSet " + n63 + "y: name is not an RFC 1035 label"), at64.toString());
  }

  @Test
  @DisplayName(
      "spec.suspend and spec.ttlSecondsAfterFinished are each refused (Kueue owns suspend; a TTL deletes the GitOps object)")
  void forbiddenSpecFields() {
    assertEquals(
        List.of("JobSet demo: spec.ttlSecondsAfterFinished must not be emitted"),
        problems("demo", js -> js.withObject("spec").put("ttlSecondsAfterFinished", 60)));
    assertEquals(
        List.of(
            "JobSet demo: spec.suspend must not be emitted",
            "JobSet demo: spec.ttlSecondsAfterFinished must not be emitted"),
        problems(
            "demo",
            js -> js.withObject("spec").put("suspend", false).put("ttlSecondsAfterFinished", 0)));
  }

  @Test
  @DisplayName(
      "replicated jobs: 0 and 19 are refused, 1 and 18 pass (Kueue admits 1 to 18 PodSets)")
  void replicatedJobCount() {
    assertEquals(
        List.of("JobSet demo: has 0 replicated jobs; Kueue admits 1 to 18"),
        problems("demo", js -> js.withObject("spec").putArray("replicatedJobs")));
    assertEquals(List.of(), problems("demo", js -> withJobs(js, 18)));
    assertEquals(
        List.of("JobSet demo: has 19 replicated jobs; Kueue admits 1 to 18"),
        problems("demo", js -> withJobs(js, 19)));
  }

  private static void withJobs(ObjectNode js, int count) {
    ArrayNode rjobs = js.withObject("spec").putArray("replicatedJobs");
    for (int i = 0; i < count; i++) {
      rjobs.add(replicatedJob("r" + i, 1, 1));
    }
  }

  @Test
  @DisplayName(
      "replicas, parallelism and completions of 0 are each refused (kueue#2227); replicas defaults to 1")
  void podCountsAtLeastOne() {
    String msg =
        "JobSet demo replicated job node: replicas, parallelism and completions must be at least 1";
    assertEquals(List.of(msg), problems("demo", js -> firstRj(js).put("replicas", 0)));
    assertEquals(
        List.of(msg),
        problems(
            "demo",
            js -> ((ObjectNode) firstRj(js).path("template").path("spec")).put("parallelism", 0)));
    assertEquals(
        List.of(msg),
        problems(
            "demo",
            js -> ((ObjectNode) firstRj(js).path("template").path("spec")).put("completions", 0)));
    assertEquals(
        List.of(msg),
        problems(
            "demo",
            js -> ((ObjectNode) firstRj(js).path("template").path("spec")).remove("completions")));
    assertEquals(List.of(), problems("demo", js -> firstRj(js).remove("replicas")));
  }

  @Test
  @DisplayName(
      "pod-name budget len(js)+len(rjob)+digits(replicas-1)+digits(completions-1): exactly 54 passes, 55 fails")
  void podNameBudget() {
    // 48 + 4 ("node") + 1 + 1 = 54
    String n48 = "j".repeat(48);
    assertEquals(List.of(), problems(n48, js -> {}));
    assertEquals(
        List.of(
            "JobSet "
                + n48
                + "x replicated job node: pod names exceed 63 characters (len sum 55 > 54, jobset#408)"),
        problems(n48 + "x", js -> {}));
  }

  @Test
  @DisplayName(
      "pod-name budget counts index digits: 10 pods (index 9) keep 1 digit, 11 pods (index 10) need 2")
  void podNameBudgetCompletionDigits() {
    String n48 = "j".repeat(48);
    assertEquals(List.of(), problems(n48, js -> pods(js, 9)));
    assertEquals(List.of(), problems(n48, js -> pods(js, 10)));
    assertEquals(
        List.of(
            "JobSet "
                + n48
                + " replicated job node: pod names exceed 63 characters (len sum 55 > 54, jobset#408)"),
        problems(n48, js -> pods(js, 11)));
  }

  @Test
  @DisplayName("pod-name budget counts replica-index digits: 10 replicas keep 1 digit, 11 need 2")
  void podNameBudgetReplicaDigits() {
    String n48 = "j".repeat(48);
    assertEquals(List.of(), problems(n48, js -> firstRj(js).put("replicas", 9)));
    assertEquals(List.of(), problems(n48, js -> firstRj(js).put("replicas", 10)));
    assertEquals(
        List.of(
            "JobSet "
                + n48
                + " replicated job node: pod names exceed 63 characters (len sum 55 > 54, jobset#408)"),
        problems(n48, js -> firstRj(js).put("replicas", 11)));
  }

  private static void pods(ObjectNode js, int pods) {
    ((ObjectNode) firstRj(js).path("template").path("spec"))
        .put("parallelism", pods)
        .put("completions", pods);
  }

  @Test
  @DisplayName(
      "dependsOn an earlier replicated job passes; on a later one or itself fails (JobSet webhook)")
  void dependsOnOrder() {
    assertEquals(
        List.of(),
        problems(
            "demo",
            js -> {
              ObjectNode launcher = replicatedJob("launcher", 1, 1);
              launcher.putArray("dependsOn").addObject().put("name", "node").put("status", "Ready");
              ((ArrayNode) js.path("spec").path("replicatedJobs")).add(launcher);
            }));
    assertEquals(
        List.of(
            "JobSet demo replicated job node: dependsOn must name an earlier replicated job, got launcher"),
        problems(
            "demo",
            js -> {
              firstRj(js)
                  .putArray("dependsOn")
                  .addObject()
                  .put("name", "launcher")
                  .put("status", "Ready");
              ((ArrayNode) js.path("spec").path("replicatedJobs"))
                  .add(replicatedJob("launcher", 1, 1));
            }));
    assertEquals(
        List.of(
            "JobSet demo replicated job node: dependsOn must name an earlier replicated job, got node"),
        problems("demo", js -> firstRj(js).putArray("dependsOn").addObject().put("name", "node")));
  }

  @Test
  @DisplayName(
      "an env name set twice in one container is refused; the same name in two containers passes")
  void duplicateEnv() {
    assertEquals(
        List.of("JobSet demo replicated job node container train: env A is set twice"),
        problems(
            "demo",
            js -> ((ArrayNode) firstPod(js).path("containers").path(0).path("env")).add(env("A"))));
    assertEquals(
        List.of(),
        problems(
            "demo",
            js ->
                ((ArrayNode) firstPod(js).path("containers"))
                    .addObject()
                    .put("name", "side")
                    .putArray("env")
                    .add(env("A"))));
  }

  @Test
  @DisplayName("a volumeMount that names no volume of the pod is refused")
  void mountWithoutVolume() {
    assertEquals(
        List.of(
            "JobSet demo replicated job node container train: volumeMount cache names no volume"),
        problems(
            "demo",
            js ->
                ((ArrayNode) firstPod(js).path("containers").path(0).path("volumeMounts"))
                    .addObject()
                    .put("name", "cache")
                    .put("mountPath", "/cache")));
  }

  @Test
  @DisplayName(
      "objects of the run, the ClusterQueues and the LocalQueues are all checked, each problem reported")
  void allGroupsChecked() {
    ManifestSet set =
        new ManifestSet(
            "local",
            "team-a",
            "demo",
            List.of(other("ConfigMap", "Run_cm")),
            List.of(other("ClusterQueue", "Team_cq")),
            List.of(other("LocalQueue", "Team_lq")));
    assertEquals(
        List.of(
            "ConfigMap Run_cm: metadata.name is not a DNS-1123 subdomain",
            "ClusterQueue Team_cq: metadata.name is not a DNS-1123 subdomain",
            "LocalQueue Team_lq: metadata.name is not a DNS-1123 subdomain"),
        messages(check(set)));
  }

  @Test
  @DisplayName(
      "JobSet structure rules apply to kind JobSet only: a ConfigMap with a JobSet-like spec passes")
  void structureOnlyForJobSets() {
    ObjectNode cm = Manifest.skeleton("v1", "ConfigMap", "demo", "team-a");
    cm.putObject("spec").put("suspend", true).putArray("replicatedJobs");
    assertEquals(List.of(), messages(check(runOf(Manifest.of(cm)))));
  }

  @Test
  @DisplayName("several problems are all reported at once, one diagnostic each")
  void allProblemsAtOnce() {
    List<String> found =
        new ArrayList<>(
            problems(
                "demo",
                js -> {
                  js.withObject("spec").put("suspend", true);
                  firstRj(js).put("replicas", 0);
                }));
    assertEquals(
        List.of(
            "JobSet demo: spec.suspend must not be emitted",
            "JobSet demo replicated job node: replicas, parallelism and completions must be at least 1"),
        found);
  }

  @Test
  @DisplayName(
      "init containers are checked too: a duplicate env name or a mount of no volume in one is refused, naming it")
  void initContainers() {
    assertEquals(
        List.of(
            "JobSet demo replicated job node container sync: env G is set twice",
            "JobSet demo replicated job node container sync: volumeMount repo names no volume"),
        problems(
            "demo",
            js -> {
              ObjectNode sync =
                  firstPod(js).putArray("initContainers").addObject().put("name", "sync");
              sync.putArray("env").add(env("G")).add(env("G"));
              sync.putArray("volumeMounts")
                  .addObject()
                  .put("name", "dshm")
                  .put("mountPath", "/dev/shm");
              sync.withArray("volumeMounts")
                  .addObject()
                  .put("name", "repo")
                  .put("mountPath", "/repo");
            }));
    assertEquals(
        List.of(),
        problems(
            "demo",
            js ->
                firstPod(js)
                    .putArray("initContainers")
                    .addObject()
                    .put("name", "sync")
                    .putArray("env")
                    .add(env("A"))),
        "an init container may set a name its main container sets too");
  }
}
