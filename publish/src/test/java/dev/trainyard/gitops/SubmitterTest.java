package dev.trainyard.gitops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code submit} against real bare repositories over file://, checked with the real git CLI and
 * kustomize.
 */
class SubmitterTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  static final Instant T0 = GitOpsFixture.T0;
  @TempDir Path temp;
  GitOpsFixture fixture;
  Path bare;
  TrainProject project;

  @BeforeEach
  void setUp() {
    fixture = new GitOpsFixture(temp, "run: torchrun train.py\nnodes: 2\n");
    bare = fixture.bare;
    project = fixture.project;
  }

  SubmitResult submit(boolean rerun, Instant at) throws GitOpsException {
    return submit(rerun, at, attempt -> {});
  }

  SubmitResult submit(boolean rerun, Instant at, Publisher.BeforePush hook) throws GitOpsException {
    return submitter(at).submit(request(rerun, false), hook);
  }

  Submitter submitter(Instant at) {
    return fixture.submitter(at);
  }

  SubmitRequest request(boolean rerun, boolean dryRun) {
    return fixture.request(project.trainYaml(), rerun, dryRun);
  }

  @Test
  @DisplayName(
      "a first submit makes one commit with the run, the queue folders and the cluster roots, readable by git")
  void firstSubmit() throws Exception {
    SubmitResult result = submit(false, T0);
    assertFalse(result.hasErrors(), result.diagnostics().toString());
    assertTrue(result.pushed());
    assertEquals(1, result.attempts());
    String run = result.newRuns().get(0).folder().run();
    assertTrue(run.startsWith("demo-"), run);
    assertEquals(List.of("trainyard submit: " + run), GitCli.log(bare));
    assertEquals(result.commit().orElseThrow(), GitCli.git(bare, "rev-parse", "main").strip());
    GitCli.git(bare, "fsck", "--strict", "--no-dangling");
    List<String> files = GitCli.files(bare);
    assertTrue(
        files.containsAll(
            List.of(
                "clusters/local/kustomization.yaml",
                "clusters/local/default/kustomization.yaml",
                "clusters/local/_cluster/kustomization.yaml",
                "clusters/local/default/_queues/kustomization.yaml",
                "clusters/local/default/" + run + "/jobset-" + run + ".yaml")),
        files.toString());
    assertEquals(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- _cluster\n- default\n",
        GitCli.show(bare, "clusters/local/kustomization.yaml"));
    assertEquals(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- _queues\n- "
            + run
            + "\n",
        GitCli.show(bare, "clusters/local/default/kustomization.yaml"));
    String jobSet = GitCli.show(bare, "clusters/local/default/" + run + "/jobset-" + run + ".yaml");
    assertTrue(jobSet.contains("trainyard.dev/created-at: \"2026-12-01T09:00:00Z\""), jobSet);
  }

  @Test
  @DisplayName(
      "the cluster root builds with kubectl kustomize into the JobSet and the Kueue objects")
  void rootBuilds() throws Exception {
    String run = submit(false, T0).newRuns().get(0).folder().run();
    Path checkout = temp.resolve("checkout");
    GitCli.git(temp, "clone", "-q", bare.toString(), checkout.toString());
    List<String> objects = Kustomize.objects(Kustomize.build(checkout.resolve("clusters/local")));
    assertEquals(
        List.of(
            "ResourceFlavor/default-flavor",
            "ClusterQueue/default",
            "LocalQueue/default",
            "JobSet/" + run),
        objects.stream().sorted((a, b) -> order(a) - order(b)).toList(),
        objects.toString());
  }

  private static int order(String object) {
    return List.of("ResourceFlavor", "ClusterQueue", "LocalQueue", "JobSet")
        .indexOf(object.substring(0, object.indexOf('/')));
  }

  @Test
  @DisplayName(
      "re-submitting the same commit changes nothing: no commit, the run reported as existing")
  void resubmit() throws Exception {
    String first = submit(false, T0).commit().orElseThrow();
    SubmitResult again = submit(false, T0.plusSeconds(60));
    assertFalse(again.hasErrors());
    assertEquals(Optional.empty(), again.commit());
    assertFalse(again.pushed());
    assertEquals(SubmittedRun.Outcome.EXISTS, again.runs().get(0).outcome());
    assertEquals(first, GitCli.git(bare, "rev-parse", "main").strip());
  }

  @Test
  @DisplayName(
      "--rerun takes the next attempt: a new run id, both runs kept and listed in the namespace root")
  void rerun() throws Exception {
    String first = submit(false, T0).newRuns().get(0).folder().run();
    SubmitResult second = submit(true, T0.plusSeconds(60));
    String rerun = second.newRuns().get(0).folder().run();
    assertNotEquals(first, rerun);
    assertEquals(2, GitCli.log(bare).size());
    String root = GitCli.show(bare, "clusters/local/default/kustomization.yaml");
    assertTrue(root.contains("- " + first + "\n") && root.contains("- " + rerun + "\n"), root);
    String third = submit(true, T0.plusSeconds(120)).newRuns().get(0).folder().run();
    assertFalse(List.of(first, rerun).contains(third), "a third attempt gets a third id");
  }

  @Test
  @DisplayName(
      "JGit builds on a commit the git CLI made: the platform.yaml at the GitOps root decides the namespace, other files stay")
  void platformFromGitOpsRepo() throws Exception {
    Path examples = Path.of(System.getProperty("trainyard.repo.root", "..")).resolve("examples");
    GitCli.pushFiles(
        bare,
        temp.resolve("ops"),
        Map.of(
            "README.md",
            "platform repo\n",
            "platform.yaml",
            Files.readString(examples.resolve("platform.yaml"))),
        "platform");
    SubmitResult result = submit(false, T0);
    assertFalse(result.hasErrors(), result.diagnostics().toString());
    RunFolder run = result.newRuns().get(0).folder();
    assertEquals("ml", run.namespace());
    assertEquals("ml", result.newRuns().get(0).job().target().localQueue());
    assertTrue(GitCli.files(bare).contains("README.md"));
    assertEquals(2, GitCli.log(bare).size());
    assertEquals(
        "Test <test@example.com>",
        GitCli.git(bare, "log", "-1", "--format=%an <%ae>", "main").strip(),
        "authored by the source commit's author");
    assertEquals("Trainyard", GitCli.git(bare, "log", "-1", "--format=%cn", "main").strip());
  }

  @Test
  @DisplayName(
      "a namespace the platform does not open to the source repo is refused before any write")
  void refusedByPolicy() throws Exception {
    String platform =
        Files.readString(
                Path.of(System.getProperty("trainyard.repo.root", ".."))
                    .resolve("examples/platform.yaml"))
            .replace("sources: [\"github.com/acme/*\"]", "sources: [\"github.com/other-team/*\"]");
    GitCli.pushFiles(bare, temp.resolve("ops"), Map.of("platform.yaml", platform), "platform");
    String before = GitCli.git(bare, "rev-parse", "main").strip();
    SubmitResult result = submit(false, T0);
    assertTrue(result.hasErrors());
    assertFalse(result.pushed());
    assertTrue(
        result.diagnostics().stream()
            .filter(Diagnostic::isError)
            .anyMatch(d -> d.message().contains("github.com/acme/llm-training")),
        result.diagnostics().toString());
    assertEquals(before, GitCli.git(bare, "rev-parse", "main").strip(), "nothing pushed");
    assertEquals(List.of("platform"), GitCli.log(bare));
  }

  @Test
  @DisplayName(
      "a push that loses the race to a concurrent commit is re-planned on the new tip: both kept, history linear")
  void lostRace() throws Exception {
    GitCli.pushFiles(bare, temp.resolve("ops"), Map.of("README.md", "v1\n"), "first");
    SubmitResult result =
        submit(
            false,
            T0,
            attempt -> {
              if (attempt == 1) {
                GitCli.pushFiles(
                    bare, temp.resolve("ops"), Map.of("NOTES.md", "concurrent\n"), "concurrent");
              }
            });
    assertTrue(result.pushed());
    assertEquals(2, result.attempts());
    assertTrue(GitCli.files(bare).contains("NOTES.md"), "the concurrent commit is kept");
    assertEquals(3, GitCli.log(bare).size());
    assertEquals("", GitCli.git(bare, "rev-list", "--merges", "main").strip(), "no merge commits");
    assertEquals(
        "concurrent",
        GitCli.git(bare, "log", "-1", "--format=%s", "main~1").strip(),
        "the submit sits on top of the concurrent commit");
  }

  @Test
  @DisplayName("--dry-run builds the commit but pushes nothing")
  void dryRun() throws Exception {
    SubmitResult result = submitter(T0).submit(request(false, true));
    assertTrue(result.dryRun());
    assertFalse(result.pushed());
    assertEquals(1, result.newRuns().size());
    assertEquals("", GitCli.git(bare, "for-each-ref").strip(), "the GitOps repo has no branch");
  }

  @Test
  @DisplayName(
      "a dry run and a plan (what a preview builds) write no object into the mirror in the cache; the plan's trees are readable while the repository is open, and a real submit after them stores and pushes")
  void dryRunLeavesTheCacheAsItWas() throws Exception {
    assertTrue(submit(false, T0).pushed());
    Set<String> before = cacheFiles();
    SubmitResult dry = submitter(T0.plusSeconds(60)).submit(request(true, true));
    assertFalse(dry.hasErrors(), dry.diagnostics().toString());
    assertEquals(1, dry.newRuns().size());
    assertEquals(objects(before), objects(cacheFiles()), "objects a dry run wrote into the mirror");
    assertEquals(before, cacheFiles(), "files a dry run left in the cache");

    Submitter submitter = submitter(T0.plusSeconds(120));
    SubmitRequest request = request(true, true);
    try (GitOpsRepository repo = submitter.mirror(request.gitops())) {
      SubmitPlan plan = submitter.plan(request, repo);
      String run = plan.result().newRuns().get(0).folder().run();
      String jobSet = "clusters/local/default/" + run + "/jobset-" + run + ".yaml";
      assertTrue(repo.changedFiles(plan.base(), plan.after()).contains(jobSet), jobSet);
      assertTrue(plan.after().read(jobSet).orElseThrow().contains("name: " + run));
      assertTrue(
          plan.after()
              .folder("clusters/local/default/" + run)
              .containsKey("jobset-" + run + ".yaml"));
      assertTrue(plan.after().hasFolder("clusters/local/default/" + run));
      assertEquals(objects(before), objects(cacheFiles()), "objects a plan wrote into the mirror");
    }
    assertTrue(submit(true, T0.plusSeconds(180)).pushed(), "a real submit after a dry run");
    assertNotEquals(objects(before), objects(cacheFiles()), "a submit stores its objects");
    GitCli.git(bare, "fsck", "--strict");
  }

  /** The files in the fixture's cache (mirrors, their locks), but for the fetch's own records. */
  private Set<String> cacheFiles() throws Exception {
    Set<String> files = new TreeSet<>();
    try (Stream<Path> all = Files.walk(temp.resolve("cache"))) {
      all.filter(Files::isRegularFile)
          .map(p -> temp.resolve("cache").relativize(p).toString())
          .filter(p -> !p.endsWith("FETCH_HEAD") && !p.contains("/logs/"))
          .forEach(files::add);
    }
    assertFalse(objects(files).isEmpty(), "no mirror in the cache");
    return files;
  }

  private static Set<String> objects(Set<String> files) {
    return files.stream()
        .filter(p -> p.contains(".git/objects/"))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  @Test
  @DisplayName(
      "the commit message names the run and links the source commit in trailers, and carries no key material")
  void commitMessage() throws Exception {
    project =
        TrainProject.create(
            temp.resolve("mpi"), "runtime: mpi\nrun: python allreduce.py\nnodes: 2\n");
    SubmitResult result = submit(false, T0);
    assertFalse(result.hasErrors(), result.diagnostics().toString());
    String run = result.newRuns().get(0).folder().run();
    String message = GitCli.git(bare, "log", "-1", "--format=%B", "main");
    String commit = result.newRuns().get(0).job().source().commit();
    assertTrue(message.startsWith("trainyard submit: " + run + "\n"), message);
    assertTrue(message.contains("\nTrainyard-Source-Commit: " + commit + "\n"), message);
    assertTrue(message.contains("\nTrainyard-Source-Repo: " + TrainProject.REMOTE + "\n"), message);
    assertTrue(
        message.contains("\nTrainyard-Run: local/default/" + run + " jobs/demo/train.yaml\n"),
        message);
    assertTrue(message.contains("\nArgocd-reference-commit-sha: " + commit + "\n"), message);
    assertEquals(
        commit,
        GitCli.git(
                bare,
                "log",
                "-1",
                "--format=%(trailers:key=Trainyard-Source-Commit,valueonly)",
                "main")
            .strip());
    String secret =
        GitCli.show(bare, "clusters/local/default/" + run + "/secret-" + run + "-ssh.yaml");
    assertTrue(secret.contains("ssh-privatekey"), "the MPI run has its SSH Secret");
    assertFalse(message.contains("PRIVATE") || message.contains("ssh-privatekey"), message);
  }

  @Test
  @DisplayName("a compile error writes nothing and names the file and line")
  void compileError() throws Exception {
    project = TrainProject.create(temp.resolve("bad"), "run: torchrun train.py\nnodes: 0\n");
    SubmitResult result = submit(false, T0);
    assertTrue(result.hasErrors());
    Diagnostic d =
        result.diagnostics().stream().filter(Diagnostic::isError).findFirst().orElseThrow();
    assertEquals(2, d.location().line());
    assertEquals("/nodes", d.pointer());
    assertEquals("", GitCli.git(bare, "for-each-ref").strip());
  }

  @Test
  @DisplayName(
      "hand-written files and root entries in the GitOps repo survive a submit (nothing Trainyard does not own is lost)")
  void foreignContentKept() throws Exception {
    String k = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n";
    GitCli.pushFiles(
        bare,
        temp.resolve("ops"),
        Map.of(
            "clusters/local/apps/cm.yaml",
            "kind: ConfigMap\n",
            "clusters/local/apps/kustomization.yaml",
            k + "- cm.yaml\n",
            "clusters/local/default/handmade.yaml",
            "kind: ConfigMap\n",
            "clusters/local/default/kustomization.yaml",
            k + "- handmade.yaml\n",
            "clusters/local/kustomization.yaml",
            k + "- apps\n- default\n"),
        "hand");
    String run = submit(false, T0).newRuns().get(0).folder().run();
    List<String> files = GitCli.files(bare);
    assertTrue(
        files.contains("clusters/local/apps/cm.yaml")
            && files.contains("clusters/local/default/handmade.yaml"),
        files.toString());
    assertEquals(
        k + "- _cluster\n- apps\n- default\n",
        GitCli.show(bare, "clusters/local/kustomization.yaml"));
    assertEquals(
        k + "- _queues\n- " + run + "\n- handmade.yaml\n",
        GitCli.show(bare, "clusters/local/default/kustomization.yaml"));
    assertEquals(k + "- cm.yaml\n", GitCli.show(bare, "clusters/local/apps/kustomization.yaml"));
  }

  @Test
  @DisplayName(
      "a hand-written file in a queue folder refuses the submit (E814) instead of deleting it inside the run's commit; nothing is pushed")
  void handWrittenQueueFile() throws Exception {
    submit(false, T0);
    String limitRange = "apiVersion: v1\nkind: LimitRange\nmetadata:\n  name: disk\n";
    GitCli.pushFiles(
        bare,
        temp.resolve("ops"),
        Map.of("clusters/local/default/_queues/limitrange.yaml", limitRange),
        "platform team: a LimitRange");
    List<String> before = GitCli.log(bare);
    SubmitResult result = submit(true, T0.plusSeconds(60));
    assertTrue(result.hasErrors());
    assertEquals(List.of(DiagnosticCode.HAND_WRITTEN_FILE_IN_THE_WAY), codes(result, true));
    assertEquals(
        "clusters/local/default/_queues/limitrange.yaml",
        result.diagnostics().stream()
            .filter(Diagnostic::isError)
            .findFirst()
            .orElseThrow()
            .location()
            .file());
    assertFalse(result.pushed());
    assertEquals(before, GitCli.log(bare));
    assertEquals(limitRange, GitCli.show(bare, "clusters/local/default/_queues/limitrange.yaml"));
  }

  @Test
  @DisplayName(
      "queue files committed with CRLF line ends are still Trainyard's: the next submit rewrites them with LF, no E814")
  void crlfQueueFiles() throws Exception {
    submit(false, T0);
    String lq = "clusters/local/default/_queues/localqueue-default.yaml";
    String text = GitCli.show(bare, lq);
    assertTrue(text.contains("trainyard.dev/platform"), text);
    GitCli.pushFiles(
        bare,
        temp.resolve("ops"),
        Map.of(lq, text.replace("\n", "\r\n")),
        "a Windows editor saved it");
    SubmitResult result = submit(true, T0.plusSeconds(60));
    assertFalse(result.hasErrors(), result.diagnostics().toString());
    assertTrue(result.pushed());
    assertEquals(text, GitCli.show(bare, lq));
  }

  @Test
  @DisplayName(
      "a file where the layout needs a folder refuses the submit (E804) and nothing is pushed")
  void fileInTheWay() throws Exception {
    GitCli.pushFiles(
        bare, temp.resolve("ops"), Map.of("clusters/local/default", "oops\n"), "a file");
    SubmitResult result = submit(false, T0);
    assertTrue(result.hasErrors());
    assertEquals(List.of(DiagnosticCode.GITOPS_FILE_IN_THE_WAY), codes(result, true));
    assertEquals(List.of("a file"), GitCli.log(bare));
  }

  @Test
  @DisplayName(
      "--platform and --runtimes may not override the GitOps repo's own (E805); without any platform.yaml, W806 says the default is used")
  void platformOverride() throws Exception {
    SubmitResult embedded = submit(false, T0);
    assertEquals(List.of(DiagnosticCode.EMBEDDED_PLATFORM), codes(embedded, false));
    Path examples = Path.of(System.getProperty("trainyard.repo.root", "..")).resolve("examples");
    GitCli.pushFiles(
        bare,
        temp.resolve("ops"),
        Map.of(
            "platform.yaml",
            Files.readString(examples.resolve("platform.yaml")),
            "runtimes/README.md",
            "platform runtimes\n"),
        "platform");
    SubmitRequest override =
        new SubmitRequest(
            List.of(project.trainYaml()),
            fixture.location(),
            "main",
            Optional.of(examples.resolve("platform.yaml")),
            Optional.of(temp),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            true,
            false);
    SubmitResult refused = submitter(T0).submit(override);
    assertEquals(
        List.of(DiagnosticCode.PLATFORM_OVERRIDE_REFUSED, DiagnosticCode.PLATFORM_OVERRIDE_REFUSED),
        codes(refused, true));
    WORDING.approve(refused.diagnostics().get(0).message());
    assertFalse(refused.pushed());
  }

  @Test
  @DisplayName(
      "a --branch the repository does not have is a usage error naming its branches; an empty repository takes any")
  void missingBranch() throws Exception {
    submit(false, T0);
    SubmitRequest other =
        new SubmitRequest(
            List.of(project.trainYaml()),
            fixture.location(),
            "mian",
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            false,
            false);
    GitOpsException e =
        Assertions.assertThrows(GitOpsException.class, () -> submitter(T0).submit(other));
    assertTrue(e.isUsage());
    assertTrue(
        e.getMessage().startsWith("--branch \"mian\" does not exist in file:")
            && e.getMessage().endsWith("; it has main"),
        e.getMessage());
    assertEquals("", GitCli.git(bare, "branch", "--list", "mian").strip());
  }

  @Test
  @DisplayName("the same train.yaml named twice (or through a symlinked folder) is one run")
  void duplicateFiles() throws Exception {
    Path again = project.trainYaml().getParent().resolve("./train.yaml");
    Path link = Files.createSymbolicLink(temp.resolve("link"), project.trainYaml().getParent());
    SubmitRequest twice =
        new SubmitRequest(
            List.of(project.trainYaml(), again, link.resolve("train.yaml")),
            fixture.location(),
            "main",
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            false,
            false);
    SubmitResult result = submitter(T0).submit(twice);
    assertEquals(1, result.runs().size());
    assertEquals(
        1,
        GitCli.git(bare, "log", "-1", "--format=%(trailers:key=Trainyard-Run,valueonly)", "main")
            .strip()
            .lines()
            .count());
  }

  private static List<DiagnosticCode> codes(SubmitResult r, boolean errors) {
    return r.diagnostics().stream()
        .filter(d -> d.isError() == errors)
        .map(Diagnostic::code)
        .toList();
  }
}
