package dev.trainyard.compiler.provenance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.eclipse.jgit.api.Git;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The commit pods clone: a repository without one, and --source-commit values that are no full SHA.
 */
class SourceCommitTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  private static final String SHA = "0123456789abcdef0123456789abcdef01234567";
  @TempDir Path temp;

  private static StageResult<SourceInfo> inspect(
      Path trainYaml, Optional<String> repo, Optional<String> commit) {
    return new GitSourceInspector()
        .inspect(trainYaml, "train.yaml", repo, commit, Optional.empty());
  }

  private static List<Diagnostic> notCommitted(StageResult<SourceInfo> r) {
    assertTrue(r.value().isEmpty());
    return r.diagnostics().stream()
        .filter(d -> d.code() == DiagnosticCode.SOURCE_NOT_COMMITTED)
        .toList();
  }

  @Test
  @DisplayName(
      "a repository with a remote but no commit yet is E305 'no commit yet' at train.yaml, with a hint")
  void noCommit() throws Exception {
    Path work = temp.resolve("src");
    Path trainYaml = work.resolve("train.yaml");
    Files.createDirectories(work);
    Files.writeString(trainYaml, "run: x\n");
    try (Git git = Git.init().setDirectory(work.toFile()).setInitialBranch("main").call()) {
      git.getRepository().getConfig().setString("remote", "origin", "url", TrainProject.REMOTE);
      git.getRepository().getConfig().save();
    }
    List<Diagnostic> d =
        notCommitted(inspect(trainYaml, Optional.empty(), Optional.empty())).stream()
            .filter(x -> x.message().equals("the git repository has no commit yet"))
            .toList();
    assertEquals(1, d.size(), d.toString());
    assertEquals(SourceLocation.ofFile("train.yaml"), d.get(0).location());
    WORDING.approve(d.get(0).hint());
    assertTrue(d.get(0).isError());
  }

  @ParameterizedTest(name = "\"{0}\"")
  @ValueSource(
      strings = {
        "main",
        "HEAD",
        "0123456",
        "0123456789ABCDEF0123456789ABCDEF01234567",
        "0123456789abcdef0123456789abcdef0123456"
      })
  @DisplayName(
      "--source-commit that is not a full lower-case 40-hex SHA is E305, with or without --source-repo")
  void notASha(String commit) {
    TrainProject p = TrainProject.create(temp, "run: x\n");
    for (Optional<String> repo :
        List.of(Optional.<String>empty(), Optional.of(TrainProject.REMOTE))) {
      List<Diagnostic> d = notCommitted(inspect(p.trainYaml(), repo, Optional.of(commit)));
      assertEquals(1, d.size(), d.toString());
      assertEquals(
          (commit.length() == 40
                  ? "--source-commit must be written in lower case, as git prints it, got \""
                  : "--source-commit must be a full 40-character commit SHA, got \"")
              + commit
              + "\"",
          d.get(0).message(),
          "an upper-case SHA is not blamed on its length");
      WORDING.approve(d.get(0).hint());
    }
  }

  @Test
  @DisplayName(
      "--source-repo with a full --source-commit gives exactly that repo, commit and the path in the work tree")
  void bothOverrides() {
    TrainProject p = TrainProject.create(temp, "run: x\n");
    SourceInfo info =
        inspect(p.trainYaml(), Optional.of("https://gitlab.com/acme/x.git"), Optional.of(SHA))
            .value()
            .orElseThrow();
    assertEquals(
        new SourceInfo("https://gitlab.com/acme/x.git", SHA, "jobs/demo/train.yaml"), info);
  }
}
