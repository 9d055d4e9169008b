package dev.trainyard.gitops.preview;

import static dev.trainyard.gitops.preview.PreviewCases.T1;
import static dev.trainyard.gitops.preview.PreviewCases.T2;
import static dev.trainyard.gitops.preview.PreviewCases.TORCH;
import static dev.trainyard.gitops.preview.PreviewRepos.T0;
import static dev.trainyard.gitops.preview.PreviewRepos.git;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * {@code preview} in a source repo (git CLI history) against a bare GitOps repo (git CLI, then JGit
 * submits).
 */
class SourcePreviewTest {
  @TempDir Path temp;

  private static List<String> sources(Preview p) {
    return p.runs().stream().map(r -> r.shown().sourcePath()).toList();
  }

  @Test
  @DisplayName(
      "a base that is not an ancestor of head: only the train.yaml files the branch changed since the merge base are compiled")
  void baseNotAncestor() throws Exception {
    PreviewCases.SourceSetup s =
        PreviewCases.source(
            temp,
            Map.of("jobs/a/train.yaml", TORCH, "jobs/b/train.yaml", TORCH),
            Map.of("README.md", "ops\n"));
    git(s.source(), T1, "checkout", "-q", "-b", "feature");
    PreviewRepos.commit(
        s.source(),
        Map.of("jobs/a/train.yaml", TORCH.replace("nodes: 2", "nodes: 3")),
        List.of(),
        "a",
        T1);
    git(s.source(), T1, "checkout", "-q", "main");
    PreviewRepos.commit(
        s.source(),
        Map.of(
            "jobs/b/train.yaml", TORCH.replace("nodes: 2", "nodes: 5"), "jobs/c/train.yaml", TORCH),
        List.of(),
        "b",
        T2);
    git(s.source(), T2, "checkout", "-q", "feature");
    Preview p = s.preview(temp.resolve("cache"), Optional.of("main"), List.of());
    assertEquals(List.of("jobs/a/train.yaml"), sources(p));
    assertEquals(3, p.runs().get(0).shown().nodes());
  }

  @Test
  @DisplayName(
      "train.yaml files named on the command line are previewed whatever changed; a deleted train.yaml starts nothing")
  void named() throws Exception {
    PreviewCases.SourceSetup s =
        PreviewCases.source(
            temp,
            Map.of("jobs/a/train.yaml", TORCH, "jobs/b/train.yaml", TORCH),
            Map.of("README.md", "ops\n"));
    PreviewRepos.commit(s.source(), Map.of("README.md", "x\n"), List.of("jobs/b"), "drop b", T1);
    assertTrue(
        s.preview(temp.resolve("cache"), Optional.of("HEAD~1"), List.of()).runs().isEmpty(),
        "a deleted train.yaml is not compiled");
    Preview p =
        s.preview(
            temp.resolve("cache"),
            Optional.of("HEAD~1"),
            List.of(s.source().resolve("jobs/a/train.yaml")));
    assertEquals(List.of("jobs/a/train.yaml"), sources(p));
  }

  @Test
  @DisplayName("the preview pushes nothing: the GitOps repo's branches are unchanged")
  void pushesNothing() throws Exception {
    PreviewCases.SourceSetup s =
        PreviewCases.source(temp, Map.of("jobs/a/train.yaml", TORCH), Map.of("README.md", "ops\n"));
    String before = git(s.gitops(), T0, "for-each-ref");
    PreviewRepos.commit(
        s.source(),
        Map.of("jobs/a/train.yaml", TORCH.replace("nodes: 2", "nodes: 3")),
        List.of(),
        "a",
        T1);
    Preview p = s.preview(temp.resolve("cache"), Optional.of("HEAD~1"), List.of());
    assertEquals(1, p.runs(RunChange.Status.ADDED).size());
    assertEquals(before, git(s.gitops(), T1, "for-each-ref"));
  }

  @Test
  @DisplayName("--head must be the checked-out commit: the files on disk are what is compiled")
  void headNotCheckedOut() {
    PreviewCases.SourceSetup s =
        PreviewCases.source(temp, Map.of("jobs/a/train.yaml", TORCH), Map.of("README.md", "ops\n"));
    PreviewRepos.commit(
        s.source(),
        Map.of("jobs/a/train.yaml", TORCH.replace("nodes: 2", "nodes: 3")),
        List.of(),
        "a",
        T1);
    SourcePreviewRequest r =
        SourcePreviewRequest.builder(s.source(), s.location())
            .base(Optional.of("HEAD~1"))
            .head("HEAD~1")
            .build();
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new SourcePreview(temp.resolve("cache"), Map.of(), Clock.systemUTC()).preview(r));
    assertTrue(e.getMessage().contains("git checkout HEAD~1"), e.getMessage());
  }

  @Test
  @DisplayName(
      "re-previewing a commit whose runs are already in the GitOps repo says merging starts nothing new")
  void alreadySubmitted() throws Exception {
    PreviewCases.SourceSetup s =
        PreviewCases.source(temp, Map.of("jobs/a/train.yaml", TORCH), Map.of("README.md", "ops\n"));
    String run =
        s.submit(temp.resolve("cache"), T0, "jobs/a/train.yaml").newRuns().get(0).folder().run();
    Preview p =
        s.preview(
            temp.resolve("cache"),
            Optional.empty(),
            List.of(s.source().resolve("jobs/a/train.yaml")));
    assertTrue(p.runs().isEmpty());
    assertEquals(
        "`" + run + "` is already in the GitOps repo: merging starts nothing new for it.",
        p.note());
  }

  @Test
  @DisplayName(
      "against a GitOps repo without any commit: the base reads (empty), the run is a first run, nothing is pushed")
  void emptyGitOpsRepo() throws Exception {
    PreviewCases.SourceSetup s =
        PreviewCases.source(temp, Map.of("jobs/a/train.yaml", TORCH), Map.of("README.md", "ops\n"));
    Preview p = againstEmptyGitOps(s.source(), s.source().resolve("jobs/a/train.yaml"));
    assertEquals("GitOps main (empty)", p.base());
    assertEquals(List.of("jobs/a/train.yaml"), sources(p));
    assertEquals(RunChange.Status.ADDED, p.runs().get(0).status());
    assertTrue(p.runs().get(0).previous().isEmpty());
    assertEquals("", git(temp.resolve("empty.git"), T2, "for-each-ref"), "nothing pushed");
  }

  @Test
  @DisplayName(
      "re-previewing a train.yaml whose run ran and was pruned says merging does not start it again")
  void alreadyPruned() throws Exception {
    PreviewCases.SourceSetup s =
        PreviewCases.source(temp, Map.of("jobs/a/train.yaml", TORCH), Map.of("README.md", "ops\n"));
    Path cache = temp.resolve("cache");
    String run = s.submit(cache, T0, "jobs/a/train.yaml").newRuns().get(0).folder().run();
    new Pruner(cache, Map.of(), Clock.fixed(T1, ZoneOffset.UTC))
        .prune(
            new PruneRequest(
                s.location(), "main", List.of(run), Optional.empty(), Optional.empty(), false));
    Preview p =
        s.preview(cache, Optional.empty(), List.of(s.source().resolve("jobs/a/train.yaml")));
    assertTrue(p.runs().isEmpty());
    assertEquals(
        "`"
            + run
            + "` already ran and was pruned: merging does not start it again (`submit --rerun` would).",
        p.note());
  }

  @Test
  @DisplayName(
      "no base and no train.yaml named: the train.yaml at the source folder's root is previewed")
  void defaultTrainYaml() throws Exception {
    PreviewCases.SourceSetup s =
        PreviewCases.source(temp, Map.of("train.yaml", TORCH), Map.of("README.md", "ops\n"));
    Preview p = s.preview(temp.resolve("cache"), Optional.empty(), List.of());
    assertEquals(List.of("train.yaml"), sources(p));
    assertEquals(RunChange.Status.ADDED, p.runs().get(0).status());
  }

  @Test
  @DisplayName(
      "a bare source repo with a base to compare: a usage error, there are no files on disk to compile")
  void bareSourceRepo() {
    PreviewCases.SourceSetup s =
        PreviewCases.source(temp, Map.of("jobs/a/train.yaml", TORCH), Map.of("README.md", "ops\n"));
    PreviewRepos.commit(
        s.source(),
        Map.of("jobs/a/train.yaml", TORCH.replace("nodes: 2", "nodes: 3")),
        List.of(),
        "a",
        T1);
    Path bare = PreviewRepos.bare(s.source(), temp.resolve("source.git"));
    SourcePreviewRequest r =
        SourcePreviewRequest.builder(bare, s.location()).base(Optional.of("HEAD~1")).build();
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new SourcePreview(temp.resolve("cache"), Map.of(), Clock.systemUTC()).preview(r));
    assertEquals("the source repo has no work tree to compile", e.getMessage());
  }

  @Test
  @DisplayName(
      "against a GitOps repo without any commit, a train.yaml with errors: the error is listed, nothing would be submitted, no file changes")
  void emptyGitOpsRepoBrokenTrainYaml() throws Exception {
    PreviewCases.SourceSetup s =
        PreviewCases.source(
            temp,
            Map.of("jobs/a/train.yaml", "run: torchrun train.py\nnodes: 0\n"),
            Map.of("README.md", "ops\n"));
    Preview p = againstEmptyGitOps(s.source(), Path.of("jobs/a/train.yaml"));
    assertEquals("GitOps main (empty)", p.base());
    assertTrue(p.runs().isEmpty());
    assertTrue(p.otherFiles().isEmpty(), p.otherFiles().toString());
    assertEquals(
        List.of("jobs/a/train.yaml:2:8"),
        p.diagnostics().stream()
            .filter(d -> d.isError())
            .map(d -> d.location().file() + ":" + d.location().line() + ":" + d.location().column())
            .toList());
    assertEquals(
        "Nothing would be submitted: a train.yaml has errors (see Diagnostics), and submit writes all runs or none.",
        p.note());
  }

  /**
   * The source preview of {@code trainYaml} in {@code source} against a new, empty bare GitOps
   * repo.
   */
  private Preview againstEmptyGitOps(Path source, Path trainYaml) throws Exception {
    Path empty = temp.resolve("empty.git");
    git(temp, T0, "init", "-q", "--bare", empty.toString());
    SourcePreviewRequest r =
        SourcePreviewRequest.builder(source, GitOpsLocation.parse(empty.toString(), Path.of("")))
            .trainYamls(List.of(trainYaml))
            .build();
    return new SourcePreview(temp.resolve("cache"), Map.of(), Clock.fixed(T2, ZoneOffset.UTC))
        .preview(r);
  }
}
