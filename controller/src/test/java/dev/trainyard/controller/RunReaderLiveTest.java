package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.controller.state.Progress;
import dev.trainyard.controller.state.RunObservation;
import dev.trainyard.controller.state.TrainingSigns;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code trainyard status}'s list calls against a real API server: which JobSets are runs, their
 * pods and Workloads, namespaces, and finding a run by its run label or JobSet name; the child Jobs
 * of a failed run; rank 0's log as {@link LiveKubelet} serves it (recorded trainer logs).
 */
class RunReaderLiveTest {

  static final Instant NOW = Instant.parse("2026-12-01T09:00:00Z");
  @TempDir Path dir;

  RunReader reader(String context) throws Exception {
    return RunReader.connect(
        Optional.of(LiveApiServer.kubeconfig()),
        Optional.ofNullable(context),
        Clock.fixed(NOW, ZoneOffset.UTC));
  }

  @Test
  @DisplayName(
      "list(namespace) gives the runs there, sorted by run, each with its pods and Workload; JobSets without a source commit are not runs")
  void listsRuns() throws Exception {
    String ns = LiveApiServer.namespace("list");
    LiveApiServer.workload(LiveApiServer.jobSet(ns, "zeta", 2, true), "q");
    LiveApiServer.jobSet(ns, "alpha", 1, true);
    LiveApiServer.jobSet(ns, "plain", 1, false);
    LiveApiServer.pod(ns, "zeta", 0, 0);
    LiveApiServer.pod(ns, "zeta", 1, 0);
    LiveApiServer.pod(ns, "alpha", 0, 0);
    try (RunReader r = reader(null)) {
      List<ObservedRun> runs = r.list(ns);
      assertEquals(
          List.of("run-alpha", "run-zeta"), runs.stream().map(x -> x.provenance().run()).toList());
      ObservedRun zeta = runs.get(1);
      assertEquals(2, zeta.observation().pods().size());
      assertTrue(zeta.observation().workload().isPresent(), "its Workload, by owner");
      assertEquals(1, runs.get(0).observation().pods().size());
      assertTrue(runs.get(0).observation().workload().isEmpty());
      assertEquals(NOW, zeta.observation().now());
      assertEquals(
          List.of("zeta-node-0-0-a0", "zeta-node-0-1-a0"),
          r.podsOf(zeta.key()).stream().map(p -> p.getMetadata().getName()).sorted().toList());
      assertEquals("zeta", r.get(ns, "run-zeta").orElseThrow().key().name(), "by run label");
      assertEquals(
          "run-zeta", r.get(ns, "zeta").orElseThrow().provenance().run(), "by JobSet name");
      assertTrue(r.get(ns, "plain").isEmpty(), "not a run");
      assertTrue(r.get(ns, "nope").isEmpty());
    }
  }

  @Test
  @DisplayName(
      "list(null) spans all namespaces, sorted by namespace then run; the kubeconfig context's namespace is the default")
  void allNamespaces() throws Exception {
    String a = LiveApiServer.namespace("all-a");
    String b = LiveApiServer.namespace("all-b");
    LiveApiServer.jobSet(b, "one", 1, true);
    LiveApiServer.workload(LiveApiServer.jobSet(a, "two", 1, true), "q");
    LiveApiServer.pod(a, "two", 0, 0);
    try (RunReader r = reader(null)) {
      List<String> keys =
          r.list(null).stream()
              .map(x -> x.key().cacheKey())
              .filter(k -> k.startsWith(a) || k.startsWith(b))
              .toList();
      assertEquals(List.of(a + "/two", b + "/one"), keys);
      ObservedRun two =
          r.list(null).stream()
              .filter(x -> x.key().namespace().equals(a))
              .findFirst()
              .orElseThrow();
      assertEquals(1, two.observation().pods().size());
      assertTrue(two.observation().workload().isPresent());
      assertEquals(
          "default", r.defaultNamespace(), "the test kubeconfig's context names no namespace");
    }
    Path withNamespace = dir.resolve("kubeconfig");
    Files.writeString(
        withNamespace,
        Files.readString(LiveApiServer.kubeconfig())
            .replace(
                "context: {cluster: local, user: admin}",
                "context: {cluster: local, user: admin, namespace: " + b + "}"));
    try (RunReader r =
        RunReader.connect(Optional.of(withNamespace), Optional.of("local"), Clock.systemUTC())) {
      assertEquals(b, r.defaultNamespace());
      assertEquals(
          List.of("one"), r.list(r.defaultNamespace()).stream().map(x -> x.key().name()).toList());
    }
  }

  static final String STARTED = "2026-12-01T08:00:00Z";

  /** A recorded trainer log of {@code src/test/resources/progress/}. */
  static String recorded(String name) throws Exception {
    try (var in = RunReaderLiveTest.class.getResourceAsStream("/progress/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /**
   * A running run {@code name} of two nodes on {@code kubelet}'s node whose pods log {@code logs}
   * (node 0's first), every line at {@code at}.
   */
  static void runningWithLogs(
      String ns, String name, LiveKubelet kubelet, Instant at, String... logs) {
    LiveApiServer.jobSet(ns, name, logs.length, true);
    for (int i = 0; i < logs.length; i++) {
      Pod pod = LiveApiServer.running(LiveApiServer.pod(ns, name, i, 0, kubelet.node()), STARTED);
      kubelet.log(ns, pod.getMetadata().getName(), logs[i], at);
    }
  }

  @Test
  @DisplayName(
      "progress and withRankZeroLog read node 0's log (not node 1's), timed by the kubelet's timestamps: the last step, the world size it printed, the log read")
  void rankZeroProgress() throws Exception {
    String ns = LiveApiServer.namespace("rank0");
    Instant at = Instant.parse("2026-12-01T08:30:00Z");
    try (LiveKubelet kubelet = LiveKubelet.start("kubelet-" + ns, dir.resolve("certs"));
        RunReader r = reader(null)) {
      runningWithLogs(
          ns, "ddp", kubelet, at, recorded("world-ddp.log"), recorded("plain-steps.log"));
      ObservedRun run = r.get(ns, "ddp").orElseThrow();
      Progress p = r.progress(run).orElseThrow();
      assertEquals(List.of(20L, 20L), List.of(p.step(), p.totalSteps()), "node 0: step 20/20");
      assertEquals(at, p.updatedAt(), "the line's time as the kubelet stamped it, not now");
      RunObservation o = r.withRankZeroLog(run);
      assertEquals(Optional.of(p), o.progress());
      assertTrue(o.signs().logRead());
      assertEquals(2, o.signs().worldSize(), "world_size=2, printed by rank 0");
      assertEquals(run.observation().pods(), o.pods(), "the rest of the observation kept");
      assertEquals(Optional.empty(), r.resumed(run), "no checkpoint line in this log");
    }
  }

  @Test
  @DisplayName(
      "a tqdm bar longer than the byte budget (one 96 KB line of redraws, 16 KiB CRI entries): progress shows its last step, not the step where the first 64 KiB of the tail end")
  void longLinesKeepTheNewestProgress() throws Exception {
    String ns = LiveApiServer.namespace("long");
    Instant at = Instant.parse("2026-12-01T08:30:00Z");
    String log = recorded("tqdm-long.log");
    assertTrue(log.length() > RunReader.PROGRESS_BYTES, "the fixture overflows the budget");
    try (LiveKubelet kubelet = LiveKubelet.start("kubelet-" + ns, dir.resolve("certs"));
        RunReader r = reader(null)) {
      runningWithLogs(ns, "bar", kubelet, at, log);
      ObservedRun run = r.get(ns, "bar").orElseThrow();
      Progress p = r.progress(run).orElseThrow();
      assertEquals(List.of(1500L, 1500L), List.of(p.step(), p.totalSteps()));
      assertEquals(at, p.updatedAt());
      assertEquals(Optional.of(p), r.withRankZeroLog(run).progress());
    }
  }

  @Test
  @DisplayName(
      "resumed reads the checkpoint script's line from the head of rank 0's log (a recorded resumed attempt): the checkpoint and its step")
  void resumedFromTheHead() throws Exception {
    String ns = LiveApiServer.namespace("resumed");
    try (LiveKubelet kubelet = LiveKubelet.start("kubelet-" + ns, dir.resolve("certs"));
        RunReader r = reader(null)) {
      runningWithLogs(ns, "ckpt", kubelet, NOW, recorded("checkpoint-resume.log"));
      ObservedRun run = r.get(ns, "ckpt").orElseThrow();
      var resumed = r.resumed(run).orElseThrow();
      assertEquals(20L, resumed.step());
      assertEquals("step-20", resumed.checkpoint());
    }
  }

  @Test
  @DisplayName(
      "a rank 0 whose log cannot be read (the kubelet has none) or a run without pods: no progress, no resume, the observation unchanged, never an error; a pod on no node has an empty log, read")
  void unreadableLog() throws Exception {
    String ns = LiveApiServer.namespace("nolog");
    try (LiveKubelet kubelet = LiveKubelet.start("kubelet-" + ns, dir.resolve("certs"));
        RunReader r = reader(null)) {
      LiveApiServer.jobSet(ns, "quiet", 1, true);
      LiveApiServer.running(LiveApiServer.pod(ns, "quiet", 0, 0, kubelet.node()), STARTED);
      LiveApiServer.jobSet(ns, "unbound", 1, true);
      LiveApiServer.pod(ns, "unbound", 0, 0);
      LiveApiServer.jobSet(ns, "podless", 1, true);
      for (String name : List.of("quiet", "unbound", "podless")) {
        ObservedRun run = r.get(ns, name).orElseThrow();
        assertEquals(Optional.empty(), r.progress(run), name);
        assertEquals(Optional.empty(), r.resumed(run), name);
        assertEquals(
            name.equals("unbound")
                ? run.observation().withSigns(new TrainingSigns(true, 0, null))
                : run.observation(),
            r.withRankZeroLog(run),
            name
                + ": the API server serves a pod on no node an empty log (TrainingSigns: read, even empty)");
      }
    }
  }

  /** A child Job of {@code jobSet} as the JobSet controller labels it (no status: none runs). */
  static Job job(String ns, String jobSet) {
    return LiveApiServer.client()
        .resource(
            new JobBuilder()
                .withNewMetadata()
                .withName(jobSet + "-node-0")
                .withNamespace(ns)
                .addToLabels(Snapshots.JOBSET_NAME, jobSet)
                .endMetadata()
                .withNewSpec()
                .withNewTemplate()
                .withNewSpec()
                .withRestartPolicy("Never")
                .addNewContainer()
                .withName("main")
                .withImage("busybox:1.37")
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build())
        .create();
  }

  @Test
  @DisplayName(
      "a failed run is listed with its child Jobs (in one namespace and across all), which explain a failure whose pods are gone; no Job is read while no run failed")
  void failedRunsCarryTheirJobs() throws Exception {
    String ns = LiveApiServer.namespace("jobs");
    LiveApiServer.condition(
        LiveApiServer.jobSet(ns, "broke", 1, true), "Failed", "ReachedMaxRestarts");
    job(ns, "broke");
    String calm = LiveApiServer.namespace("jobs-calm");
    LiveApiServer.jobSet(calm, "fine", 1, true);
    job(calm, "fine");
    try (RunReader r = reader(null)) {
      assertEquals(
          List.of("broke-node-0"),
          r.get(ns, "broke").orElseThrow().observation().jobs().stream()
              .map(j -> j.name())
              .toList());
      assertEquals(
          List.of("broke-node-0"),
          r.list(null).stream()
              .filter(x -> x.key().namespace().equals(ns))
              .findFirst()
              .orElseThrow()
              .observation()
              .jobs()
              .stream()
              .map(j -> j.name())
              .toList(),
          "all namespaces");
      assertEquals(
          List.of(),
          r.get(calm, "fine").orElseThrow().observation().jobs(),
          "no run failed in the namespace: its Jobs are not read");
    }
  }

  @Test
  @DisplayName(
      "list() tells a run's Workload whether its LocalQueue is in the run's namespace, in one namespace and in all")
  void localQueueSeen() throws Exception {
    String ns = LiveApiServer.namespace("lqs");
    LiveApiServer.workload(
        LiveApiServer.queued(LiveApiServer.jobSet(ns, "a", 1, true), "team-lq"), "team-lq");
    LiveApiServer.localQueue(LiveApiServer.namespace("lqs-other"), "team-lq");
    try (RunReader r = reader(null)) {
      assertFalse(
          r.get(ns, "a").orElseThrow().observation().workload().orElseThrow().localQueueExists());
      LiveApiServer.localQueue(ns, "team-lq");
      assertTrue(
          r.get(ns, "a").orElseThrow().observation().workload().orElseThrow().localQueueExists());
      assertTrue(
          r.list(null).stream()
              .filter(x -> x.key().namespace().equals(ns))
              .findFirst()
              .orElseThrow()
              .observation()
              .workload()
              .orElseThrow()
              .localQueueExists(),
          "all namespaces");
    }
  }

  @Test
  @DisplayName(
      "a reader who may list runs but not LocalQueues still lists them; their LocalQueues count as not seen (Kueue's words stay)")
  void localQueuesForbidden() throws Exception {
    String ns = LiveApiServer.namespace("lqs-rbac");
    LiveApiServer.workload(
        LiveApiServer.queued(LiveApiServer.jobSet(ns, "a", 1, true), "team-lq"), "team-lq");
    LiveApiServer.localQueue(ns, "team-lq");
    var admin = LiveApiServer.client();
    String rbac =
        """
        apiVersion: rbac.authorization.k8s.io/v1
        kind: Role
        metadata: {name: runs-reader, namespace: %1$s}
        rules:
        - {apiGroups: [jobset.x-k8s.io], resources: [jobsets], verbs: [list]}
        - {apiGroups: [kueue.x-k8s.io], resources: [workloads], verbs: [list]}
        - {apiGroups: [""], resources: [pods], verbs: [list]}
        - {apiGroups: [batch], resources: [jobs], verbs: [list]}
        ---
        apiVersion: rbac.authorization.k8s.io/v1
        kind: RoleBinding
        metadata: {name: runs-reader, namespace: %1$s}
        roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: runs-reader}
        subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: reader-%1$s}]
        """
            .formatted(ns);
    admin.load(new ByteArrayInputStream(rbac.getBytes(StandardCharsets.UTF_8))).create();
    Config c = LiveApiServer.config(LiveApiServer.kubeconfig());
    c.setImpersonateUsername("reader-" + ns);
    c.setImpersonateGroups("system:authenticated");
    try (RunReader r =
        new RunReader(
            new KubernetesClientBuilder().withConfig(c).build(),
            Clock.fixed(NOW, ZoneOffset.UTC))) {
      LiveApiServer.await(
          "the Role to take effect",
          Duration.ofSeconds(30),
          () -> {
            try {
              return r.list(ns).size() == 1;
            } catch (RuntimeException e) {
              return false;
            }
          },
          () -> "not yet");
      assertFalse(
          r.list(ns).get(0).observation().workload().orElseThrow().localQueueExists(),
          "not seen: this reader may not list LocalQueues");
    }
  }
}
