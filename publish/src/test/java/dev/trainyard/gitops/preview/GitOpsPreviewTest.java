package dev.trainyard.gitops.preview;

import static dev.trainyard.gitops.preview.PreviewCases.EXAMPLE;
import static dev.trainyard.gitops.preview.PreviewCases.T1;
import static dev.trainyard.gitops.preview.PreviewCases.T2;
import static dev.trainyard.gitops.preview.PreviewCases.TORCH;
import static dev.trainyard.gitops.preview.PreviewRepos.T0;
import static dev.trainyard.gitops.preview.PreviewRepos.git;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.gitops.GitOpsException;
import dev.trainyard.gitops.GitOpsLocation;
import dev.trainyard.gitops.PruneRequest;
import dev.trainyard.gitops.Pruner;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code preview} in a GitOps repository, on histories made by the git CLI and by JGit (submit,
 * prune).
 */
class GitOpsPreviewTest {
  @TempDir Path temp;

  private Map<String, String> run(String folder, char commit) {
    return PreviewRepos.compile(temp, folder, TORCH, EXAMPLE, PreviewRepos.sha(commit), T0, 1);
  }

  private static List<String> runs(Preview p, RunChange.Status status) {
    return p.runs(status).stream().map(r -> r.folder().run()).toList();
  }

  @Test
  @DisplayName(
      "a base that is not an ancestor of head: only what the branch changes since the merge base, not the base's newer runs as removed")
  void baseNotAncestor() throws Exception {
    Map<String, String> a = run("jobs/a", '1');
    Map<String, String> b = run("jobs/b", '2');
    Map<String, String> c = run("jobs/c", '3');
    Path work = PreviewRepos.init(temp.resolve("gitops"));
    String fork =
        PreviewRepos.commit(
            work, PreviewCases.files(Map.of("platform.yaml", EXAMPLE), a), List.of(), "a", T0);
    git(work, T0, "checkout", "-q", "-b", "feature");
    PreviewRepos.commit(work, b, List.of(), "b", T1);
    git(work, T1, "checkout", "-q", "main");
    String tip = PreviewRepos.commit(work, c, List.of(), "c", T2);
    git(work, T2, "checkout", "-q", "feature");
    Preview p = GitOpsPreview.of(work, "main", "HEAD", Optional.empty());
    assertEquals(
        List.of(
            PreviewCases.runFolder(b).substring(PreviewCases.runFolder(b).lastIndexOf('/') + 1)),
        runs(p, RunChange.Status.ADDED));
    assertEquals(
        List.of(), runs(p, RunChange.Status.REMOVED), "c is the base's, not removed by the branch");
    assertEquals(
        "main @ " + tip.substring(0, 12) + " (merge base " + fork.substring(0, 12) + ")", p.base());
    assertEquals("HEAD @ " + git(work, T2, "rev-parse", "HEAD").strip().substring(0, 12), p.head());
  }

  @Test
  @DisplayName("unrelated histories (no merge base): the two trees are compared as they are")
  void unrelated() throws Exception {
    Map<String, String> a = run("jobs/a", '1');
    Map<String, String> b = run("jobs/b", '2');
    Path work = PreviewRepos.init(temp.resolve("gitops"));
    PreviewRepos.commit(
        work, PreviewCases.files(Map.of("platform.yaml", EXAMPLE), a), List.of(), "a", T0);
    git(work, T1, "checkout", "-q", "--orphan", "other");
    git(work, T1, "rm", "-r", "-q", "--cached", ".");
    git(work, T1, "clean", "-fdq");
    PreviewRepos.commit(
        work, PreviewCases.files(Map.of("platform.yaml", EXAMPLE), b), List.of(), "b", T1);
    Preview p = GitOpsPreview.of(work, "main", "other", Optional.empty());
    assertEquals(1, p.runs(RunChange.Status.ADDED).size());
    assertEquals(1, p.runs(RunChange.Status.REMOVED).size());
    assertFalse(p.base().contains("merge base"), p.base());
  }

  @Test
  @DisplayName(
      "JGit history: runs committed by submit show as added, a prune as removed; the git CLI clone is read")
  void jgitHistory() throws Exception {
    PreviewCases.SourceSetup s =
        PreviewCases.source(
            temp,
            Map.of(
                "jobs/a/train.yaml",
                TORCH,
                "jobs/b/train.yaml",
                "runtime: mpi\nrun: python x.py\nnodes: 2\n"),
            Map.of("README.md", "ops\n"));
    Path cache = temp.resolve("cache");
    String runA = s.submit(cache, T0, "jobs/a/train.yaml").newRuns().get(0).folder().run();
    String runB = s.submit(cache, T1, "jobs/b/train.yaml").newRuns().get(0).folder().run();
    new Pruner(cache, Map.of(), Clock.fixed(T2, ZoneOffset.UTC))
        .prune(
            new PruneRequest(
                GitOpsLocation.parse(s.gitops().toString(), Path.of("")),
                "main",
                List.of(runA),
                Optional.empty(),
                Optional.empty(),
                false));
    Path clone = temp.resolve("clone");
    git(temp, T2, "clone", "-q", s.gitops().toString(), clone.toString());
    Preview second = GitOpsPreview.of(clone, "HEAD~2", "HEAD~1", Optional.empty());
    assertEquals(List.of(runB), runs(second, RunChange.Status.ADDED));
    assertTrue(
        second.runs().get(0).objects().stream()
            .anyMatch(o -> o.secret() == ObjectChange.SecretForm.PLAIN));
    Preview pruned = GitOpsPreview.of(clone, "HEAD~1", "HEAD", Optional.empty());
    assertEquals(List.of(runA), runs(pruned, RunChange.Status.REMOVED));
    assertTrue(
        pruned.otherFiles().contains("clusters/local/pruned-runs.txt"),
        pruned.otherFiles().toString());
    assertEquals("jobs/a/train.yaml", pruned.runs().get(0).shown().sourcePath());
  }

  @Test
  @DisplayName("two commits with the same tree: an empty preview that says so")
  void sameTree() throws Exception {
    Path work = PreviewRepos.init(temp.resolve("gitops"));
    PreviewRepos.commit(work, Map.of("platform.yaml", EXAMPLE), List.of(), "one", T0);
    PreviewRepos.commit(work, Map.of(), List.of(), "empty", T1);
    Preview p = GitOpsPreview.of(work, "HEAD~1", "HEAD", Optional.empty());
    assertEquals("The two commits have the same tree: merging changes nothing.", p.note());
    assertTrue(MarkdownPreview.whole(p).contains(p.note()));
    assertFalse(p.refused());
  }

  @Test
  @DisplayName("a broken platform.yaml in head is a diagnostic, and the preview still comes out")
  void brokenPlatform() throws Exception {
    Path work = PreviewRepos.init(temp.resolve("gitops"));
    PreviewRepos.commit(work, Map.of("README.md", "x\n"), List.of(), "one", T0);
    PreviewRepos.commit(
        work,
        Map.of("platform.yaml", "apiVersion: trainyard.dev/v1\nkind: Platform\nclusters: 3\n"),
        List.of(),
        "broken",
        T1);
    Preview p = GitOpsPreview.of(work, "HEAD~1", "HEAD", Optional.empty());
    assertTrue(p.refused());
    assertEquals("platform.yaml (GitOps repo)", p.diagnostics().get(0).location().file());
    assertEquals(List.of("platform.yaml"), p.otherFiles());
  }

  @Test
  @DisplayName("an unknown revision or a folder without a repository is an environment error")
  void environment() throws Exception {
    Path work = PreviewRepos.init(temp.resolve("gitops"));
    PreviewRepos.commit(work, Map.of("README.md", "x\n"), List.of(), "one", T0);
    GitOpsException e =
        assertThrows(
            GitOpsException.class,
            () -> GitOpsPreview.of(work, "no-such-branch", "HEAD", Optional.empty()));
    assertTrue(e.getMessage().contains("no-such-branch"), e.getMessage());
    assertThrows(
        GitOpsException.class,
        () -> GitOpsPreview.of(temp.resolve("nothing"), "HEAD~1", "HEAD", Optional.empty()));
  }

  @Test
  @DisplayName(
      "a pull request that changes platform.yaml, or only adds a runtime, gets the platform section even when no quota changes")
  void platformSectionWithoutQuotaChange() throws Exception {
    Preview platform =
        PreviewCases.gitOps(
            temp.resolve("platform"),
            Map.of("platform.yaml", EXAMPLE),
            Map.of("platform.yaml", EXAMPLE + "# reviewed\n"),
            List.of());
    assertEquals(Optional.of(new PlatformChange(List.of(), 0)), platform.platform());
    Preview runtime =
        PreviewCases.gitOps(
            temp.resolve("runtime"),
            Map.of("platform.yaml", EXAMPLE),
            Map.of("runtimes/torch/2.14.0-1/runtime.yaml", PreviewCases.torch214()),
            List.of());
    assertEquals(Optional.of(new PlatformChange(List.of(), 0)), runtime.platform());
    Preview readme =
        PreviewCases.gitOps(
            temp.resolve("readme"),
            Map.of("platform.yaml", EXAMPLE),
            Map.of("README.md", "ops\n"),
            List.of());
    assertEquals(Optional.empty(), readme.platform());
  }
}
