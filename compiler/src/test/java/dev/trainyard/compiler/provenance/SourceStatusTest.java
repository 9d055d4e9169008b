package dev.trainyard.compiler.provenance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jgit.api.Git;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Which local changes count as "not committed", and which remote is the clone URL. */
class SourceStatusTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path temp;

  private static StageResult<SourceInfo> inspect(Path trainYaml, Optional<Path> ignored) {
    return new GitSourceInspector()
        .inspect(trainYaml, "train.yaml", Optional.empty(), Optional.empty(), ignored);
  }

  private static String notCommitted(StageResult<SourceInfo> r) {
    List<Diagnostic> d =
        r.diagnostics().stream()
            .filter(x -> x.code() == DiagnosticCode.SOURCE_NOT_COMMITTED)
            .toList();
    assertEquals(1, d.size(), r.diagnostics().toString());
    WORDING.approve(d.get(0).hint());
    WORDING.approve(d.get(0).hint());
    return d.get(0).message();
  }

  private static void write(Path file) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, "x\n");
  }

  @Test
  @DisplayName("up to 3 uncommitted files are all named; a 4th is counted and shown as '…'")
  void listsThree() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: x\n");
    Path dir = p.trainYaml().getParent();
    for (String f : List.of("a.py", "b.py", "c.py")) {
      write(dir.resolve(f));
    }
    assertEquals(
        "3 file(s) next to train.yaml are not committed (jobs/demo/a.py, jobs/demo/b.py, jobs/demo/c.py); pods would run"
            + " the committed version, not yours",
        notCommitted(inspect(p.trainYaml(), Optional.empty())));
    write(dir.resolve("d.py"));
    assertEquals(
        "4 file(s) next to train.yaml are not committed (jobs/demo/a.py, jobs/demo/b.py, jobs/demo/c.py, …); pods would run"
            + " the committed version, not yours",
        notCommitted(inspect(p.trainYaml(), Optional.empty())));
  }

  @Test
  @DisplayName(
      "only train.yaml's folder counts: a change in another folder of the repo is no error")
  void otherFolderIgnored() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: x\n");
    write(p.root().resolve("jobs/other/x.py"));
    assertFalse(inspect(p.trainYaml(), Optional.empty()).failed());
  }

  @Test
  @DisplayName("train.yaml at the repo root: every change in the repo counts")
  void rootCountsAll() throws Exception {
    TrainProject p = TrainProject.create(temp, "", "run: x\n", Map.of());
    write(p.root().resolve("lib/x.py"));
    assertEquals(
        "1 file(s) next to train.yaml are not committed (lib/x.py); pods would run the committed version, not yours",
        notCommitted(inspect(p.trainYaml(), Optional.empty())));
  }

  @Test
  @DisplayName(
      "the ignored output folder hides its own files only, not a sibling whose name starts the same")
  void ignoredFolderExactly() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: x\n");
    Path dir = p.trainYaml().getParent();
    write(dir.resolve("gitops/clusters/a.yaml"));
    write(dir.resolve("gitops-notes/b.md"));
    assertEquals(
        "1 file(s) next to train.yaml are not committed (jobs/demo/gitops-notes/b.md); pods would run the committed version,"
            + " not yours",
        notCommitted(inspect(p.trainYaml(), Optional.of(dir.resolve("gitops")))));
  }

  @Test
  @DisplayName(
      "without origin, the only remote is the clone URL; with two other remotes both are named and none is chosen")
  void remotes() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: x\n");
    try (Git git = Git.open(p.root().toFile())) {
      var config = git.getRepository().getConfig();
      config.unsetSection("remote", "origin");
      config.setString("remote", "upstream", "url", "https://gitlab.com/acme/up.git");
      config.save();
    }
    assertEquals(
        "https://gitlab.com/acme/up.git",
        inspect(p.trainYaml(), Optional.empty()).value().orElseThrow().repoUrl());
    try (Git git = Git.open(p.root().toFile())) {
      git.getRepository()
          .getConfig()
          .setString("remote", "fork", "url", "https://gitlab.com/me/up.git");
      git.getRepository().getConfig().save();
    }
    StageResult<SourceInfo> none = inspect(p.trainYaml(), Optional.empty());
    assertTrue(
        none.diagnostics().stream()
            .anyMatch(
                d ->
                    d.message()
                        .equals(
                            "the git repository has 2 remotes and none is named origin:"
                                + " fork (https://gitlab.com/me/up.git), upstream (https://gitlab.com/acme/up.git)")),
        none.diagnostics().toString());
  }
}
