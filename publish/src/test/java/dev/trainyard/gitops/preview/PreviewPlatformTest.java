package dev.trainyard.gitops.preview;

import static dev.trainyard.gitops.preview.PreviewRepos.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.gitops.GitOpsRepository;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which platform.yaml a preview reads: an override, else the GitOps tree's own. */
class PreviewPlatformTest {
  @TempDir Path temp;

  @Test
  @DisplayName(
      "--platform wins over the tree's platform.yaml (read relative to the working directory); without it the tree's is read")
  void overrideWins() throws Exception {
    Path work = PreviewRepos.init(temp.resolve("gitops"));
    PreviewRepos.commit(work, Map.of("platform.yaml", PreviewCases.EXAMPLE), List.of(), "p", T0);
    Files.writeString(temp.resolve("queues.yaml"), PreviewCases.QUEUES, StandardCharsets.UTF_8);
    try (GitOpsRepository repo = GitOpsRepository.local(work)) {
      StageResult<Platform> override =
          PreviewPlatform.load(Optional.of(Path.of("queues.yaml")), temp, repo.snapshot("HEAD"));
      assertEquals(List.of(), override.diagnostics());
      assertEquals(
          List.of("prod"),
          override.value().orElseThrow().clusters().stream().map(Platform.Cluster::name).toList());
      StageResult<Platform> tree =
          PreviewPlatform.load(Optional.empty(), temp, repo.snapshot("HEAD"));
      assertEquals(
          List.of("local"),
          tree.value().orElseThrow().clusters().stream().map(Platform.Cluster::name).toList());
    }
  }
}
