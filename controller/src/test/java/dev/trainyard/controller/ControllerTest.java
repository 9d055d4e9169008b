package dev.trainyard.controller;

import static dev.trainyard.controller.LiveApiServer.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.controller.forge.FakeForge;
import dev.trainyard.controller.forge.ForgeEndpoint;
import dev.trainyard.controller.forge.ForgeKind;
import dev.trainyard.controller.forge.RetryPolicy;
import dev.trainyard.controller.forge.Token;
import dev.trainyard.gitops.GitOpsLocation;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole controller in this JVM against a real API server and the fake forge: informers → queue
 * → reconciler → forge, the health server, leader election on a real Lease, and the retention
 * timer.
 */
class ControllerTest {

  final FakeForge forge = FakeForge.start();
  @TempDir Path temp;

  @AfterEach
  void stop() {
    forge.close();
  }

  ControllerConfig config(LeaseElection.Settings election, Optional<RunPruning.Settings> prune)
      throws Exception {
    return new ControllerConfig(
        List.of(
            new ForgeEndpoint(
                LiveApiServer.HOST,
                ForgeKind.GITHUB,
                forge.githubApi(),
                new Token(FakeForge.GITHUB_TOKEN))),
        new TargetUrl("https://grafana.example/d?run={run}"),
        Duration.ofMinutes(10),
        Duration.ofSeconds(1),
        Duration.ofSeconds(2),
        RetryPolicy.standard(),
        Duration.ofSeconds(1),
        0,
        election,
        RunPruningTest.platform(temp, RunPruningTest.PLATFORM),
        prune);
  }

  List<String> posts(String run) {
    return forge.accepted().stream()
        .filter(a -> a.project().equals("acme/" + run))
        .map(a -> a.state() + " | " + a.description())
        .toList();
  }

  static int get(int port, String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(5))
                .build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  @Test
  @DisplayName(
      "without election the replica leads: a run's admitted and succeeded states arrive on its source commit once each, with context and link; /readyz turns 200 and /metrics counts the posts")
  void postsEachChange() throws Exception {
    String ns = LiveApiServer.namespace("ctl");
    GenericKubernetesResource js = LiveApiServer.jobSet(ns, "ctl-run", 2, true);
    AtomicInteger lost = new AtomicInteger();
    try (Controller c =
        new Controller(
            LiveApiServer.client(),
            config(null, Optional.empty()),
            Clock.systemUTC(),
            "127.0.0.1",
            lost::incrementAndGet)) {
      assertFalse(c.leading(), "nothing runs before start");
      assertEquals(503, get(c.port(), "/readyz"));
      c.start();
      assertTrue(c.leading());
      await(
          "admitted posted (after RunStateMapper.QUIET)",
          Duration.ofSeconds(60),
          () -> posts("ctl-run").size() == 1,
          () -> posts("ctl-run").toString());
      assertEquals(200, get(c.port(), "/readyz"));
      assertEquals("pending | admitted: no pods yet, attempt 1 of 1", posts("ctl-run").get(0));
      FakeForge.Accepted first =
          forge.accepted().stream()
              .filter(a -> a.project().equals("acme/ctl-run"))
              .findFirst()
              .orElseThrow();
      assertEquals(LiveApiServer.COMMIT, first.sha());
      assertEquals("trainyard/unit/" + ns + "/run-ctl-run", first.context());
      assertEquals("https://grafana.example/d?run=run-ctl-run", first.targetUrl());
      LiveApiServer.condition(js, "Completed", "AllJobsCompleted");
      await(
          "success posted",
          Duration.ofSeconds(30),
          () -> posts("ctl-run").size() == 2,
          () -> posts("ctl-run").toString());
      assertTrue(
          posts("ctl-run").get(1).startsWith("success | succeeded"), posts("ctl-run").toString());
      assertTrue(
          c.metrics().counter("trainyard_forge_calls_total{forge=\"github\",result=\"posted\"}")
              >= 2,
          c.metrics().render());
      assertTrue(c.metrics().render().contains("trainyard_leader 1"), c.metrics().render());
    }
    assertEquals(2, posts("ctl-run").size(), "resyncs every second posted nothing more");
    assertEquals(0, lost.get(), "closing is not losing leadership");
    assertEquals(List.of(), forge.rejected());
  }

  @Test
  @DisplayName(
      "with a Lease only the holder posts; closed, it releases the Lease and the other replica takes over")
  void onlyTheLeaderPosts() throws Exception {
    String ns = LiveApiServer.namespace("ha");
    LiveApiServer.jobSet(ns, "ha-run", 1, true);
    AtomicInteger lost = new AtomicInteger();
    Controller a =
        new Controller(
            LiveApiServer.client(),
            config(
                LeaseElection.Settings.scaled(ns, "ty", "a", Duration.ofSeconds(2)),
                Optional.empty()),
            Clock.systemUTC(),
            "127.0.0.1",
            lost::incrementAndGet);
    a.start();
    await("a leads", a::leading);
    try (Controller b =
        new Controller(
            LiveApiServer.client(),
            config(
                LeaseElection.Settings.scaled(ns, "ty", "b", Duration.ofSeconds(2)),
                Optional.empty()),
            Clock.systemUTC(),
            "127.0.0.1",
            lost::incrementAndGet)) {
      b.start();
      await("a posted", () -> posts("ha-run").size() == 1);
      assertFalse(b.leading());
      assertTrue(b.metrics().render().contains("trainyard_leader 0"), b.metrics().render());
      a.close();
      await("b leads", Duration.ofSeconds(15), b::leading, () -> "");
      assertEquals(
          1, posts("ha-run").size(), "the new leader read the forge and posted nothing again");
    }
    assertEquals(0, lost.get(), "both were closed, neither lost the Lease");
  }

  @Test
  @DisplayName(
      "with pruning configured the leader runs a retention pass every period once synced; a due run and an unreachable GitOps repo count an error pass")
  void prunes() throws Exception {
    String ns = LiveApiServer.namespace("prune");
    LiveApiServer.condition(
        LiveApiServer.jobSet(ns, "done", 1, true), "Completed", "AllJobsCompleted");
    // Nothing listens on port 1: every fetch of the GitOps repo for a due run fails.
    RunPruning.Settings prune =
        new RunPruning.Settings(
            GitOpsLocation.parse("http://127.0.0.1:1/gitops.git", Path.of("")),
            "main",
            Duration.ofMillis(200),
            temp.resolve("cache"));
    // 400 days on: the run that finished at 2026-12-01T08:00Z is long past platform.yaml's 7-day
    // retention.
    Clock later = Clock.offset(Clock.systemUTC(), Duration.ofDays(400));
    try (Controller c =
        new Controller(
            LiveApiServer.client(),
            config(null, Optional.of(prune)),
            later,
            "127.0.0.1",
            () -> {})) {
      c.start();
      await(
          "an error pass",
          Duration.ofSeconds(30),
          () -> c.metrics().counter("trainyard_prune_passes_total{result=\"error\"}") >= 1,
          c.metrics()::render);
      assertEquals(0, c.metrics().counter("trainyard_pruned_runs_total{}"));
      assertTrue(
          ControllerPartsTest.threads("trainyard-prune").stream().allMatch(Thread::isDaemon));
      assertFalse(ControllerPartsTest.threads("trainyard-prune").isEmpty());
    }
  }
}
