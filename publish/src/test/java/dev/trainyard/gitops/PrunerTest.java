package dev.trainyard.gitops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code prune} against real bare repositories, checked with the git CLI and kustomize. */
class PrunerTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  static final Instant T0 = GitOpsFixture.T0;
  @TempDir Path temp;
  GitOpsFixture fixture;

  @BeforeEach
  void setUp() {
    fixture = new GitOpsFixture(temp, "run: torchrun train.py\n");
  }

  String submit(boolean rerun, Instant at) throws GitOpsException {
    return fixture
        .submitter(at)
        .submit(fixture.request(fixture.project.trainYaml(), rerun, false))
        .runs()
        .get(0)
        .folder()
        .run();
  }

  PruneResult prune(Instant at, List<String> runs, Optional<Duration> olderThan)
      throws GitOpsException {
    return fixture
        .pruner(at)
        .prune(new PruneRequest(location(), "main", runs, olderThan, Optional.empty(), false));
  }

  GitOpsLocation location() {
    return fixture.location();
  }

  @Test
  @DisplayName(
      "prune by name removes the run's folder in one commit, remembers it, and rewrites the namespace root")
  void byName() throws Exception {
    String first = submit(false, T0);
    String second = submit(true, T0.plusSeconds(10));
    PruneResult result = prune(T0.plusSeconds(20), List.of(first), Optional.empty());
    assertTrue(result.pushed());
    assertEquals(List.of(first), result.pruned().stream().map(RunFolder::run).toList());
    assertEquals("trainyard prune: " + first, GitCli.log(fixture.bare).get(0));
    List<String> files = GitCli.files(fixture.bare);
    assertFalse(files.stream().anyMatch(f -> f.contains("/" + first + "/")), files.toString());
    assertTrue(files.stream().anyMatch(f -> f.contains("/" + second + "/")), files.toString());
    assertEquals(
        "default/" + first + "\n", GitCli.show(fixture.bare, "clusters/local/pruned-runs.txt"));
    assertEquals(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- _queues\n- "
            + second
            + "\n",
        GitCli.show(fixture.bare, "clusters/local/default/kustomization.yaml"));
    assertEquals(
        "local/default/" + first,
        GitCli.git(
                fixture.bare,
                "log",
                "-1",
                "--format=%(trailers:key=Trainyard-Pruned,valueonly)",
                "main")
            .strip());
    Path checkout = temp.resolve("checkout");
    GitCli.git(temp, "clone", "-q", fixture.bare.toString(), checkout.toString());
    List<String> objects = Kustomize.objects(Kustomize.build(checkout.resolve("clusters/local")));
    assertTrue(
        objects.contains("JobSet/" + second) && !objects.contains("JobSet/" + first),
        objects.toString());
  }

  @Test
  @DisplayName(
      "pruneIfPresent removes the runs the branch holds in one commit, skips absent ones silently, and a repeat commits nothing")
  void ifPresent() throws Exception {
    String first = submit(false, T0);
    String second = submit(true, T0.plusSeconds(10));
    Pruner pruner = fixture.pruner(T0.plusSeconds(20));
    int commits = GitCli.log(fixture.bare).size();
    List<RunFolder> asked =
        List.of(
            new RunFolder("local", "default", first),
            new RunFolder("local", "default", "gone-abcdef"),
            new RunFolder("local", "other", second));
    PruneResult result = pruner.pruneIfPresent(location(), "main", asked);
    assertTrue(result.pushed());
    assertEquals(
        List.of(first),
        result.pruned().stream().map(RunFolder::run).toList(),
        "a run is matched by namespace too");
    assertTrue(result.diagnostics().isEmpty(), result.diagnostics().toString());
    assertEquals(commits + 1, GitCli.log(fixture.bare).size());
    assertEquals("trainyard prune: " + first, GitCli.log(fixture.bare).get(0));
    assertEquals(
        "default/" + first + "\n", GitCli.show(fixture.bare, "clusters/local/pruned-runs.txt"));
    assertTrue(GitCli.files(fixture.bare).stream().anyMatch(f -> f.contains("/" + second + "/")));
    PruneResult again = pruner.pruneIfPresent(location(), "main", asked);
    assertFalse(again.pushed());
    assertTrue(again.pruned().isEmpty() && again.commit().isEmpty());
    assertEquals(commits + 1, GitCli.log(fixture.bare).size(), "nothing left to prune: no commit");
  }

  @Test
  @DisplayName(
      "a run name that does not exist is diagnostic E801 with the runs of that job as a hint, and nothing is removed")
  void unknownRun() throws Exception {
    String run = submit(false, T0);
    String head = GitCli.git(fixture.bare, "rev-parse", "main").strip();
    PruneResult result = prune(T0, List.of(run, "demo-ffffff"), Optional.empty());
    assertTrue(result.hasErrors());
    Diagnostic d = result.diagnostics().get(0);
    assertEquals(DiagnosticCode.UNKNOWN_RUN, d.code());
    WORDING.approve(d.message());
    assertEquals("runs with that job name: " + run, d.hint());
    assertFalse(result.pushed());
    assertEquals(head, GitCli.git(fixture.bare, "rev-parse", "main").strip());
  }

  @Test
  @DisplayName(
      "--older-than reads created-at from provenance: only runs created before now minus the age go")
  void olderThan() throws Exception {
    String old = submit(false, T0);
    String young = submit(true, T0.plus(Duration.ofHours(2)));
    PruneResult result =
        prune(T0.plus(Duration.ofMinutes(150)), List.of(), Optional.of(Duration.ofHours(1)));
    assertEquals(List.of(old), result.pruned().stream().map(RunFolder::run).toList());
    assertTrue(GitCli.files(fixture.bare).stream().anyMatch(f -> f.contains("/" + young + "/")));
    PruneResult none =
        prune(T0.plus(Duration.ofMinutes(150)), List.of(), Optional.of(Duration.ofHours(1)));
    assertTrue(none.pruned().isEmpty());
    assertFalse(none.pushed(), "nothing left to prune: no commit");
    assertEquals(4, GitCli.log(fixture.bare).size() + 1, "submit, rerun, prune: three commits");
  }

  @Test
  @DisplayName("a run exactly as old as --older-than stays; one second older goes")
  void olderThanBoundary() throws Exception {
    String run = submit(false, T0);
    assertTrue(
        prune(T0.plusSeconds(3600), List.of(), Optional.of(Duration.ofHours(1)))
            .pruned()
            .isEmpty());
    assertEquals(
        List.of(run),
        prune(T0.plusSeconds(3601), List.of(), Optional.of(Duration.ofHours(1))).pruned().stream()
            .map(RunFolder::run)
            .toList());
  }

  @Test
  @DisplayName(
      "a run without created-at (written by plain compile) is left by --older-than with warning W802")
  void withoutCreatedAt() throws Exception {
    Path out = temp.resolve("compiled");
    var tree = TrainProject.tree(fixture.project.compile(Optional.empty()));
    Map<String, String> files = new TreeMap<>(tree.files());
    GitCli.pushFiles(fixture.bare, temp.resolve("ops"), files, "compiled by hand");
    PruneResult result = prune(T0, List.of(), Optional.of(Duration.ofSeconds(1)));
    assertTrue(result.pruned().isEmpty());
    assertEquals(
        List.of(DiagnosticCode.RUN_WITHOUT_CREATION_TIME),
        result.diagnostics().stream().map(Diagnostic::code).toList());
    assertFalse(out.toFile().exists());
  }

  @Test
  @DisplayName("re-submitting a pruned run's commit does not start it again; --rerun does")
  void resubmitAfterPrune() throws Exception {
    String run = submit(false, T0);
    prune(T0.plusSeconds(5), List.of(run), Optional.empty());
    String head = GitCli.git(fixture.bare, "rev-parse", "main").strip();
    SubmitRequest again =
        new SubmitRequest(
            List.of(fixture.project.trainYaml()),
            location(),
            "main",
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            false,
            false);
    SubmitResult result = fixture.submitter(T0.plusSeconds(9)).submit(again);
    assertEquals(SubmittedRun.Outcome.PRUNED, result.runs().get(0).outcome());
    assertEquals(head, GitCli.git(fixture.bare, "rev-parse", "main").strip());
    String rerun = submit(true, T0.plusSeconds(10));
    assertFalse(rerun.equals(run));
  }

  @Test
  @DisplayName("pruning a namespace's last run keeps its LocalQueues and the cluster root")
  void lastRun() throws Exception {
    String run = submit(false, T0);
    prune(T0, List.of(run), Optional.empty());
    assertEquals(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- _queues\n",
        GitCli.show(fixture.bare, "clusters/local/default/kustomization.yaml"));
    assertTrue(
        GitCli.show(fixture.bare, "clusters/local/kustomization.yaml").contains("- default\n"));
  }

  @Test
  @DisplayName(
      "pruning an already pruned run is warning W807 and exit-code clean; an unknown --target-cluster is E808")
  void prunedTwiceAndUnknownCluster() throws Exception {
    String run = submit(false, T0);
    prune(T0, List.of(run), Optional.empty());
    PruneResult again = prune(T0, List.of(run), Optional.empty());
    assertFalse(again.hasErrors());
    assertEquals(
        List.of(DiagnosticCode.ALREADY_PRUNED),
        again.diagnostics().stream().map(Diagnostic::code).toList());
    assertFalse(again.pushed());
    PruneResult nowhere =
        fixture
            .pruner(T0)
            .prune(
                new PruneRequest(
                    location(),
                    "main",
                    List.of(),
                    Optional.of(Duration.ofSeconds(1)),
                    Optional.of("nope"),
                    false));
    assertEquals(
        List.of(DiagnosticCode.UNKNOWN_CLUSTER),
        nowhere.diagnostics().stream().map(Diagnostic::code).toList());
    WORDING.approve(nowhere.diagnostics().get(0).hint());
  }

  @Test
  @DisplayName("prune keeps hand-written files and entries of the namespace root")
  void foreignContentKept() throws Exception {
    String run = submit(false, T0);
    String root =
        GitCli.show(fixture.bare, "clusters/local/default/kustomization.yaml")
            .replace("resources:\n", "resources:\n- handmade.yaml\n");
    GitCli.pushFiles(
        fixture.bare,
        temp.resolve("ops"),
        Map.of(
            "clusters/local/default/handmade.yaml",
            "kind: ConfigMap\n",
            "clusters/local/default/kustomization.yaml",
            root),
        "hand");
    prune(T0, List.of(run), Optional.empty());
    assertTrue(GitCli.files(fixture.bare).contains("clusters/local/default/handmade.yaml"));
    assertEquals(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- _queues\n- handmade.yaml\n",
        GitCli.show(fixture.bare, "clusters/local/default/kustomization.yaml"));
  }
}
