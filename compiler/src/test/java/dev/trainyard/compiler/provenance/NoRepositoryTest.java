package dev.trainyard.compiler.provenance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.testing.Wording;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** A train.yaml in no git repository has no commit pods could clone. */
class NoRepositoryTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path temp;

  @Test
  @DisplayName(
      "without overrides, a train.yaml in no git repository is E306 at the file, pointing at --source-repo/--source-commit")
  void notInRepository() throws Exception {
    Path trainYaml = Files.writeString(temp.resolve("train.yaml"), "run: x\n");
    assumeTrue(
        GitSourceInspector.workTreeOf(trainYaml).isEmpty(),
        "NOT RUN: the temporary folder lies inside a git work tree");
    StageResult<SourceInfo> result =
        new GitSourceInspector()
            .inspect(
                trainYaml, "jobs/train.yaml", Optional.empty(), Optional.empty(), Optional.empty());
    assertTrue(result.value().isEmpty());
    assertEquals(
        List.of(
            "jobs/train.yaml E306 jobs/train.yaml is not inside a git repository, so pods have no commit to clone"),
        result.diagnostics().stream()
            .map((Diagnostic d) -> d.location() + " " + d.code().id() + " " + d.message())
            .toList());
    WORDING.approve(result.diagnostics().get(0).hint());
  }

  @Test
  @DisplayName(
      "with --source-repo and --source-commit, a train.yaml in no git repository compiles: its path is taken below the working directory and W315 says the commit was not checked")
  void overridesOutsideRepository() throws Exception {
    Path trainYaml =
        Files.writeString(
            Files.createDirectories(temp.resolve("jobs/a")).resolve("train.yaml"), "run: x\n");
    assumeTrue(
        GitSourceInspector.workTreeOf(trainYaml).isEmpty(),
        "NOT RUN: the temporary folder lies inside a git work tree");
    String sha = "0123456789abcdef0123456789abcdef01234567";
    StageResult<SourceInfo> result =
        new GitSourceInspector()
            .inspect(
                trainYaml,
                "jobs/a/train.yaml",
                Optional.of("https://github.com/acme/x.git"),
                Optional.of(sha),
                Optional.empty(),
                false,
                temp);
    assertEquals("jobs/a/train.yaml", result.value().orElseThrow().trainYamlPath());
    assertEquals(List.of("W315"), result.diagnostics().stream().map(d -> d.code().id()).toList());
  }
}
