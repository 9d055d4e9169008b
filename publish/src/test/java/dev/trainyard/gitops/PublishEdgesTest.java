package dev.trainyard.gitops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The edges of publishing: retries that give up, platform files from the GitOps repo, records'
 * rules, the run index.
 */
class PublishEdgesTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  static final Instant T0 = Instant.parse("2026-12-01T09:00:00Z");
  @TempDir Path temp;

  GitOpsLocation bare() {
    return GitOpsLocation.parse(GitCli.bare(temp.resolve("gitops.git")).toString(), temp);
  }

  static CommitText text() {
    CommitText.Person p = new CommitText.Person("a", "a@b", T0);
    return new CommitText("s", "", List.of(), p, p);
  }

  /** A random that never pauses, so a test of 40 attempts takes milliseconds. */
  static final RandomGenerator NO_PAUSE = () -> 0L;

  @Test
  @DisplayName(
      "a branch that moves before every push makes the publisher give up after exactly 40 attempts, writing nothing")
  void givesUp() throws Exception {
    GitOpsLocation location = bare();
    AtomicInteger attempts = new AtomicInteger();
    try (GitOpsRepository repo =
        GitOpsRepository.mirror(location, temp.resolve("cache"), Map.of())) {
      Publisher publisher =
          new Publisher(
              repo,
              "main",
              NO_PAUSE,
              attempt -> {
                attempts.set(attempt);
                GitCli.pushFiles(
                    Path.of(URI.create(location.url())),
                    temp.resolve("other"),
                    Map.of("n.txt", "" + attempt),
                    "other " + attempt);
              });
      GitOpsException e =
          assertThrows(
              GitOpsException.class,
              () ->
                  publisher.publish(
                      base ->
                          new Change<>(
                              List.of(new TreeEdit.WriteFile("mine.txt", "x")),
                              Optional.of(text()),
                              List.of(),
                              "s"),
                      false));
      assertEquals(
          "the branch main moved on each of 40 attempts to push; nothing was written",
          e.getMessage());
    }
    assertEquals(Publisher.MAX_ATTEMPTS, attempts.get());
    assertFalse(GitCli.files(Path.of(URI.create(location.url()))).contains("mine.txt"));
  }

  @Test
  @DisplayName("a change with a commit text but no edits, or refused, commits nothing")
  void nothingToCommit() throws Exception {
    try (GitOpsRepository repo = GitOpsRepository.mirror(bare(), temp.resolve("cache"), Map.of())) {
      Publisher publisher = new Publisher(repo, "main");
      var none =
          publisher.publish(
              base -> new Change<>(List.of(), Optional.of(text()), List.of(), "s"), false);
      assertEquals(Optional.empty(), none.commit());
      Diagnostic error =
          Diagnostic.error(DiagnosticCode.UNKNOWN_RUN, SourceLocation.ofFile("x"), "", "no");
      var refused =
          publisher.publish(
              base ->
                  new Change<>(
                      List.of(new TreeEdit.WriteFile("a", "b")),
                      Optional.of(text()),
                      List.of(error),
                      "s"),
              false);
      assertTrue(refused.change().refused());
      assertFalse(refused.pushed());
      assertFalse(
          new Change<>(
                  List.of(),
                  Optional.empty(),
                  List.of(
                      Diagnostic.warning(
                          DiagnosticCode.ALREADY_PRUNED, SourceLocation.ofFile("x"), "", "w")),
                  "s")
              .refused(),
          "a warning refuses nothing");
    }
  }

  @Test
  @DisplayName(
      "runtimes/ of the GitOps repo are compiled with, and a broken platform.yaml there is reported as the GitOps repo's")
  void platformFilesFromRepo() throws Exception {
    GitOpsLocation location = bare();
    Path root = Path.of(System.getProperty("trainyard.repo.root", ".."));
    String runtime =
        Files.readString(root.resolve("runtimes/torch/2.13.0-2/runtime.yaml"))
            .replace("version: 2.13.0-2", "version: 2.14.0-1");
    GitCli.pushFiles(
        Path.of(URI.create(location.url())),
        temp.resolve("ops"),
        Map.of("runtimes/torch/2.14.0-1/runtime.yaml", runtime),
        "runtime");
    TrainProject project =
        TrainProject.create(temp, "run: torchrun train.py\nruntime: torch@2.14.0-1\n");
    SubmitResult ok = submit(location, project);
    assertFalse(ok.hasErrors(), ok.diagnostics().toString());
    assertEquals("torch@2.14.0-1", ok.runs().get(0).job().runtime().ref());
    GitCli.pushFiles(
        Path.of(URI.create(location.url())),
        temp.resolve("ops"),
        Map.of("platform.yaml", "apiVersion: trainyard.dev/v1\nkind: Nope\n"),
        "bad");
    SubmitResult bad = submit(location, project);
    assertTrue(bad.hasErrors());
    assertEquals(
        GitOpsPlatform.DISPLAY,
        bad.diagnostics().stream()
            .filter(Diagnostic::isError)
            .findFirst()
            .orElseThrow()
            .location()
            .file());
  }

  private SubmitResult submit(GitOpsLocation location, TrainProject project)
      throws GitOpsException {
    return new Submitter(temp.resolve("cache"), Map.of(), Clock.fixed(T0, ZoneOffset.UTC))
        .submit(
            new SubmitRequest(
                List.of(project.trainYaml()),
                location,
                "main",
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                true,
                false));
  }

  @Test
  @DisplayName(
      "the commit body has one line per run; several runs share a subject, which is shortened past 72 characters")
  void messageLines() throws Exception {
    GitOpsLocation location = bare();
    TrainProject project = TrainProject.create(temp, "run: torchrun train.py\nnodes: 2\n");
    String run = submit(location, project).runs().get(0).folder().run();
    Path bare = Path.of(URI.create(location.url()));
    String body = GitCli.git(bare, "log", "-1", "--format=%b", "main");
    assertTrue(body.startsWith(run + ": 2 node(s) x "), body);
    assertTrue(
        body.contains(
            ", runtime torch@2.13.0-2, queue default in local/default, from jobs/demo/train.yaml\n"),
        body);
    List<SubmittedRun> two = List.of(fake("a-1"), fake("b-2"));
    assertEquals("trainyard submit: a-1, b-2", SubmitMessage.subject(two));
    List<SubmittedRun> many =
        IntStream.range(0, 9).mapToObj(i -> fake("long-job-name-" + i)).toList();
    assertEquals("trainyard submit: 9 runs (long-job-name-0, ...)", SubmitMessage.subject(many));
  }

  private static SubmittedRun fake(String run) {
    return new SubmittedRun(
        new RunFolder("c", "n", run), "train.yaml", SubmittedRun.Outcome.NEW, null);
  }

  @Test
  @DisplayName(
      "a source commit the source repo does not have gives no author: the committer authors, no author trailers")
  void unknownSourceAuthor() throws Exception {
    GitOpsLocation location = bare();
    TrainProject project = TrainProject.create(temp, "run: torchrun train.py\n");
    SubmitRequest r =
        new SubmitRequest(
            List.of(project.trainYaml()),
            location,
            "main",
            Optional.empty(),
            Optional.empty(),
            Optional.of("https://github.com/acme/x.git"),
            Optional.of("0123456789abcdef0123456789abcdef01234567"),
            Optional.empty(),
            Optional.empty(),
            false,
            false);
    SubmitResult result =
        new Submitter(
                temp.resolve("cache"),
                Map.of(
                    "TRAINYARD_GIT_COMMITTER_NAME",
                    "CI Bot",
                    "TRAINYARD_GIT_COMMITTER_EMAIL",
                    "ci@x"),
                Clock.fixed(T0, ZoneOffset.UTC))
            .submit(r);
    assertTrue(result.pushed(), result.diagnostics().toString());
    Path bare = Path.of(URI.create(location.url()));
    assertEquals(
        "CI Bot <ci@x> / CI Bot",
        GitCli.git(bare, "log", "-1", "--format=%an <%ae> / %cn", "main").strip());
    assertFalse(GitCli.git(bare, "log", "-1", "--format=%B", "main").contains("-Author:"));
    assertEquals(
        Optional.empty(),
        SourceAuthor.of(
            temp.resolve("nowhere/train.yaml"), "0123456789abcdef0123456789abcdef01234567"));
  }

  @Test
  @DisplayName(
      "the run index finds runs by layout only, skips _ and . folders, and reads provenance only when asked")
  void runIndex() {
    MapSnapshot tree =
        ClusterRootsTest.tree(
            "clusters/a/ns/r1/kustomization.yaml",
            "clusters/a/ns/_queues/k",
            "clusters/a/.git/x/y",
            "clusters/b/ns/r2/jobset-r2.yaml=metadata:\n  annotations:\n    trainyard.dev/created-at: \"2026-01-01T00:00:00Z\"\n",
            "clusters/b/ns/r3/jobset-r3.yaml=metadata:\n  annotations:\n    trainyard.dev/created-at: yesterday\n",
            "clusters/a/ns/file.yaml");
    RunIndex index = new RunIndex(tree);
    assertEquals(
        List.of(
            new RunFolder("a", "ns", "r1"),
            new RunFolder("b", "ns", "r2"),
            new RunFolder("b", "ns", "r3")),
        index.runs());
    assertEquals(List.of(new RunFolder("a", "ns", "r1")), index.runs("a"));
    assertTrue(index.has(new RunFolder("b", "ns", "r2")));
    assertFalse(index.has(new RunFolder("b", "ns", "r9")));
    assertEquals(Map.of(), index.provenance(new RunFolder("a", "ns", "r1")), "no JobSet file");
    assertEquals(
        Optional.of(Instant.parse("2026-01-01T00:00:00Z")),
        index.createdAt(new RunFolder("b", "ns", "r2")));
    assertEquals(
        Optional.empty(),
        index.createdAt(new RunFolder("b", "ns", "r3")),
        "an unreadable time is no time");
    assertTrue(tree.hasFolder("clusters") && !tree.hasFolder("nope"));
  }

  @Test
  @DisplayName("pruned-runs.txt ignores blank lines and is written sorted with LF")
  void prunedRuns() {
    MapSnapshot tree = ClusterRootsTest.tree("clusters/c/pruned-runs.txt=b/r2\n\n  \na/r1\n");
    assertEquals(List.of("a/r1", "b/r2"), List.copyOf(PrunedRuns.of(tree, "c")));
    assertEquals("a/r1\nb/r2\n", PrunedRuns.text(new TreeSet<>(List.of("b/r2", "a/r1"))));
  }

  @Test
  @DisplayName(
      "records refuse what cannot be: no train.yaml, both or neither of run names and an age, a two-line subject")
  void recordRules() {
    GitOpsLocation l = GitOpsLocation.parse("https://h/x.git", temp);
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new SubmitRequest(
                List.of(),
                l,
                "main",
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                false,
                false));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new PruneRequest(
                l, "main", List.of("a"), Optional.of(Duration.ofDays(1)), Optional.empty(), false));
    assertThrows(
        IllegalArgumentException.class,
        () -> new PruneRequest(l, "main", List.of(), Optional.empty(), Optional.empty(), false));
    CommitText.Person p = new CommitText.Person("a", "b", T0);
    assertThrows(
        IllegalArgumentException.class, () -> new CommitText("two\nlines", "", List.of(), p, p));
    assertEquals("s\n", new CommitText("s", " ", List.of(), p, p).message());
    assertEquals(
        "s\n\nbody\n\nK: v\n", new CommitText("s", "body\n", List.of("K: v"), p, p).message());
    GitOpsException plain = new GitOpsException("m", "h");
    assertFalse(plain.isUsage());
    assertEquals("h", plain.hint());
    assertTrue(GitOpsException.usage("m", "h").isUsage());
    assertEquals(
        "https://h/x.git",
        GitOpsLocation.parse("https://h:65535/x.git", temp).shown().replace(":65535", ""));
  }

  @Test
  @DisplayName("a submit result counts only NEW runs as new")
  void newRuns() {
    SubmittedRun fresh = fake("a-1");
    SubmittedRun exists =
        new SubmittedRun(new RunFolder("c", "n", "b-2"), "t", SubmittedRun.Outcome.EXISTS, null);
    assertEquals(
        List.of(fresh),
        new SubmitResult(List.of(fresh, exists), List.of(), Optional.empty(), false, 1, false)
            .newRuns());
  }

  @Test
  @DisplayName(
      "prune's hint lists only runs of the same job; a name that was never pruned is E801 even if others were")
  void pruneHints() throws Exception {
    MapSnapshot tree =
        ClusterRootsTest.tree(
            "clusters/c/ns/train-aaaaaa/k",
            "clusters/c/ns/train-bbbbbb/k",
            "clusters/c/ns/other-cccccc/k",
            "clusters/c/pruned-runs.txt=ns/train-dddddd\n");
    Pruner pruner = new Pruner(temp, Map.of(), Clock.fixed(T0, ZoneOffset.UTC));
    Change<List<RunFolder>> change =
        pruner.plan(
            new PruneRequest(
                GitOpsLocation.parse("https://h/x.git", temp),
                "main",
                List.of("train-eeeeee"),
                Optional.empty(),
                Optional.of("c"),
                false),
            tree);
    assertEquals(
        List.of(DiagnosticCode.UNKNOWN_RUN),
        change.diagnostics().stream().map(Diagnostic::code).toList());
    WORDING.approve(change.diagnostics().get(0).hint());
    Change<List<RunFolder>> pruned =
        pruner.plan(
            new PruneRequest(
                GitOpsLocation.parse("https://h/x.git", temp),
                "main",
                List.of("train-dddddd", "other-cccccc"),
                Optional.empty(),
                Optional.of("c"),
                false),
            tree);
    assertEquals(
        List.of(DiagnosticCode.ALREADY_PRUNED),
        pruned.diagnostics().stream().map(Diagnostic::code).toList());
    assertEquals(List.of(new RunFolder("c", "ns", "other-cccccc")), pruned.summary());
    assertEquals(3, pruned.edits().size() + 1, "delete the folder, rewrite pruned-runs.txt");
  }

  @Test
  @DisplayName(
      "roots: edits outside clusters/ touch no root; a folder deleted and re-created stays listed; dot-folders are never listed")
  void rootEdges() {
    MapSnapshot base =
        ClusterRootsTest.tree(
            "clusters/c/ns/r/kustomization.yaml",
            "clusters/c/ns/kustomization.yaml=apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- r\n",
            "clusters/c/kustomization.yaml=apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- ns\n",
            "clusters/c/ns/.hidden/kustomization.yaml");
    assertEquals(
        List.of(),
        ClusterRoots.after(
                base,
                List.of(
                    new TreeEdit.WriteFile("README.md", "x"),
                    new TreeEdit.WriteFile("clusters/x.txt", "y")))
            .edits());
    assertEquals(
        List.of(),
        ClusterRoots.after(
                base,
                List.of(
                    new TreeEdit.DeleteFolder("clusters/c/ns/r"),
                    new TreeEdit.ReplaceFolder(
                        "clusters/c/ns/r", new TreeMap<>(Map.of("kustomization.yaml", "k")))))
            .edits(),
        "nothing changed");
    assertEquals(
        List.of(),
        ClusterRoots.after(base, List.of(new TreeEdit.WriteFile("clusters/c/notes.txt", "x")))
            .edits(),
        "a file in the cluster folder changes no root");
  }
}
