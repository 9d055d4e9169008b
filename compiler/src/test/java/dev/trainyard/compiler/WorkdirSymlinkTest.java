package dev.trainyard.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.eclipse.jgit.api.Git;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A workdir that is a symlink out of the repository is refused, like a symlinked train.yaml. */
class WorkdirSymlinkTest {
  @TempDir Path temp;

  @Test
  @DisplayName(
      "workdir through a symlink to a folder outside the repo: E309 at workdir; a real folder in the repo compiles")
  void symlinkOut() throws Exception {
    Path outside = Files.createDirectories(temp.resolve("elsewhere/code"));
    TrainProject p =
        TrainProject.create(temp, "jobs/demo", "run: python t.py\nworkdir: linked\n", Map.of());
    Files.createSymbolicLink(p.trainYaml().getParent().resolve("linked"), outside);
    try (Git git = Git.open(p.root().toFile())) {
      git.add().addFilepattern(".").call();
      var commit =
          git.commit().setMessage("link").setAuthor("T", "t@e").setCommitter("T", "t@e").call();
      var update = git.getRepository().updateRef("refs/remotes/origin/main");
      update.setNewObjectId(commit);
      update.forceUpdate();
    }
    CompileResult r = p.compile();
    Diagnostic d = TrainProject.withCode(r, DiagnosticCode.WORKDIR_OUTSIDE_REPO).get(0);
    assertEquals(2, d.location().line());
    assertTrue(
        d.message().contains("resolves to " + outside.toRealPath() + ", outside the repository"),
        d.message());
    TrainProject inside =
        TrainProject.create(
            temp.resolve("b"),
            "jobs/demo",
            "run: python t.py\nworkdir: code\n",
            Map.of("code/.keep", ""));
    assertFalse(inside.compile().hasErrors(), inside.compile().diagnostics().toString());
  }
}
