package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.platform.PlatformLoader;
import dev.trainyard.compiler.schema.NetworkntSchemaValidator;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.controller.state.ConditionSnapshot;
import dev.trainyard.controller.state.ContainerSnapshot;
import dev.trainyard.controller.state.JobSetSnapshot;
import dev.trainyard.controller.state.PodSnapshot;
import dev.trainyard.controller.state.RunObservation;
import dev.trainyard.controller.state.RunStateMapper;
import dev.trainyard.controller.state.WorkloadSnapshot;
import dev.trainyard.gitops.GitOpsLocation;
import dev.trainyard.gitops.PruneResult;
import dev.trainyard.gitops.RunFolder;
import dev.trainyard.gitops.SubmitRequest;
import dev.trainyard.gitops.Submitter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retention pruning against a real bare GitOps repository: runs written by the real {@link
 * Submitter}, pruned with {@code trainyard prune}'s code, checked with the git CLI.
 */
class RunPruningTest {

  static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
  static final String PLATFORM =
      """
            apiVersion: trainyard.dev/v1
            kind: Platform
            clusters: [{name: local}]
            namespaces: [{name: default, cluster: local, defaultQueue: default}]
            retention: {succeeded: 7d, failed: 30d}
            queues:
              resourceFlavors: [{name: f}]
              clusterQueues: [{name: default, flavors: [{name: f, quota: {cpu: "64", memory: 64Gi}}]}]
              localQueues: [{name: default, namespace: default, clusterQueue: default}]
            """;

  @TempDir Path temp;

  static Platform platform(Path dir, String yaml) throws IOException {
    Path file = dir.resolve("platform.yaml");
    Files.writeString(file, yaml);
    return new PlatformLoader(new YamlDocumentLoader(), new NetworkntSchemaValidator())
        .load(Optional.of(file), "platform.yaml")
        .value()
        .orElseThrow();
  }

  /**
   * A run as the controller's caches show it: terminal condition {@code condition} since {@code
   * since}, or running.
   */
  static ObservedRun run(String run, String condition, Instant since) {
    List<ConditionSnapshot> conditions =
        condition == null
            ? List.of()
            : List.of(
                new ConditionSnapshot(
                    condition,
                    true,
                    condition.equals("Failed") ? "FailedJobs" : "AllJobsCompleted",
                    "",
                    since));
    List<PodSnapshot> pods =
        condition != null
            ? List.of()
            : List.of(
                new PodSnapshot(
                    run + "-node-0-0-x",
                    "kwok-0",
                    "Running",
                    "",
                    0,
                    true,
                    false,
                    NOW.minus(Duration.ofDays(60)),
                    List.of(),
                    List.of(ContainerSnapshot.running("node")),
                    List.of()));
    JobSetSnapshot js =
        new JobSetSnapshot(
            "default", run, NOW.minus(Duration.ofDays(60)), false, 1, 0, 0, "default", conditions);
    Instant admitted = NOW.minus(Duration.ofDays(60));
    WorkloadSnapshot w =
        new WorkloadSnapshot(
            "default",
            List.of(
                new ConditionSnapshot("QuotaReserved", true, "", "", admitted),
                new ConditionSnapshot("Admitted", true, "", "", admitted)));
    return new ObservedRun(
        new RunKey("default", run),
        new RunProvenance(
            "https://github.com/acme/llm-training.git",
            "abc",
            "jobs/demo/train.yaml",
            "local",
            run),
        new RunObservation(js, pods, Optional.of(w), NOW));
  }

  @Test
  @DisplayName(
      "finished runs older than their retention leave the GitOps repo in one commit; a recent failure, a running run and a run not in the repo stay")
  void prunesInOneCommit() throws Exception {
    Path bare = bare();
    TrainProject project = TrainProject.create(temp, "run: torchrun train.py\n");
    List<String> runs = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      runs.add(submit(project, bare, i > 0));
    }
    String oldSuccess = runs.get(0);
    String recentFailure = runs.get(1);
    String oldFailure = runs.get(2);
    String running = runs.get(3);
    List<ObservedRun> cluster =
        List.of(
            run(oldSuccess, "Completed", NOW.minus(Duration.ofDays(8))),
            run(recentFailure, "Failed", NOW.minus(Duration.ofDays(8))),
            run(oldFailure, "Failed", NOW.minus(Duration.ofDays(31))),
            run(running, null, null),
            run("not-in-git-abcdef", "Completed", NOW.minus(Duration.ofDays(90))));
    int commits = log(bare).size();
    RunPruning pruning =
        new RunPruning(
            new RunPruning.Settings(
                GitOpsLocation.parse(bare.toString(), Path.of("")),
                "main",
                Duration.ofMinutes(10),
                temp.resolve("cache")),
            platform(temp, PLATFORM),
            () -> cluster,
            new RunStateMapper(Duration.ofMinutes(10)),
            Map.of(),
            Clock.fixed(NOW, ZoneOffset.UTC));

    PruneResult result = pruning.pruneOnce().orElseThrow();
    assertTrue(result.pushed());
    assertEquals(
        List.of(oldFailure, oldSuccess).stream().sorted().toList(),
        result.pruned().stream().map(RunFolder::run).sorted().toList());
    assertEquals(commits + 1, log(bare).size(), "one commit for both runs");
    assertEquals("trainyard prune: 2 runs", log(bare).get(0));
    String files = git(bare, "ls-tree", "-r", "--name-only", "main");
    assertFalse(
        files.contains("/" + oldSuccess + "/") || files.contains("/" + oldFailure + "/"), files);
    assertTrue(
        files.contains("/" + recentFailure + "/") && files.contains("/" + running + "/"), files);

    assertTrue(pruning.pruneOnce().map(r -> !r.pushed() && r.pruned().isEmpty()).orElse(true));
    assertEquals(
        commits + 1,
        log(bare).size(),
        "a second pass finds nothing left to prune and commits nothing");
  }

  @Test
  @DisplayName("with nothing due no GitOps repo is touched (the location need not even answer)")
  void nothingDue() throws Exception {
    Path bare = bare();
    RunPruning pruning =
        new RunPruning(
            new RunPruning.Settings(
                GitOpsLocation.parse(bare.toString(), Path.of("")),
                "main",
                Duration.ofMinutes(10),
                temp.resolve("cache")),
            platform(temp, PLATFORM),
            () ->
                List.of(
                    run("r-abcdef", "Completed", NOW.minus(Duration.ofDays(1))),
                    run("s-abcdef", null, null)),
            new RunStateMapper(Duration.ofMinutes(10)),
            Map.of(),
            Clock.fixed(NOW, ZoneOffset.UTC));
    assertTrue(pruning.due().isEmpty());
    assertTrue(pruning.pruneOnce().isEmpty());
    assertFalse(Files.exists(temp.resolve("cache")), "no mirror was made");
  }

  @Test
  @DisplayName(
      "a scheduled pass prunes only as leader with synced caches; it counts the runs pruned, and a GitOps repo that cannot be reached as an error pass")
  void pass() throws Exception {
    Path bare = bare();
    TrainProject project = TrainProject.create(temp, "run: torchrun train.py\n");
    String run = submit(project, bare, false);
    List<ObservedRun> cluster = List.of(run(run, "Completed", NOW.minus(Duration.ofDays(8))));
    RunPruning pruning =
        new RunPruning(
            new RunPruning.Settings(
                GitOpsLocation.parse(bare.toString(), Path.of("")),
                "main",
                Duration.ofMinutes(10),
                temp.resolve("cache")),
            platform(temp, PLATFORM),
            () -> cluster,
            new RunStateMapper(Duration.ofMinutes(10)),
            Map.of(),
            Clock.fixed(NOW, ZoneOffset.UTC));
    ControllerMetrics metrics = new ControllerMetrics();
    int commits = log(bare).size();
    pruning.pass(false, true, metrics);
    pruning.pass(true, false, metrics);
    assertEquals(
        commits,
        log(bare).size(),
        "a follower, or a leader whose caches have not listed, prunes nothing");
    assertEquals(0, metrics.counter("trainyard_prune_passes_total{result=\"ok\"}"));
    pruning.pass(true, true, metrics);
    assertEquals(commits + 1, log(bare).size());
    assertEquals(1, metrics.counter("trainyard_pruned_runs_total{}"));
    assertEquals(1, metrics.counter("trainyard_prune_passes_total{result=\"ok\"}"));
    pruning.pass(true, true, metrics);
    assertEquals(
        1, metrics.counter("trainyard_pruned_runs_total{}"), "nothing left: nothing counted");
    assertEquals(2, metrics.counter("trainyard_prune_passes_total{result=\"ok\"}"));

    Path gone = temp.resolve("gone.git");
    git(temp, "init", "-q", "--bare", "gone.git");
    RunPruning broken =
        new RunPruning(
            new RunPruning.Settings(
                GitOpsLocation.parse(gone.toString(), Path.of("")),
                "main",
                Duration.ofMinutes(10),
                temp.resolve("cache2")),
            platform(temp, PLATFORM),
            () -> cluster,
            new RunStateMapper(Duration.ofMinutes(10)),
            Map.of(),
            Clock.fixed(NOW, ZoneOffset.UTC));
    try (var files = Files.walk(gone)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
    broken.pass(true, true, metrics);
    assertEquals(
        1, metrics.counter("trainyard_prune_passes_total{result=\"error\"}"), metrics.render());
  }

  private Path bare() {
    git(temp, "init", "-q", "--bare", "gitops.git");
    return temp.resolve("gitops.git");
  }

  private String submit(TrainProject project, Path bare, boolean rerun) throws Exception {
    SubmitRequest r =
        new SubmitRequest(
            List.of(project.trainYaml()),
            GitOpsLocation.parse(bare.toString(), Path.of("")),
            "main",
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            rerun,
            false);
    return new Submitter(
            temp.resolve("submit-cache"),
            Map.of(),
            Clock.fixed(NOW.minus(Duration.ofDays(60)), ZoneOffset.UTC))
        .submit(r)
        .runs()
        .get(0)
        .folder()
        .run();
  }

  private static List<String> log(Path bare) {
    return git(bare, "log", "--format=%s", "main").lines().toList();
  }

  /** The real git CLI; fails the test on a non-zero exit or after 60 s. */
  static String git(Path dir, String... args) {
    List<String> command =
        new ArrayList<>(List.of("git", "-c", "init.defaultBranch=main", "-c", "safe.directory=*"));
    command.addAll(List.of(args));
    try {
      Process p =
          new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(p.waitFor(60, TimeUnit.SECONDS), "git timed out");
      assertEquals(0, p.exitValue(), out);
      return out;
    } catch (IOException e) {
      throw new AssertionError(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
