package dev.trainyard.gitops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.platform.PlatformLoader;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job's checkpoint claim in a real bare GitOps repo: submitted beside the run, kept by run prune,
 * removed by checkpoint retention only once no run of the job is left and its last use is older
 * than the namespace's retention; checked with the git CLI and kustomize.
 */
class CheckpointRetentionTest {
  static final Instant T0 = GitOpsFixture.T0;
  static final String PLATFORM =
      "apiVersion: trainyard.dev/v1\nkind: Platform\nclusters: [{name: local}]\n"
          + "namespaces: [{name: default, cluster: local, defaultQueue: default,"
          + " checkpoints: {size: 10Gi, accessMode: ReadWriteOnce, retention: 7d}},"
          + " {name: keep, cluster: local, defaultQueue: default,"
          + " checkpoints: {size: 10Gi, accessMode: ReadWriteOnce}}]\n"
          + "secrets: {policy: plain, allowPlain: true}\n"
          + "queues:\n  resourceFlavors: [{name: cpu}]\n"
          + "  clusterQueues: [{name: default, namespaces: [default, keep],"
          + " flavors: [{name: cpu, quota: {cpu: \"64\", memory: 256Gi}}]}]\n"
          + "  localQueues: [{name: default, namespace: default, clusterQueue: default},"
          + " {name: default, namespace: keep, clusterQueue: default}]\n";

  @TempDir Path temp;
  GitOpsFixture fixture;
  Path platformFile;
  Platform platform;

  @BeforeEach
  void setUp() throws Exception {
    fixture = new GitOpsFixture(temp, "name: llm\nrun: python train.py\ncheckpoint: {}\n");
    platformFile = temp.resolve("platform.yaml");
    Files.writeString(platformFile, PLATFORM, StandardCharsets.UTF_8);
    platform =
        PlatformLoader.standard()
            .load(Optional.of(platformFile), "platform.yaml")
            .value()
            .orElseThrow();
  }

  private SubmitResult submit(String namespace, boolean rerun, Instant at) throws GitOpsException {
    return submit(namespace, rerun, at, Optional.of(platformFile));
  }

  private SubmitResult submit(String namespace, boolean rerun, Instant at, Optional<Path> platform)
      throws GitOpsException {
    SubmitRequest plain = fixture.request(fixture.project.trainYaml(), rerun, false);
    return fixture
        .submitter(at)
        .submit(
            new SubmitRequest(
                plain.trainYamls(),
                plain.gitops(),
                "main",
                platform,
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.of(namespace),
                rerun,
                false));
  }

  private static String key(SubmitResult r) {
    return r.runs().get(0).job().checkpoint().orElseThrow().key();
  }

  @Test
  @DisplayName(
      "submit writes the claim into _checkpoint-<key>/ and lists it in the namespace root; a re-run reuses it and moves last-used-at")
  void submitted() throws Exception {
    SubmitResult first = submit("default", false, T0);
    String key = key(first);
    String claim =
        "clusters/local/default/_checkpoint-" + key + "/persistentvolumeclaim-" + key + ".yaml";
    assertTrue(GitCli.files(fixture.bare).contains(claim), GitCli.files(fixture.bare).toString());
    assertTrue(
        GitCli.show(fixture.bare, claim).contains("trainyard.dev/last-used-at: \"" + T0 + "\""));
    assertTrue(
        GitCli.show(fixture.bare, "clusters/local/default/kustomization.yaml")
            .contains("- _checkpoint-" + key + "\n"));
    SubmitResult second = submit("default", true, T0.plus(Duration.ofDays(2)));
    assertEquals(key, key(second), "every run of the job mounts the same claim");
    assertTrue(
        GitCli.show(fixture.bare, claim)
            .contains("trainyard.dev/last-used-at: \"" + T0.plus(Duration.ofDays(2)) + "\""));
    Path checkout = temp.resolve("checkout");
    GitCli.git(temp, "clone", "-q", fixture.bare.toString(), checkout.toString());
    List<String> objects =
        Kustomize.objects(Kustomize.build(checkout.resolve("clusters/local/default")));
    assertTrue(objects.contains("PersistentVolumeClaim/" + key), objects.toString());
  }

  @Test
  @DisplayName(
      "run prune keeps the claim; retention removes it only past 7 d from its last use with no run of the job left, in one commit")
  void retention() throws Exception {
    SubmitResult first = submit("default", false, T0);
    String key = key(first);
    String folder = "clusters/local/default/_checkpoint-" + key + "/";
    String run = first.runs().get(0).folder().run();
    Instant late = T0.plus(Duration.ofDays(30));
    Pruner.CheckpointPruneResult inUse =
        fixture
            .pruner(late)
            .pruneCheckpoints(fixture.location(), "main", Optional.of(platform), false);
    assertTrue(inUse.removed().isEmpty(), "a run of the job is still in the repo");
    assertFalse(inUse.pushed());
    fixture
        .pruner(late)
        .prune(
            new PruneRequest(
                fixture.location(),
                "main",
                List.of(run),
                Optional.empty(),
                Optional.empty(),
                false));
    assertTrue(
        GitCli.files(fixture.bare).stream().anyMatch(f -> f.startsWith(folder)),
        "pruning the run keeps its checkpoints");
    Pruner.CheckpointPruneResult early =
        fixture
            .pruner(T0.plus(Duration.ofDays(6)))
            .pruneCheckpoints(fixture.location(), "main", Optional.of(platform), false);
    assertTrue(early.removed().isEmpty(), "6 d after the last use is within 7 d");
    Pruner.CheckpointPruneResult dry =
        fixture
            .pruner(late)
            .pruneCheckpoints(fixture.location(), "main", Optional.of(platform), true);
    assertEquals(1, dry.removed().size());
    assertFalse(dry.pushed());
    assertTrue(GitCli.files(fixture.bare).stream().anyMatch(f -> f.startsWith(folder)));
    int commits = GitCli.log(fixture.bare).size();
    Pruner.CheckpointPruneResult done =
        fixture
            .pruner(late)
            .pruneCheckpoints(fixture.location(), "main", Optional.of(platform), false);
    assertEquals(
        List.of(new CheckpointRetention.CheckpointFolder("local", "default", key)), done.removed());
    assertTrue(done.pushed());
    assertEquals(commits + 1, GitCli.log(fixture.bare).size());
    assertEquals("trainyard prune: checkpoints " + key, GitCli.log(fixture.bare).get(0));
    assertFalse(GitCli.files(fixture.bare).stream().anyMatch(f -> f.startsWith(folder)));
    assertFalse(
        GitCli.show(fixture.bare, "clusters/local/default/kustomization.yaml")
            .contains("_checkpoint-"));
    assertEquals(
        "local/default/" + key,
        GitCli.git(
                fixture.bare,
                "log",
                "-1",
                "--format=%(trailers:key=Trainyard-Pruned-Checkpoint,valueonly)",
                "main")
            .strip());
  }

  @Test
  @DisplayName(
      "without a platform given, the branch's platform.yaml decides; an invalid one removes nothing and says why")
  void branchPlatform() throws Exception {
    Path work = temp.resolve("w");
    GitCli.git(temp, "clone", "-q", fixture.bare.toString(), work.toString());
    Files.writeString(work.resolve("platform.yaml"), PLATFORM, StandardCharsets.UTF_8);
    GitCli.git(work, "add", "platform.yaml");
    GitCli.git(work, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q", "-m", "platform");
    GitCli.git(work, "push", "-q", "origin", "HEAD:main");
    SubmitResult first = submit("default", false, T0, Optional.empty());
    assertEquals(1, first.runs().size(), first.diagnostics().toString());
    fixture
        .pruner(T0)
        .prune(
            new PruneRequest(
                fixture.location(),
                "main",
                List.of(first.runs().get(0).folder().run()),
                Optional.empty(),
                Optional.empty(),
                false));
    Pruner.CheckpointPruneResult r =
        fixture
            .pruner(T0.plus(Duration.ofDays(8)))
            .pruneCheckpoints(fixture.location(), "main", Optional.empty(), true);
    assertEquals(1, r.removed().size(), r.diagnostics().toString());
    GitCli.git(work, "pull", "-q", "origin", "main");
    Files.writeString(work.resolve("platform.yaml"), "kind: Nonsense\n", StandardCharsets.UTF_8);
    GitCli.git(
        work, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q", "-a", "-m", "broken");
    GitCli.git(work, "push", "-q", "origin", "HEAD:main");
    Pruner.CheckpointPruneResult broken =
        fixture
            .pruner(T0.plus(Duration.ofDays(8)))
            .pruneCheckpoints(fixture.location(), "main", Optional.empty(), false);
    assertTrue(broken.removed().isEmpty());
    assertFalse(broken.diagnostics().isEmpty());
    assertFalse(broken.pushed());
  }

  @Test
  @DisplayName("a namespace without checkpoint retention keeps its claims for ever")
  void noRetention() throws Exception {
    SubmitResult first = submit("keep", false, T0);
    fixture
        .pruner(T0)
        .prune(
            new PruneRequest(
                fixture.location(),
                "main",
                List.of(first.runs().get(0).folder().run()),
                Optional.empty(),
                Optional.empty(),
                false));
    Pruner.CheckpointPruneResult r =
        fixture
            .pruner(T0.plus(Duration.ofDays(3650)))
            .pruneCheckpoints(fixture.location(), "main", Optional.of(platform), false);
    assertTrue(r.removed().isEmpty());
    assertEquals(
        List.of(new CheckpointRetention.CheckpointFolder("local", "keep", key(first))),
        CheckpointRetention.folders(
            new MapSnapshot(
                Map.of(
                    "clusters/local/keep/_checkpoint-" + key(first) + "/kustomization.yaml",
                    "x",
                    "clusters/local/keep/other/kustomization.yaml",
                    "x",
                    "clusters/_x/keep/_checkpoint-a/kustomization.yaml",
                    "x",
                    "clusters/local/_queues/_checkpoint-b/kustomization.yaml",
                    "x"))));
    assertTrue(TrainProject.REMOTE.startsWith("https://"));
  }

  @Test
  @DisplayName(
      "a claim without a valid last-used-at, or without its job label, is kept (pure planner on a tree)")
  void unreadableKept() {
    String base = "clusters/local/default/_checkpoint-llm-abcdef/";
    String pvc =
        "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: llm-abcdef\n  labels: {trainyard.dev/job: llm}\n"
            + "  annotations: {trainyard.dev/last-used-at: %s}\n";
    Instant late = T0.plus(Duration.ofDays(100));
    for (String when : List.of("yesterday", "\"\"")) {
      MapSnapshot tree =
          new MapSnapshot(
              Map.of(base + "persistentvolumeclaim-llm-abcdef.yaml", String.format(pvc, when)));
      assertTrue(CheckpointRetention.expired(tree, platform, late).isEmpty(), when);
    }
    MapSnapshot noJob =
        new MapSnapshot(
            Map.of(
                base + "persistentvolumeclaim-llm-abcdef.yaml",
                String.format(pvc, T0).replace("trainyard.dev/job: llm", "x: y")));
    assertTrue(CheckpointRetention.expired(noJob, platform, late).isEmpty());
    MapSnapshot valid =
        new MapSnapshot(
            Map.of(base + "persistentvolumeclaim-llm-abcdef.yaml", String.format(pvc, T0)));
    assertEquals(1, CheckpointRetention.expired(valid, platform, late).size());
    MapSnapshot otherJobRun =
        new MapSnapshot(
            Map.of(
                base + "persistentvolumeclaim-llm-abcdef.yaml",
                String.format(pvc, T0),
                "clusters/local/default/llm2-123456/kustomization.yaml",
                "x",
                "clusters/local/default/llm-12345/kustomization.yaml",
                "x"));
    assertEquals(
        1,
        CheckpointRetention.expired(otherJobRun, platform, late).size(),
        "llm2-… and llm-12345 are no runs of llm");
    MapSnapshot ownRun =
        new MapSnapshot(
            Map.of(
                base + "persistentvolumeclaim-llm-abcdef.yaml",
                String.format(pvc, T0),
                "clusters/local/default/llm-123abc/kustomization.yaml",
                "x"));
    assertTrue(CheckpointRetention.expired(ownRun, platform, late).isEmpty());
    assertEquals(
        1,
        CheckpointRetention.expired(valid, platform, T0.plus(Duration.ofDays(7))).size(),
        "exactly 7 d is past");
  }
}
