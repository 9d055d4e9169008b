package dev.trainyard.gitops.preview;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A source-repo preview shows the runs that merging submits: the jobs whose folder changed, code
 * included.
 */
class SourcePreviewSelectionTest {
  @TempDir Path temp;

  @Test
  @DisplayName(
      "a pull request that changes only the training code next to a train.yaml previews that job's new run")
  void codeOnlyChange() throws Exception {
    PreviewCases.SourceSetup s =
        PreviewCases.source(
            temp,
            Map.of(
                "jobs/ok/train.yaml",
                PreviewCases.TORCH,
                "jobs/ok/train.py",
                "print(1)\n",
                "jobs/other/train.yaml",
                PreviewCases.TORCH),
            Map.of("README.md", "gitops\n"));
    PreviewRepos.commit(
        s.source(), Map.of("jobs/ok/train.py", "print(2)\n"), List.of(), "code", PreviewCases.T1);
    Preview p = s.preview(temp.resolve("cache"), Optional.of("HEAD~1"), List.of());
    assertEquals(
        List.of("jobs/ok/train.yaml"), p.runs().stream().map(r -> r.shown().sourcePath()).toList());
    assertEquals("", p.note());
  }

  @Test
  @DisplayName(
      "one broken train.yaml does not hide the others: their runs are previewed, the error is listed, and the note says submit writes none")
  void brokenFileKeepsTheOthers() throws Exception {
    PreviewCases.SourceSetup s =
        PreviewCases.source(
            temp,
            Map.of(
                "jobs/ok/train.yaml",
                PreviewCases.TORCH,
                "jobs/bad/train.yaml",
                PreviewCases.TORCH),
            Map.of("README.md", "gitops\n"));
    PreviewRepos.commit(
        s.source(),
        Map.of(
            "jobs/ok/train.py",
            "print(2)\n",
            "jobs/bad/train.yaml",
            "run: torchrun train.py\nnodes: 0\n"),
        List.of(),
        "break one",
        PreviewCases.T1);
    Preview p = s.preview(temp.resolve("cache"), Optional.of("HEAD~1"), List.of());
    assertEquals(
        List.of("jobs/ok/train.yaml"), p.runs().stream().map(r -> r.shown().sourcePath()).toList());
    assertEquals(
        List.of("jobs/bad/train.yaml:2:8"),
        p.diagnostics().stream()
            .filter(d -> d.isError())
            .map(d -> d.location().file() + ":" + d.location().line() + ":" + d.location().column())
            .toList());
    assertEquals(
        "Nothing would be submitted: a train.yaml has errors (see Diagnostics), and submit writes all runs or none.",
        p.note());
  }
}
