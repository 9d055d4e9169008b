package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import dev.trainyard.gitops.GitOpsLocation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code trainyard prune} run in-process in a working directory with an injected environment,
 * against a real bare GitOps repository: what it prints, its JSON, its exit codes, what lands.
 */
class PruneCommandTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  /** Namespace {@code default} of cluster {@code local} keeps checkpoint claims 7 days. */
  static final String PLATFORM =
      "apiVersion: trainyard.dev/v1\nkind: Platform\nclusters: [{name: local}]\n"
          + "namespaces: [{name: default, cluster: local, defaultQueue: default,"
          + " checkpoints: {size: 10Gi, accessMode: ReadWriteOnce, retention: 7d}}]\n"
          + "secrets: {policy: plain, allowPlain: true}\n"
          + "queues:\n  resourceFlavors: [{name: cpu}]\n"
          + "  clusterQueues: [{name: default, namespaces: [default],"
          + " flavors: [{name: cpu, quota: {cpu: \"64\", memory: 256Gi}}]}]\n"
          + "  localQueues: [{name: default, namespace: default, clusterQueue: default}]\n";

  static final String CLAIM_FOLDER = "clusters/local/default/_checkpoint-llm-abc123";

  @TempDir Path temp;
  Path bare;
  TrainProject project;

  /** "file:///…/gitops.git/ (main)", as prune names the repository and branch. */
  String where;

  /** The environment: the GitOps repo in $TRAINYARD_GITOPS, the cache in the temp folder. */
  Map<String, String> env;

  @BeforeEach
  void setUp() {
    bare = temp.resolve("gitops.git");
    PreviewCommandTest.git(temp, "init", "-q", "--bare", bare.toString());
    project = TrainProject.create(temp, "run: torchrun train.py\nnodes: 2\n");
    where = GitOpsLocation.parse(bare.toString(), temp).shown() + " (main)";
    env =
        Map.of(
            GitOpsOptions.GITOPS_ENV,
            bare.toString(),
            "TRAINYARD_CACHE",
            temp.resolve("cache").toString());
  }

  /** {@code trainyard args} in the source repo with {@link #env}. */
  MainTest.Run trainyard(String... args) {
    return SubmitCommandTest.runIn(project.root(), env, args);
  }

  /** Submits the project's job; returns its run's name. */
  String submit() throws Exception {
    MainTest.Run r = trainyard("submit", project.trainYaml().toString(), "--output", "json");
    assertEquals(0, r.exit(), r.err());
    return new ObjectMapper().readTree(r.out()).at("/runs/0/name").asText();
  }

  /** The tip of main in the bare repository, or "" when it has no main. */
  String tip() {
    return PreviewCommandTest.git(temp, "--git-dir", bare.toString(), "for-each-ref", "refs/heads")
        .strip();
  }

  @Test
  @DisplayName(
      "a named run with $TRAINYARD_GITOPS: --dry-run lists it and pushes nothing; prune commits its removal; a second prune finds nothing (W) and exits 0")
  void dryRunThenPrune() throws Exception {
    String run = submit();
    String before = tip();
    MainTest.Run dry = trainyard("prune", run, "--dry-run");
    assertEquals(0, dry.exit(), dry.err());
    assertEquals(
        "prune clusters/local/default/"
            + run
            + "\ndry run: would remove 1 run(s) from "
            + where
            + "; nothing was pushed\n",
        dry.out());
    assertEquals("", dry.err());
    assertEquals(before, tip(), "a dry run pushes nothing");

    MainTest.Run real = trainyard("prune", run);
    assertEquals(0, real.exit(), real.err());
    String commit = CliJvm.tip(bare);
    assertEquals(
        "prune clusters/local/default/"
            + run
            + "\ncommitted "
            + commit.substring(0, 12)
            + " to "
            + where
            + ": removed 1 run(s)\n",
        real.out());
    assertEquals("", real.err());
    assertFalse(
        PreviewCommandTest.git(temp, "--git-dir", bare.toString(), "ls-tree", "-r", "main")
            .contains(run + "/"),
        "the run's folder is gone from main");

    MainTest.Run again = trainyard("prune", run);
    assertEquals(0, again.exit(), again.err());
    assertEquals("nothing to prune in " + where + "\n", again.out());
    WORDING.approve(again.err().replace(run, "<run>"));
    assertEquals(commit, CliJvm.tip(bare), "nothing to prune: no commit");
  }

  @Test
  @DisplayName(
      "--output json: the pruned run's name, cluster, namespace and path, then gitops, branch, dryRun, pushed and the commit; exit 0")
  void json() throws Exception {
    String run = submit();
    MainTest.Run r = trainyard("prune", run, "--output", "json");
    assertEquals(0, r.exit(), r.err());
    JsonNode root = new ObjectMapper().readTree(r.out());
    assertEquals(
        List.of("pruned", "gitops", "branch", "dryRun", "pushed", "commit"),
        SubmitCommandTest.tail(root, 6),
        r.out());
    JsonNode pruned = root.path("pruned").path(0);
    assertEquals(run, pruned.path("name").asText());
    assertEquals("local", pruned.path("cluster").asText());
    assertEquals("default", pruned.path("namespace").asText());
    assertEquals("clusters/local/default/" + run, pruned.path("path").asText());
    assertEquals(1, root.path("pruned").size());
    assertEquals(GitOpsLocation.parse(bare.toString(), temp).shown(), root.path("gitops").asText());
    assertEquals("main", root.path("branch").asText());
    assertFalse(root.path("dryRun").asBoolean());
    assertTrue(root.path("pushed").asBoolean());
    assertEquals(CliJvm.tip(bare), root.path("commit").asText());
    assertEquals(0, root.path("errors").asInt());
  }

  @Test
  @DisplayName(
      "an unknown run exits 1 and changes nothing: E801 and `nothing was removed from` on stderr; as JSON: errors 1, no run pruned, exit 1")
  void unknownRun() throws Exception {
    String run = submit();
    String before = tip();
    MainTest.Run text = trainyard("prune", "demo-000000");
    assertEquals(1, text.exit(), text.err());
    assertEquals("", text.out());
    WORDING.approve(text.err().replace(run, "<run>"));
    assertTrue(text.err().endsWith("nothing was removed from " + where + "\n"), text.err());
    MainTest.Run json = trainyard("prune", "demo-000000", "--output", "json");
    assertEquals(1, json.exit(), json.err());
    JsonNode root = new ObjectMapper().readTree(json.out());
    assertEquals(1, root.path("errors").asInt(), json.out());
    assertEquals("E801", root.at("/diagnostics/0/code").asText(), json.out());
    assertEquals(0, root.path("pruned").size(), json.out());
    assertFalse(root.path("pushed").asBoolean(), json.out());
    assertTrue(root.path("commit").isNull(), json.out());
    assertEquals(before, tip());
  }

  @Test
  @DisplayName(
      "--target-cluster a cluster the GitOps repo lacks: exit 1, the error names the clusters it has, nothing removed")
  void unknownCluster() throws Exception {
    String run = submit();
    MainTest.Run r = trainyard("prune", run, "--target-cluster", "prod");
    assertEquals(1, r.exit(), r.err());
    assertEquals("", r.out());
    WORDING.approve(r.err());
  }

  @Test
  @DisplayName(
      "--older-than with --include-running: nothing that old is `nothing to prune` (exit 0); a run older than 1s is listed by a dry run")
  void olderThan() throws Exception {
    String run = submit();
    MainTest.Run week = trainyard("prune", "--older-than", "7d", "--include-running");
    assertEquals(0, week.exit(), week.err());
    assertEquals("nothing to prune in " + where + "\n", week.out());
    assertEquals("", week.err());
    Thread.sleep(2_100);
    MainTest.Run second =
        trainyard("prune", "--older-than", "1s", "--include-running", "--dry-run");
    assertEquals(0, second.exit(), second.err());
    assertTrue(
        second.out().startsWith("prune clusters/local/default/" + run + "\ndry run: "),
        second.out());
  }

  @Test
  @DisplayName(
      "usage errors exit 2 with the message and one --help line: run names or --older-than, empty names, --checkpoints with names or --older-than, no GitOps repo")
  void usage() {
    Map<String, String[]> cases = new HashMap<>();
    cases.put("neither", new String[] {"prune"});
    cases.put("both", new String[] {"prune", "x", "--older-than", "1d"});
    cases.put("empty", new String[] {"prune", "x", ""});
    cases.put("includeRunningAlone", new String[] {"prune", "x", "--include-running"});
    cases.put("checkpointsAndName", new String[] {"prune", "--checkpoints", "x"});
    cases.put("checkpointsAndAge", new String[] {"prune", "--checkpoints", "--older-than", "1d"});
    Map<String, String> expected =
        Map.of(
            "neither", "give either run names or --older-than DURATION",
            "both", "give either run names or --older-than DURATION",
            "empty", "argument RUN got an empty value (an unset variable?)",
            "includeRunningAlone",
                "--include-running goes with --older-than; named runs are pruned as named",
            "checkpointsAndName", "--checkpoints takes no run names and no --older-than",
            "checkpointsAndAge", "--checkpoints takes no run names and no --older-than");
    for (var c : cases.entrySet()) {
      MainTest.Run r = trainyard(c.getValue());
      assertEquals(2, r.exit(), c.getKey() + ": " + r.err());
      assertEquals(
          "trainyard: "
              + expected.get(c.getKey())
              + "\nTry 'trainyard prune --help' for more information.\n",
          r.err(),
          c.getKey());
      assertEquals("", r.out(), c.getKey());
    }
    MainTest.Run none = SubmitCommandTest.runIn(project.root(), Map.of(), "prune", "x");
    assertEquals(2, none.exit(), none.err());
    assertEquals(
        "trainyard: Missing --gitops URL|PATH (or set TRAINYARD_GITOPS)\n"
            + "Try 'trainyard prune --help' for more information.\n",
        none.err());
  }

  @Test
  @DisplayName(
      "a --branch the GitOps repo lacks is a usage error (exit 2); an unreachable server is exit 3, also for --checkpoints and as JSON")
  void failures() throws Exception {
    String run = submit();
    MainTest.Run branch = trainyard("prune", run, "--branch", "mian");
    assertEquals(2, branch.exit(), branch.err());
    assertTrue(
        branch.err().startsWith("trainyard: error: --branch \"mian\" does not exist in "),
        branch.err());
    String url = "http://127.0.0.1:9/acme/gitops.git";
    MainTest.Run down = trainyard("prune", run, "--gitops", url);
    assertEquals(3, down.exit(), down.err());
    assertTrue(
        down.err().startsWith("trainyard: error: cannot fetch main from " + url + ": "),
        down.err());
    assertEquals("", down.out());
    MainTest.Run claims = trainyard("prune", "--checkpoints", "--gitops", url);
    assertEquals(3, claims.exit(), claims.err());
    assertEquals(down.err(), claims.err());
    MainTest.Run json = trainyard("prune", run, "--gitops", url, "--output", "json");
    assertEquals(3, json.exit(), json.err());
    JsonNode root = new ObjectMapper().readTree(json.out());
    assertEquals(3, root.path("exitCode").asInt(), json.out());
    assertTrue(root.path("error").asText().startsWith("cannot fetch main from " + url));
  }

  /** Commits {@code files} (path → text) to main of the bare repository. */
  void commitToGitOps(Map<String, String> files) throws Exception {
    Path work = temp.resolve("gitops-work");
    if (!Files.isDirectory(work)) {
      PreviewCommandTest.git(temp, "clone", "-q", bare.toString(), work.toString());
    }
    for (var f : files.entrySet()) {
      Path file = work.resolve(f.getKey());
      Files.createDirectories(file.getParent());
      Files.writeString(file, f.getValue(), StandardCharsets.UTF_8);
    }
    PreviewCommandTest.git(work, "add", "-A");
    PreviewCommandTest.git(work, "commit", "-q", "-m", "hand-made");
    PreviewCommandTest.git(work, "push", "-q", "origin", "HEAD:main");
  }

  /** A claim of job {@code llm} last used in 2020, its folder without any run of the job. */
  static Map<String, String> expiredClaim() {
    return Map.of(
        CLAIM_FOLDER + "/persistentvolumeclaim-llm-abc123.yaml",
        "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: llm-abc123\n"
            + "  namespace: default\n  labels: {trainyard.dev/job: llm}\n"
            + "  annotations: {trainyard.dev/last-used-at: \"2020-01-01T00:00:00Z\"}\n");
  }

  @Test
  @DisplayName(
      "--checkpoints: nothing past retention says so (exit 0); an expired claim is listed by --dry-run (nothing pushed), then removed in one commit")
  void checkpoints() throws Exception {
    commitToGitOps(Map.of("platform.yaml", PLATFORM));
    MainTest.Run none = trainyard("prune", "--checkpoints");
    assertEquals(0, none.exit(), none.err());
    assertEquals("no checkpoint claim past its retention in " + where + "\n", none.out());
    assertEquals("", none.err());

    commitToGitOps(expiredClaim());
    String before = CliJvm.tip(bare);
    MainTest.Run dry = trainyard("prune", "--checkpoints", "--dry-run");
    assertEquals(0, dry.exit(), dry.err());
    assertEquals(
        "prune "
            + CLAIM_FOLDER
            + "\ndry run: would remove 1 checkpoint claim(s); nothing was pushed\n",
        dry.out());
    assertEquals("", dry.err());
    assertEquals(before, CliJvm.tip(bare));

    MainTest.Run real = trainyard("prune", "--checkpoints");
    assertEquals(0, real.exit(), real.err());
    String commit = CliJvm.tip(bare);
    assertEquals(
        "prune "
            + CLAIM_FOLDER
            + "\ncommitted "
            + commit.substring(0, 12)
            + " to "
            + where
            + ": removed 1 checkpoint claim(s)\n",
        real.out());
    assertEquals("", real.err());
    assertFalse(
        PreviewCommandTest.git(temp, "--git-dir", bare.toString(), "ls-tree", "-r", "main")
            .contains(CLAIM_FOLDER));
  }

  @Test
  @DisplayName(
      "--checkpoints with an invalid platform.yaml on the branch: its diagnostics on stderr, exit 1, nothing printed or removed")
  void checkpointsInvalidPlatform() throws Exception {
    Map<String, String> files = new HashMap<>(expiredClaim());
    files.put("platform.yaml", "apiVersion: trainyard.dev/v1\nkind: Platform\nclusters: 3\n");
    commitToGitOps(files);
    String before = CliJvm.tip(bare);
    MainTest.Run r = trainyard("prune", "--checkpoints");
    assertEquals(1, r.exit(), r.err());
    assertEquals("", r.out());
    WORDING.approve(r.err());
    assertEquals(before, CliJvm.tip(bare));
  }
}
