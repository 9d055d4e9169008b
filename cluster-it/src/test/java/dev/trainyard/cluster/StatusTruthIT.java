package dev.trainyard.cluster;

import static dev.trainyard.cluster.StatusRuns.lines;
import static dev.trainyard.cluster.StatusRuns.posts;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.trainyard.controller.RunReader;
import dev.trainyard.controller.forge.FakeForge;
import dev.trainyard.controller.state.RunStateMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The states the status controller used to get wrong (issue #18), each made by the real controllers
 * on the harness (kube-apiserver, kube-controller-manager's Job controller, JobSet, Kueue, kwok)
 * and posted to the fake forge by the controller as its own process: a user's exit whose pods are
 * gone (the Job's real FailedIndexes condition), a JobSet deleted before it finished, and a
 * Workload Kueue deactivated.
 */
@ExtendWith(KubeClusterExtension.class)
class StatusTruthIT {

  static final Duration TIMEOUT = Duration.ofSeconds(150);
  final FakeForge forge = FakeForge.start();
  final List<ControllerProcess> controllers = new ArrayList<>();

  @AfterEach
  void stop() {
    controllers.forEach(ControllerProcess::close);
    forge.close();
  }

  ControllerProcess controller(KubeCluster cluster, String tag, String namespace) {
    ControllerProcess c =
        ControllerProcess.start(cluster, forge, tag, namespace, tag + "-0", Duration.ofSeconds(60));
    controllers.add(c);
    return c;
  }

  void awaitPost(
      String what, String sha, Predicate<FakeForge.Accepted> match, ControllerProcess c) {
    Eventually.await(
        what,
        TIMEOUT,
        () -> {
          c.requireAlive();
          return posts(forge, sha).stream().anyMatch(match);
        },
        () ->
            "posts: "
                + lines(posts(forge, sha))
                + "\nrejected: "
                + forge.rejected()
                + "\nlog:\n"
                + c.log());
  }

  /**
   * {@code jobSet} with the provenance of a run whose source is {@code
   * https://<host>/acme/<run>.git} at {@code sha}.
   */
  static GenericKubernetesResource sourced(
      GenericKubernetesResource jobSet, String host, String sha) {
    String run = jobSet.getMetadata().getName();
    Map<String, String> a =
        new LinkedHashMap<>(
            jobSet.getMetadata().getAnnotations() == null
                ? Map.of()
                : jobSet.getMetadata().getAnnotations());
    a.putAll(
        Map.of(
            "trainyard.dev/source-repo",
            "https://" + host + "/acme/" + run + ".git",
            "trainyard.dev/source-commit",
            sha,
            "trainyard.dev/source-path",
            "jobs/" + run + "/train.yaml",
            "trainyard.dev/cluster",
            "it"));
    jobSet.getMetadata().setAnnotations(a);
    return jobSet;
  }

  @Test
  @DisplayName(
      "a user's exit 1 under the compiled policy, its pods deleted before the controller looks: the Job's real PodFailurePolicy message posts failure (user error) with the exit code, not a platform error")
  void failedIndexesWithPodsGone(KubeCluster cluster) {
    String ns = cluster.newNamespace();
    String tag = "fidx";
    String sha = StatusRuns.sha("fidx-run");
    GenericKubernetesResource jobSet =
        sourced(FailurePolicyIT.compiledJobSet("fail"), ControllerProcess.host("github", tag), sha);
    var stored = FailurePolicyIT.apply(cluster, ns, jobSet);
    String name = jobSet.getMetadata().getName();
    FailurePolicyIT.awaitFailed(stored);
    List<Job> jobs =
        cluster
            .client()
            .batch()
            .v1()
            .jobs()
            .inNamespace(ns)
            .withLabel(JobSets.NAME_LABEL, name)
            .list()
            .getItems();
    JobCondition failed =
        jobs.stream()
            .flatMap(j -> j.getStatus().getConditions().stream())
            .filter(c -> "Failed".equals(c.getType()) && "True".equals(c.getStatus()))
            .findFirst()
            .orElseThrow();
    String failedIndexes = jobs.get(0).getStatus().getFailedIndexes();
    System.out.println(
        "[StatusTruthIT] real Job failure: "
            + failed.getReason()
            + ": "
            + failed.getMessage()
            + "; status.failedIndexes="
            + failedIndexes
            + "; JobSet "
            + JobSets.describe(stored.get()));
    // Since issue #19 the node container's exit is FailJob (rule 1): the Job fails at once with
    // the pod failure policy's message (kubernetes pkg/controller/job pod_failure_policy.go).
    assertEquals("PodFailurePolicy", failed.getReason());
    assertTrue(
        failed
            .getMessage()
            .matches(
                "Container node for pod \\S+ failed with exit code 1 matching FailJob rule at index 1"),
        failed.getMessage());
    cluster
        .client()
        .pods()
        .inNamespace(ns)
        .withLabel(JobSets.NAME_LABEL, name)
        .withGracePeriod(0)
        .delete();
    Eventually.await(
        "the failed pods gone",
        TIMEOUT,
        () ->
            cluster
                .client()
                .pods()
                .inNamespace(ns)
                .withLabel(JobSets.NAME_LABEL, name)
                .list()
                .getItems()
                .isEmpty());

    ControllerProcess c = controller(cluster, tag, ns);
    awaitPost("the failure", sha, StatusRuns::terminal, c);
    List<FakeForge.Accepted> posts = posts(forge, sha);
    System.out.println("[StatusTruthIT] pods gone: " + lines(posts));
    assertEquals(1, posts.size(), lines(posts).toString());
    assertEquals("failure", posts.get(0).state(), lines(posts).toString());
    assertTrue(
        posts
            .get(0)
            .description()
            .matches(
                "failed \\(user error\\): command exited with code 1 in container node.*,"
                    + " attempt 1 of \\d+"),
        posts.get(0).description());
  }

  @Test
  @DisplayName(
      "a running JobSet deleted before it finished: GitHub gets error 'deleted before it finished (last: running …)', GitLab canceled, once each")
  void deletedBeforeItFinished(KubeCluster cluster) {
    String ns = cluster.newNamespace();
    Manifests manifests = new Manifests(cluster.client());
    String tag = "del";
    for (String kind : List.of("github", "gitlab")) {
      manifests.apply(
          manifests.placed(
              StatusRuns.run(
                  "del-" + kind,
                  ControllerProcess.host(kind, tag),
                  StatusRuns.sha("del-" + kind),
                  "slow",
                  "600s",
                  null),
              ns));
    }
    ControllerProcess c = controller(cluster, tag, ns);
    for (String kind : List.of("github", "gitlab")) {
      awaitPost(
          kind + " running",
          StatusRuns.sha("del-" + kind),
          a -> a.description().startsWith("running: 2 of 2"),
          c);
      JobSets.api(cluster.client()).inNamespace(ns).withName("del-" + kind).delete();
    }
    for (String kind : List.of("github", "gitlab")) {
      awaitPost(kind + " closed", StatusRuns.sha("del-" + kind), StatusRuns::terminal, c);
    }
    Eventually.sleep(Duration.ofSeconds(5));
    for (String kind : List.of("github", "gitlab")) {
      List<FakeForge.Accepted> posts = posts(forge, StatusRuns.sha("del-" + kind));
      System.out.println("[StatusTruthIT] deleted " + kind + ": " + lines(posts));
      FakeForge.Accepted last = posts.get(posts.size() - 1);
      assertEquals(
          kind.equals("github") ? "error" : "canceled", last.state(), lines(posts).toString());
      assertEquals(
          "deleted before it finished (last: running: 2 of 2 nodes ready, attempt 1 of 1)",
          last.description());
      assertEquals(1, posts.stream().filter(StatusRuns::terminal).count(), lines(posts).toString());
      assertFalse(StatusRuns.hasDuplicate(posts), lines(posts).toString());
    }
    assertEquals(List.of(), forge.rejected());
  }

  @Test
  @DisplayName(
      "a running run whose Workload is deactivated (spec.active false): Kueue evicts it for good, the status turns error, not 'requeued' for ever")
  void kueueDeactivated(KubeCluster cluster) {
    assumeTrue(
        cluster.runs(Component.KUEUE_CONTROLLER),
        "NOT RUN: Kueue controller not built (see VERSIONS)");
    String ns = cluster.newNamespace();
    Manifests manifests = new Manifests(cluster.client());
    KueueIT.queueObjects("ctl-deact", "4").forEach(o -> manifests.apply(manifests.placed(o, ns)));
    String tag = "deact";
    String sha = StatusRuns.sha("deact-run");
    manifests.apply(
        manifests.placed(
            StatusRuns.run(
                "deact-run",
                ControllerProcess.host("github", tag),
                sha,
                "slow",
                "600s",
                "ctl-deact-lq"),
            ns));
    ControllerProcess c = controller(cluster, tag, ns);
    awaitPost("running", sha, a -> a.description().startsWith("running: 2 of 2"), c);
    var workloads = workloads(cluster, ns);
    GenericKubernetesResource wl = workloads.list().getItems().get(0);
    Edits.edit(
        workloads.withName(wl.getMetadata().getName()),
        w -> {
          @SuppressWarnings("unchecked")
          Map<String, Object> spec = (Map<String, Object>) w.getAdditionalProperties().get("spec");
          spec.put("active", false);
          return w;
        });
    var jobSet = JobSets.api(cluster.client()).inNamespace(ns).withName("deact-run");
    Eventually.await(
        "Kueue suspends the JobSet",
        TIMEOUT,
        () -> JobSets.suspended(jobSet.get()),
        () -> JobSets.describe(jobSet.get()));
    awaitPost("terminal", sha, StatusRuns::terminal, c);
    Eventually.sleep(Duration.ofSeconds(5));
    GenericKubernetesResource evicted = workloads.withName(wl.getMetadata().getName()).get();
    System.out.println(
        "[StatusTruthIT] deactivated Workload status: "
            + evicted.getAdditionalProperties().get("status"));
    List<FakeForge.Accepted> posts = posts(forge, sha);
    System.out.println("[StatusTruthIT] deactivated: " + lines(posts));
    FakeForge.Accepted last = posts.get(posts.size() - 1);
    assertEquals("error", last.state(), lines(posts).toString());
    assertTrue(
        last.description().startsWith("failed (platform error): deactivated"), last.description());
    assertTrue(
        posts.stream().noneMatch(a -> a.description().contains("requeued")),
        lines(posts).toString());
    assertEquals(1, posts.stream().filter(StatusRuns::terminal).count(), lines(posts).toString());
    assertTrue(
        JobSets.suspended(jobSet.get()),
        "Kueue never requeues it: " + JobSets.describe(jobSet.get()));
  }

  @Test
  @DisplayName(
      "a run that succeeded through Kueue: trainyard status (a list call, later) says the same duration as the commit status")
  void durationAgrees(KubeCluster cluster) {
    assumeTrue(
        cluster.runs(Component.KUEUE_CONTROLLER),
        "NOT RUN: Kueue controller not built (see VERSIONS)");
    String ns = cluster.newNamespace();
    Manifests manifests = new Manifests(cluster.client());
    KueueIT.queueObjects("ctl-took", "4").forEach(o -> manifests.apply(manifests.placed(o, ns)));
    String tag = "took";
    String sha = StatusRuns.sha("took-run");
    manifests.apply(
        manifests.placed(
            StatusRuns.run(
                "took-run", ControllerProcess.host("gitea", tag), sha, "slow", "3s", "ctl-took-lq"),
            ns));
    ControllerProcess c = controller(cluster, tag, ns);
    awaitPost("succeeded", sha, StatusRuns::terminal, c);
    Eventually.sleep(Duration.ofSeconds(5));
    FakeForge.Accepted last = posts(forge, sha).get(posts(forge, sha).size() - 1);
    // Not closed: closing a RunReader closes the cluster's shared client.
    var reader = new RunReader(cluster.client(), Clock.systemUTC());
    var run = reader.get(ns, "took-run").orElseThrow();
    String status = new RunStateMapper(Duration.ofSeconds(60)).map(run.observation()).description();
    System.out.println(
        "[StatusTruthIT] duration: commit '" + last.description() + "', status '" + status + "'");
    assertEquals(last.description(), status);
  }

  @Test
  @DisplayName(
      "a LocalQueue applied after its runs (one GitOps sync applies both): Kueue leaves 'LocalQueue … doesn't exist' (or 'ClusterQueue  doesn't exist') on a Workload it skipped as equivalent to one that did not fit; the commit status and trainyard status say waiting, not that the LocalQueue is missing")
  void localQueueAppliedAfterItsRuns(KubeCluster cluster) {
    assumeTrue(
        cluster.runs(Component.KUEUE_CONTROLLER),
        "NOT RUN: Kueue controller not built (see VERSIONS)");
    String ns = cluster.newNamespace();
    Manifests manifests = new Manifests(cluster.client());
    List<GenericKubernetesResource> queues = KueueIT.queueObjects("ctl-late", "100m");
    GenericKubernetesResource localQueue = queues.get(queues.size() - 1);
    assertEquals("LocalQueue", localQueue.getKind());
    queues.stream()
        .filter(o -> o != localQueue)
        .forEach(o -> manifests.apply(manifests.placed(o, ns)));
    String tag = "late";
    Map<String, String> shas = new LinkedHashMap<>();
    for (String run : List.of("late-a", "late-b")) {
      shas.put(run, StatusRuns.sha(run));
      manifests.apply(
          manifests.placed(
              StatusRuns.run(
                  run,
                  ControllerProcess.host("github", tag),
                  shas.get(run),
                  "slow",
                  "3s",
                  "ctl-late-lq"),
              ns));
    }
    var workloads = workloads(cluster, ns);
    Eventually.await(
        "Kueue says the LocalQueue does not exist on both Workloads",
        TIMEOUT,
        () ->
            workloads.list().getItems().stream()
                    .filter(w -> quotaReservedMessage(w).contains("doesn't exist"))
                    .count()
                == 2,
        () ->
            workloads.list().getItems().stream()
                .map(StatusTruthIT::quotaReservedMessage)
                .toList()
                .toString());
    manifests.apply(manifests.placed(localQueue, ns));
    Eventually.await(
        "Kueue judges one Workload against the quota",
        TIMEOUT,
        () ->
            workloads.list().getItems().stream()
                .anyMatch(w -> quotaReservedMessage(w).contains("insufficient")),
        () ->
            workloads.list().getItems().stream()
                .map(StatusTruthIT::quotaReservedMessage)
                .toList()
                .toString());
    Eventually.sleep(Duration.ofSeconds(5));
    List<String> kueueSays =
        workloads.list().getItems().stream().map(StatusTruthIT::quotaReservedMessage).toList();
    System.out.println("[StatusTruthIT] Workloads with the LocalQueue applied: " + kueueSays);
    // What makes this test: Kueue 0.19's equivalence hashing moves the second Workload to the
    // inadmissible list without a scheduling pass, so nothing rewrites the first message:
    // "LocalQueue
    // … doesn't exist", or, when Kueue reconciled the Workload after the API server had the
    // LocalQueue and before its queue manager did, "ClusterQueue  doesn't exist" (no name; seen in
    // CI).
    assertTrue(
        kueueSays.stream()
            .anyMatch(
                m ->
                    m.equals("LocalQueue ctl-late-lq doesn't exist")
                        || m.equals("ClusterQueue  doesn't exist")),
        kueueSays.toString());
    ControllerProcess c = controller(cluster, tag, ns);
    for (String sha : shas.values()) {
      awaitPost("queued", sha, a -> a.description().startsWith("queued"), c);
    }
    var reader = new RunReader(cluster.client(), Clock.systemUTC());
    for (Map.Entry<String, String> run : shas.entrySet()) {
      List<FakeForge.Accepted> posts = posts(forge, run.getValue());
      String status =
          new RunStateMapper(Duration.ofSeconds(60))
              .map(reader.get(ns, run.getKey()).orElseThrow().observation())
              .description();
      System.out.println(
          "[StatusTruthIT] late LocalQueue "
              + run.getKey()
              + ": "
              + lines(posts)
              + ", status '"
              + status
              + "'");
      for (String said :
          concat(posts.stream().map(FakeForge.Accepted::description).toList(), status)) {
        assertTrue(
            said.matches("queued in ctl-late-lq: \\D*(insufficient|waiting).*"),
            run.getKey() + ": " + said);
      }
    }
  }

  /** The Workloads of namespace {@code ns}. */
  private static NonNamespaceOperation<
          GenericKubernetesResource,
          GenericKubernetesResourceList,
          Resource<GenericKubernetesResource>>
      workloads(KubeCluster cluster, String ns) {
    return cluster
        .client()
        .genericKubernetesResources("kueue.x-k8s.io/v1beta2", "Workload")
        .inNamespace(ns);
  }

  private static List<String> concat(List<String> list, String one) {
    List<String> out = new ArrayList<>(list);
    out.add(one);
    return out;
  }

  @SuppressWarnings("unchecked")
  private static String quotaReservedMessage(GenericKubernetesResource workload) {
    Object status = workload.getAdditionalProperties().get("status");
    if (!(status instanceof Map<?, ?> s) || !(s.get("conditions") instanceof List<?> conditions)) {
      return "";
    }
    return conditions.stream()
        .map(c -> (Map<String, Object>) c)
        .filter(c -> "QuotaReserved".equals(c.get("type")))
        .map(c -> String.valueOf(c.get("message")))
        .findFirst()
        .orElse("");
  }
}
