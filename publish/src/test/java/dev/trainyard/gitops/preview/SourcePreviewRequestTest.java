package dev.trainyard.gitops.preview;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.trainyard.gitops.GitOpsLocation;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@link SourcePreviewRequest.Builder}: its defaults, and each setter reaching its component. */
class SourcePreviewRequestTest {
  static final Path SOURCE = Path.of("/src");
  static final GitOpsLocation GITOPS =
      GitOpsLocation.parse("https://git.example.com/platform/gitops.git", SOURCE);

  @Test
  @DisplayName("defaults: no files named, no base, HEAD, branch main, nothing overridden")
  void defaults() {
    assertEquals(
        new SourcePreviewRequest(
            SOURCE,
            List.of(),
            Optional.empty(),
            "HEAD",
            GITOPS,
            "main",
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty()),
        SourcePreviewRequest.builder(SOURCE, GITOPS).build());
  }

  @Test
  @DisplayName("every setter sets its own component; a null head or branch is refused")
  void everySetter() {
    SourcePreviewRequest r =
        SourcePreviewRequest.builder(SOURCE, GITOPS)
            .trainYamls(List.of(Path.of("a/train.yaml")))
            .base(Optional.of("origin/main"))
            .head("abc123")
            .branch("runs")
            .platform(Optional.of(Path.of("p.yaml")))
            .runtimes(Optional.of(Path.of("rt")))
            .sourceRepo(Optional.of("https://github.com/acme/x.git"))
            .cluster(Optional.of("east"))
            .namespace(Optional.of("team-a"))
            .build();
    assertEquals(
        new SourcePreviewRequest(
            SOURCE,
            List.of(Path.of("a/train.yaml")),
            Optional.of("origin/main"),
            "abc123",
            GITOPS,
            "runs",
            Optional.of(Path.of("p.yaml")),
            Optional.of(Path.of("rt")),
            Optional.of("https://github.com/acme/x.git"),
            Optional.of("east"),
            Optional.of("team-a")),
        r);
    assertThrows(
        NullPointerException.class,
        () -> SourcePreviewRequest.builder(SOURCE, GITOPS).head(null).build());
    assertThrows(
        NullPointerException.class,
        () -> SourcePreviewRequest.builder(SOURCE, GITOPS).branch(null).build());
  }
}
