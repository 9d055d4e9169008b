package dev.trainyard.cluster;

import static dev.trainyard.cluster.StatusRuns.hasDuplicate;
import static dev.trainyard.cluster.StatusRuns.lines;
import static dev.trainyard.cluster.StatusRuns.posts;
import static dev.trainyard.cluster.StatusRuns.transitions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.trainyard.controller.forge.FakeForge;
import dev.trainyard.controller.forge.FakeForge.Fault;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The status controller against the real cluster (JobSet controller, Job controller, scheduler,
 * kwok, Kueue) and the fake forge: each run's state arrives on its source commit, once per change.
 */
@ExtendWith(KubeClusterExtension.class)
class StatusControllerIT {

  static final Duration RUN_TIMEOUT = Duration.ofSeconds(150);
  static final Duration STALL = Duration.ofSeconds(3);
  final FakeForge forge = FakeForge.start();
  final List<ControllerProcess> controllers = new ArrayList<>();

  @AfterEach
  void stop() {
    controllers.forEach(ControllerProcess::close);
    forge.close();
  }

  ControllerProcess controller(KubeCluster cluster, String tag, String namespace, String identity) {
    return controller(cluster, tag, namespace, identity, ControllerProcess.LEASE);
  }

  /**
   * A replica with a Lease of {@code lease} (the failover tests: {@link
   * ControllerProcess#FAILOVER_LEASE}).
   */
  ControllerProcess controller(
      KubeCluster cluster, String tag, String namespace, String identity, Duration lease) {
    ControllerProcess c =
        ControllerProcess.start(
            cluster,
            forge,
            tag,
            namespace,
            identity,
            new ControllerProcess.Tuning(STALL, Duration.ofSeconds(2), "128m").withLease(lease));
    controllers.add(c);
    return c;
  }

  void awaitPost(
      String what, String sha, Predicate<FakeForge.Accepted> match, ControllerProcess... logs) {
    Eventually.await(
        what,
        RUN_TIMEOUT,
        () -> posts(forge, sha).stream().anyMatch(match),
        () ->
            "posts: "
                + lines(posts(forge, sha))
                + "\nrejected: "
                + forge.rejected()
                + (logs.length == 0 ? "" : "\nlog:\n" + logs[0].log()));
  }

  @Test
  @DisplayName(
      "queued → running → succeeded through Kueue and kwok arrives on GitHub, GitLab and Gitea, each change once")
  void lifecycleOnEachForge(KubeCluster cluster) {
    assumeTrue(
        cluster.runs(Component.KUEUE_CONTROLLER),
        "NOT RUN: Kueue controller not built (see VERSIONS)");
    String ns = cluster.newNamespace();
    Manifests manifests = new Manifests(cluster.client());
    KueueIT.queueObjects("ctl-life", "100m").forEach(o -> manifests.apply(manifests.placed(o, ns)));
    String tag = "life";
    List<String> kinds = List.of("github", "gitlab", "gitea");
    for (String kind : kinds) {
      manifests.apply(
          manifests.placed(
              StatusRuns.run(
                  "life-" + kind,
                  ControllerProcess.host(kind, tag),
                  StatusRuns.sha("life-" + kind),
                  "slow",
                  "8s",
                  "ctl-life-lq"),
              ns));
    }
    ControllerProcess c = controller(cluster, tag, ns, "life-0");
    for (String kind : kinds) {
      awaitPost(
          kind + " queued",
          StatusRuns.sha("life-" + kind),
          a -> a.description().startsWith("queued"),
          c);
    }
    KueueIT.queueObjects("ctl-life", "4").forEach(o -> manifests.apply(manifests.placed(o, ns)));
    for (String kind : kinds) {
      awaitPost(kind + " succeeded", StatusRuns.sha("life-" + kind), StatusRuns::terminal, c);
    }
    for (String kind : kinds) {
      List<FakeForge.Accepted> posts = posts(forge, StatusRuns.sha("life-" + kind));
      System.out.println("[StatusControllerIT] " + kind + " posts: " + lines(posts));
      String detail = kind + ": " + lines(posts);
      assertEquals(
          kind.equals("gitlab")
              ? List.of("pending", "running", "success")
              : List.of("pending", "success"),
          transitions(posts),
          detail);
      assertTrue(posts.get(0).description().startsWith("queued in ctl-life-lq: "), detail);
      assertTrue(posts.get(0).description().length() > "queued in ctl-life-lq: ".length(), detail);
      assertEquals(
          1,
          posts.stream()
              .filter(a -> a.description().startsWith("running: 2 of 2 nodes ready"))
              .count(),
          detail);
      FakeForge.Accepted last = posts.get(posts.size() - 1);
      assertEquals("success", last.state(), detail);
      assertTrue(last.description().startsWith("succeeded in "), detail);
      assertEquals(1, posts.stream().filter(StatusRuns::terminal).count(), detail);
      assertFalse(hasDuplicate(posts), detail);
      assertTrue(last.context().matches("trainyard/it/[a-z0-9-]+/life-" + kind), last.context());
      assertEquals("acme/life-" + kind, last.project());
      assertEquals(
          "https://grafana.example/d/trainyard?var-namespace=" + ns + "&var-run=life-" + kind,
          last.targetUrl());
    }
    assertEquals(List.of(), forge.rejected());
  }

  @Test
  @DisplayName(
      "exit 1 of the command posts failure (user error), an eviction posts error (platform), both naming node and exit code or cause")
  void failuresAreClassified(KubeCluster cluster) {
    String ns = cluster.newNamespace();
    Manifests manifests = new Manifests(cluster.client());
    String tag = "fail";
    String host = ControllerProcess.host("github", tag);
    manifests.apply(
        manifests.placed(
            StatusRuns.run("exit-one", host, StatusRuns.sha("exit-one"), "fail", null, null), ns));
    manifests.apply(
        manifests.placed(
            StatusRuns.run("evicted", host, StatusRuns.sha("evicted"), "evicted", null, null), ns));
    manifests.apply(
        manifests.placed(
            StatusRuns.run("no-image", host, StatusRuns.sha("no-image"), "image-pull", null, null),
            ns));
    ControllerProcess c = controller(cluster, tag, ns, "fail-0");
    awaitPost("user failure", StatusRuns.sha("exit-one"), StatusRuns::terminal, c);
    awaitPost("platform failure", StatusRuns.sha("evicted"), StatusRuns::terminal, c);
    awaitPost(
        "image pull reported as stalled",
        StatusRuns.sha("no-image"),
        a ->
            a.description()
                .startsWith("not started 3s after admission: cannot pull image busybox:1.37"),
        c);

    FakeForge.Accepted user = last(StatusRuns.sha("exit-one"));
    System.out.println("[StatusControllerIT] user: " + user.state() + " | " + user.description());
    assertEquals("failure", user.state());
    assertTrue(
        user.description()
            .matches(
                "failed \\(user error\\): command exited with code 1 in container main"
                    + " on node kwok-[a-z]+-\\d, attempt 1 of 1"),
        user.description());

    FakeForge.Accepted platform = last(StatusRuns.sha("evicted"));
    System.out.println(
        "[StatusControllerIT] platform: " + platform.state() + " | " + platform.description());
    assertEquals("error", platform.state());
    assertTrue(
        platform
            .description()
            .matches(
                "failed \\(platform error\\): evicted by the kubelet.* on node"
                    + " kwok-[a-z]+-\\d, attempt 1 of 1"),
        platform.description());

    List<FakeForge.Accepted> pull = posts(forge, StatusRuns.sha("no-image"));
    System.out.println("[StatusControllerIT] image pull: " + lines(pull));
    assertTrue(pull.stream().noneMatch(StatusRuns::terminal), lines(pull).toString());
    assertTrue(
        pull.stream()
            .anyMatch(
                a -> a.description().contains("cannot pull image busybox:1.37 on node kwok-")),
        lines(pull).toString());
    assertFalse(hasDuplicate(pull), lines(pull).toString());
    JobSets.api(cluster.client()).inNamespace(ns).withName("no-image").delete();
  }

  @Test
  @DisplayName(
      "the controller killed (SIGKILL) and restarted mid-run, twice: no duplicate post, no missed one")
  void killedAndRestartedTwice(KubeCluster cluster) {
    assumeTrue(
        cluster.runs(Component.KUEUE_CONTROLLER),
        "NOT RUN: Kueue controller not built (see VERSIONS)");
    String ns = cluster.newNamespace();
    Manifests manifests = new Manifests(cluster.client());
    KueueIT.queueObjects("ctl-kill", "100m").forEach(o -> manifests.apply(manifests.placed(o, ns)));
    String tag = "kill";
    String sha = StatusRuns.sha("kill-run");
    manifests.apply(
        manifests.placed(
            StatusRuns.run(
                "kill-run",
                ControllerProcess.host("github", tag),
                sha,
                "slow",
                "25s",
                "ctl-kill-lq"),
            ns));
    ControllerProcess first =
        controller(cluster, tag, ns, "kill-0", ControllerProcess.FAILOVER_LEASE);
    awaitPost("queued", sha, a -> a.description().startsWith("queued"), first);
    first.kill();
    KueueIT.queueObjects("ctl-kill", "4").forEach(o -> manifests.apply(manifests.placed(o, ns)));
    var jobSet = JobSets.api(cluster.client()).inNamespace(ns).withName("kill-run");
    Eventually.await(
        "pods running while no controller runs",
        RUN_TIMEOUT,
        () ->
            cluster
                    .client()
                    .pods()
                    .inNamespace(ns)
                    .withLabel(JobSets.NAME_LABEL, "kill-run")
                    .list()
                    .getItems()
                    .stream()
                    .filter(p -> "Running".equals(p.getStatus().getPhase()))
                    .count()
                == 2);
    ControllerProcess second =
        controller(cluster, tag, ns, "kill-1", ControllerProcess.FAILOVER_LEASE);
    awaitPost(
        "running posted by the second life",
        sha,
        a -> a.description().startsWith("running: 2 of 2"),
        second);
    second.kill();
    Eventually.await(
        "JobSet Completed while no controller runs",
        RUN_TIMEOUT,
        () -> JobSets.hasCondition(jobSet.get(), "Completed"),
        () -> JobSets.describe(jobSet.get()));
    int before = posts(forge, sha).size();
    ControllerProcess third =
        controller(cluster, tag, ns, "kill-2", ControllerProcess.FAILOVER_LEASE);
    awaitPost("succeeded posted by the third life", sha, StatusRuns::terminal, third);
    Eventually.sleep(Duration.ofSeconds(5));
    List<FakeForge.Accepted> posts = posts(forge, sha);
    System.out.println("[StatusControllerIT] kill/restart posts: " + lines(posts));
    assertFalse(hasDuplicate(posts), lines(posts).toString());
    assertEquals(
        before + 1, posts.size(), "the third life posts only the success: " + lines(posts));
    assertEquals(List.of("pending", "success"), transitions(posts));
    assertEquals(
        1, posts.stream().filter(a -> a.description().startsWith("running: 2 of 2")).count());
    assertTrue(posts.get(0).description().startsWith("queued"), lines(posts).toString());
  }

  @Test
  @DisplayName(
      "the forge answers 500, 502, 429 Retry-After, 403 with rate-limit headers and stalls: the final state arrives once")
  void forgeFailures(KubeCluster cluster) {
    String ns = cluster.newNamespace();
    Manifests manifests = new Manifests(cluster.client());
    String tag = "flaky";
    String sha = StatusRuns.sha("flaky-run");
    forge.script(
        Fault.status(500),
        Fault.status(502),
        Fault.retryAfter(1),
        Fault.rateLimited(Instant.now().getEpochSecond() + 2),
        Fault.stall(Duration.ofSeconds(3)),
        Fault.status(502));
    manifests.apply(
        manifests.placed(
            StatusRuns.run(
                "flaky-run", ControllerProcess.host("gitea", tag), sha, "slow", "6s", null),
            ns));
    ControllerProcess c = controller(cluster, tag, ns, "flaky-0");
    awaitPost("succeeded despite the faults", sha, StatusRuns::terminal, c);
    List<FakeForge.Accepted> posts = posts(forge, sha);
    System.out.println(
        "[StatusControllerIT] flaky posts: " + lines(posts) + " requests " + forge.requests());
    assertFalse(hasDuplicate(posts), lines(posts).toString());
    assertEquals("success", posts.get(posts.size() - 1).state());
    String metrics = c.metrics();
    assertTrue(
        metrics.contains("trainyard_forge_retries_total{forge=\"gitea\",reason=\"5xx\"}"), metrics);
    assertTrue(
        metrics.contains("trainyard_forge_retries_total{forge=\"gitea\",reason=\"rate-limit\"}"),
        metrics);
    assertTrue(
        metrics.contains("trainyard_forge_retries_total{forge=\"gitea\",reason=\"timeout\"}"),
        metrics);
    assertFalse(c.log().contains(FakeForge.GITEA_TOKEN), "token in the log");
  }

  @Test
  @DisplayName("a bare 403 is reported once per wanted status and not retried forever")
  void bareForbiddenIsNotRetried(KubeCluster cluster) {
    String ns = cluster.newNamespace();
    Manifests manifests = new Manifests(cluster.client());
    String tag = "forbid";
    String sha = StatusRuns.sha("forbid-run");
    forge.forbid("acme/forbid-run");
    manifests.apply(
        manifests.placed(
            StatusRuns.run(
                "forbid-run", ControllerProcess.host("github", tag), sha, "fail", null, null),
            ns));
    ControllerProcess c = controller(cluster, tag, ns, "forbid-0");
    var jobSet = JobSets.api(cluster.client()).inNamespace(ns).withName("forbid-run");
    Eventually.await(
        "JobSet Failed", RUN_TIMEOUT, () -> JobSets.hasCondition(jobSet.get(), "Failed"));
    Eventually.await(
        "the failure was refused",
        RUN_TIMEOUT,
        () ->
            c.metrics()
                .contains("trainyard_forge_calls_total{forge=\"github\",result=\"permission\"}"),
        c::log);
    int requests = forge.requests();
    Eventually.sleep(Duration.ofSeconds(8));
    String metrics = c.metrics();
    System.out.println(
        "[StatusControllerIT] forbidden: requests " + requests + " then " + forge.requests());
    assertEquals(requests, forge.requests(), "no retry of the refused status over 4 resyncs");
    assertEquals(List.of(), posts(forge, sha));
    assertTrue(c.log().contains("refused the commit status (PERMISSION)"), c.log());
    assertFalse(c.log().contains(FakeForge.GITHUB_TOKEN), "token in the log");
    assertTrue(metrics.contains("trainyard_reconciles_total{outcome=\"refused\"}"), metrics);
  }

  @Test
  @DisplayName(
      "two replicas: only the Lease holder posts; killed, the other takes over without duplicates")
  void twoReplicas(KubeCluster cluster) {
    assumeTrue(
        cluster.runs(Component.KUEUE_CONTROLLER),
        "NOT RUN: Kueue controller not built (see VERSIONS)");
    String ns = cluster.newNamespace();
    Manifests manifests = new Manifests(cluster.client());
    KueueIT.queueObjects("ctl-ha", "100m").forEach(o -> manifests.apply(manifests.placed(o, ns)));
    String tag = "ha";
    String sha = StatusRuns.sha("ha-run");
    manifests.apply(
        manifests.placed(
            StatusRuns.run(
                "ha-run", ControllerProcess.host("gitlab", tag), sha, "slow", "10s", "ctl-ha-lq"),
            ns));
    ControllerProcess a = controller(cluster, tag, ns, "ha-a", ControllerProcess.FAILOVER_LEASE);
    ControllerProcess b = controller(cluster, tag, ns, "ha-b", ControllerProcess.FAILOVER_LEASE);
    Eventually.await("one leader", RUN_TIMEOUT, () -> a.leading() ^ b.leading());
    awaitPost("queued", sha, p -> p.description().startsWith("queued"), a);
    ControllerProcess leader = a.leading() ? a : b;
    ControllerProcess standby = leader == a ? b : a;
    assertFalse(
        standby.metrics().contains("result=\"posted\""),
        "the standby posted: " + standby.metrics());
    assertTrue(
        leader
            .metrics()
            .contains("trainyard_forge_calls_total{forge=\"gitlab\",result=\"posted\"} 1.0\n"),
        leader.metrics());
    leader.kill();
    Eventually.await("the standby takes the Lease", RUN_TIMEOUT, standby::leading, standby::log);
    KueueIT.queueObjects("ctl-ha", "4").forEach(o -> manifests.apply(manifests.placed(o, ns)));
    awaitPost("succeeded posted by the new leader", sha, StatusRuns::terminal, standby);
    List<FakeForge.Accepted> posts = posts(forge, sha);
    System.out.println("[StatusControllerIT] failover posts: " + lines(posts));
    assertEquals(
        List.of("pending", "running", "success"), transitions(posts), lines(posts).toString());
    assertFalse(hasDuplicate(posts), lines(posts).toString());
    assertEquals(List.of(), forge.rejected());
  }

  private FakeForge.Accepted last(String sha) {
    List<FakeForge.Accepted> p = posts(forge, sha);
    return p.get(p.size() - 1);
  }
}
