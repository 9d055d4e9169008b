package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.controller.RetentionPlan.Finished;
import dev.trainyard.controller.state.ConditionSnapshot;
import dev.trainyard.controller.state.JobSetSnapshot;
import dev.trainyard.controller.state.Phase;
import dev.trainyard.controller.state.RunObservation;
import dev.trainyard.controller.state.RunStateMapper;
import dev.trainyard.controller.state.WorkloadSnapshot;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which finished runs platform.yaml's retention makes due. */
class RetentionPlanTest {

  static final Instant NOW = RunPruningTest.NOW;
  @TempDir Path temp;

  Platform platform(String retention) throws Exception {
    return RunPruningTest.platform(
        temp,
        """
                apiVersion: trainyard.dev/v1
                kind: Platform
                clusters: [{name: local}]
                namespaces:
                - {name: default, cluster: local, defaultQueue: default}
                - {name: keep, cluster: local, defaultQueue: default%s}
                queues:
                  resourceFlavors: [{name: f}]
                  clusterQueues: [{name: default, flavors: [{name: f, quota: {cpu: "64"}}]}]
                  localQueues: [{name: default, namespace: default, clusterQueue: default}, {name: default, namespace: keep, clusterQueue: default}]
                """
            .formatted(retention));
  }

  static Finished done(String ns, String run, Phase phase, Duration ago) {
    return new Finished("local", ns, run, phase, NOW.minus(ago));
  }

  @Test
  @DisplayName(
      "due strictly after the retention of its state: 7d succeeded, 30d failed; sorted by cluster, namespace, run")
  void boundaries() throws Exception {
    Platform p = RunPruningTest.platform(temp, RunPruningTest.PLATFORM);
    List<Finished> due =
        RetentionPlan.due(
            List.of(
                done("default", "s-late", Phase.SUCCEEDED, Duration.ofDays(7).plusSeconds(1)),
                done("default", "s-exact", Phase.SUCCEEDED, Duration.ofDays(7)),
                done("default", "f-early", Phase.FAILED, Duration.ofDays(8)),
                done("default", "f-late", Phase.FAILED, Duration.ofDays(31)),
                done("default", "a-late", Phase.SUCCEEDED, Duration.ofDays(70))),
            p,
            NOW);
    assertEquals(List.of("a-late", "f-late", "s-late"), due.stream().map(Finished::run).toList());
  }

  @Test
  @DisplayName(
      "a namespace's retention replaces the top level's for the states it sets; phases that are not terminal are never due")
  void namespaceAndPhases() throws Exception {
    Platform p =
        RunPruningTest.platform(
            temp,
            RunPruningTest.PLATFORM.replace(
                "namespaces: [{name: default, cluster: local, defaultQueue: default}]",
                "namespaces: [{name: default, cluster: local, defaultQueue: default, retention: {succeeded: 1h}}]"));
    assertEquals(
        Optional.of(Duration.ofHours(1)),
        RetentionPlan.keep(done("default", "x", Phase.SUCCEEDED, Duration.ZERO), p));
    assertEquals(
        Optional.of(Duration.ofDays(30)),
        RetentionPlan.keep(done("default", "x", Phase.FAILED, Duration.ZERO), p));
    for (Phase running :
        List.of(Phase.QUEUED, Phase.ADMITTED, Phase.STARTING, Phase.RUNNING, Phase.RESTARTING)) {
      assertEquals(
          Optional.empty(),
          RetentionPlan.keep(done("default", "x", running, Duration.ofDays(999)), p));
      assertTrue(
          RetentionPlan.due(List.of(done("default", "x", running, Duration.ofDays(999))), p, NOW)
              .isEmpty());
    }
  }

  @Test
  @DisplayName(
      "retention is configured when set at the top level or for any namespace; without it nothing is due")
  void configured() throws Exception {
    Platform none = platform("");
    assertFalse(RetentionPlan.configured(none));
    assertTrue(
        RetentionPlan.due(
                List.of(done("default", "x", Phase.FAILED, Duration.ofDays(999))), none, NOW)
            .isEmpty());
    assertTrue(RetentionPlan.configured(platform(", retention: {failed: 1d}")));
    assertTrue(RetentionPlan.configured(platform(", retention: {succeeded: 1d}")));
    assertTrue(RetentionPlan.configured(RunPruningTest.platform(temp, RunPruningTest.PLATFORM)));
    assertTrue(
        RetentionPlan.configured(
            RunPruningTest.platform(
                temp,
                RunPruningTest.PLATFORM.replace("{succeeded: 7d, failed: 30d}", "{failed: 30d}"))));
  }

  @Test
  @DisplayName(
      "a run's finish: the Completed or Failed condition's time for a terminal state; nothing for a running run or a condition without time")
  void finishedAt() {
    RunStateMapper mapper = new RunStateMapper(Duration.ofMinutes(10));
    ObservedRun ok = RunPruningTest.run("ok-abcdef", "Completed", NOW.minus(Duration.ofDays(2)));
    assertEquals(
        Optional.of(
            new Finished(
                "local", "default", "ok-abcdef", Phase.SUCCEEDED, NOW.minus(Duration.ofDays(2)))),
        RetentionPlan.finished(ok, mapper.map(ok.observation())));
    ObservedRun bad = RunPruningTest.run("bad-abcdef", "Failed", NOW.minus(Duration.ofDays(3)));
    assertEquals(
        Phase.FAILED,
        RetentionPlan.finished(bad, mapper.map(bad.observation())).orElseThrow().phase());
    ObservedRun running = RunPruningTest.run("run-abcdef", null, null);
    assertEquals(Phase.RUNNING, mapper.map(running.observation()).phase());
    assertTrue(RetentionPlan.finished(running, mapper.map(running.observation())).isEmpty());
    ObservedRun untimed = RunPruningTest.run("nt-abcdef", "Completed", null);
    assertTrue(RetentionPlan.finished(untimed, mapper.map(untimed.observation())).isEmpty());
  }

  @Test
  @DisplayName(
      "a run Kueue deactivated (its JobSet never Failed) finished when the Workload was evicted: pruned after the failed retention")
  void deactivatedFinish() {
    RunStateMapper mapper = new RunStateMapper(Duration.ofMinutes(10));
    Instant evicted = NOW.minus(Duration.ofDays(31));
    ObservedRun run =
        new ObservedRun(
            new RunKey("default", "d-abcdef"),
            new RunProvenance("https://github.com/a/b.git", "abc", "p", "local", "d-abcdef"),
            new RunObservation(
                new JobSetSnapshot(
                    "default",
                    "d-abcdef",
                    evicted.minusSeconds(60),
                    true,
                    1,
                    0,
                    0,
                    "default",
                    List.of()),
                List.of(),
                Optional.of(
                    new WorkloadSnapshot(
                        "cq",
                        List.of(
                            new ConditionSnapshot(
                                "Evicted",
                                true,
                                "DeactivatedDueToRequeuingLimitExceeded",
                                "",
                                evicted)),
                        false)),
                NOW));
    Finished f = RetentionPlan.finished(run, mapper.map(run.observation())).orElseThrow();
    assertEquals(new Finished("local", "default", "d-abcdef", Phase.FAILED, evicted), f);
  }
}
