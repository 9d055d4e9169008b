package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileRequest;
import dev.trainyard.compiler.CompileResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.eclipse.jgit.api.Git;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code examples/*} is a real training repo that compiles with zero diagnostics against the
 * example platform ({@code examples/platform.yaml}, which seals SSH keys, so MPI examples get no
 * plain-Secret warning).
 */
class ExamplesCompileTest {
  static final Path EXAMPLES =
      Path.of(System.getProperty("trainyard.repo.root", "..")).resolve("examples");

  @TempDir Path temp;

  @TestFactory
  @DisplayName("every example compiles with zero diagnostics, errors or warnings")
  Stream<DynamicTest> examples() throws IOException {
    try (Stream<Path> dirs = Files.list(EXAMPLES)) {
      return dirs
          .filter(d -> Files.isRegularFile(d.resolve("train.yaml")))
          .sorted()
          .toList()
          .stream()
          .map(d -> DynamicTest.dynamicTest(d.getFileName().toString(), () -> compiles(d)));
    }
  }

  @Test
  @DisplayName(
      "examples/pytorch-ddp (2 nodes, checkpoint:) compiles on the embedded default platform too: its ReadWriteOnce claim serves a one-node cluster's every pod (sameNode)")
  void ddpOnDefaultPlatform() throws Exception {
    CompileResult result = compile(EXAMPLES.resolve("pytorch-ddp"), Optional.empty());
    assertTrue(!result.hasErrors(), GoldenCasesTest.printed(result));
    Map<String, String> files = result.tree().orElseThrow().files();
    String claim =
        files.entrySet().stream()
            .filter(e -> e.getKey().contains("/persistentvolumeclaim-"))
            .findFirst()
            .orElseThrow()
            .getValue();
    assertTrue(claim.contains("- ReadWriteOnce") && claim.contains("storage: 10Gi"), claim);
    String jobSet =
        files.entrySet().stream()
            .filter(e -> e.getKey().contains("/jobset-"))
            .findFirst()
            .orElseThrow()
            .getValue();
    assertTrue(jobSet.contains("completions: 2"), "2 nodes: " + jobSet);
  }

  private void compiles(Path example) throws Exception {
    CompileResult result = compile(example, Optional.of(EXAMPLES.resolve("platform.yaml")));
    assertEquals(
        "", GoldenCasesTest.printed(result), example + " must compile without diagnostics");
    assertTrue(result.tree().isPresent());
    assertTrue(
        result.tree().get().files().keySet().stream().anyMatch(f -> f.contains("/jobset-")),
        "a JobSet is emitted");
  }

  /**
   * {@code example} committed as a pushed repo, compiled with {@code platform} (else the default).
   */
  private CompileResult compile(Path example, Optional<Path> platform) throws Exception {
    Path repo = temp.resolve(example.getFileName().toString());
    GoldenCase.copyTree(example, repo);
    try (Git git = Git.init().setDirectory(repo.toFile()).setInitialBranch("main").call()) {
      git.getRepository()
          .getConfig()
          .setString(
              "remote",
              "origin",
              "url",
              "https://github.com/acme/" + example.getFileName() + ".git");
      git.getRepository().getConfig().save();
      git.add().addFilepattern(".").call();
      var commit =
          git.commit()
              .setMessage("example")
              .setAuthor("Ex", "ex@example.com")
              .setCommitter("Ex", "ex@example.com")
              .call();
      // As after a push: origin/main has the commit, so pods can clone it (no W316).
      var pushed = git.getRepository().updateRef("refs/remotes/origin/main");
      pushed.setNewObjectId(commit);
      pushed.forceUpdate();
    }
    CompileRequest request = CompileRequest.of(repo.resolve("train.yaml"));
    request =
        CompileRequest.builder(request.trainYaml())
            .displayPath(request.displayPath())
            .platformFile(platform)
            .runtimesDir(request.runtimesDir())
            .sourceRepo(request.sourceRepo())
            .sourceCommit(request.sourceCommit())
            .cluster(request.cluster())
            .namespace(request.namespace())
            .existingTree(request.existingTree())
            .createdAt(Optional.empty())
            .platformDisplay(Optional.empty())
            .build();
    return GoldenCasesTest.compiler().compile(request);
  }
}
