package dev.trainyard.compiler.provenance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.trainyard.compiler.CompileRequest;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A train.yaml symlinked out of its repository is refused before it is read, so nothing it points
 * at is quoted.
 */
class RepositoryBoundaryTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  private static final String TOKEN = "ghp_LEAKEDTOKEN999";
  @TempDir Path temp;

  private static CompileResult compile(Path trainYaml) {
    return new Compiler(new SshSecretProvider(TrainProject.seeded(), Clock.systemUTC()))
        .compile(CompileRequest.of(trainYaml));
  }

  @Test
  @DisplayName(
      "a symlink to a credentials file outside the repo: only E305 at the file, the target's text in no diagnostic")
  void credentialsFileNeverQuoted() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: torchrun train.py\n");
    Path secret =
        Files.writeString(
            temp.resolve("git-credentials"), "https://x-access-token:" + TOKEN + "@github.com\n");
    Path link = Files.createDirectories(p.root().resolve("l1")).resolve("train.yaml");
    Files.createSymbolicLink(link, secret);
    CompileResult r = compile(link);
    assertEquals(
        List.of(DiagnosticCode.SOURCE_NOT_COMMITTED),
        r.diagnostics().stream().map(Diagnostic::code).toList(),
        r.diagnostics().toString());
    Diagnostic d = r.diagnostics().get(0);
    WORDING.approve(d.message());
    assertEquals(link.toString(), d.location().file());
    assertFalse(r.diagnostics().toString().contains(TOKEN));
    assertFalse(r.tree().isPresent());
  }

  @Test
  @DisplayName(
      "a symlinked folder leading out of the repo is refused the same way; a symlink inside the repo and a file outside any repo pass")
  void folderLinksAndNoRepo() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: torchrun train.py\n");
    Path outside = Files.createDirectories(temp.resolve("elsewhere"));
    Files.writeString(outside.resolve("train.yaml"), "run: echo " + TOKEN + "\nnodes: [\n");
    Files.createSymbolicLink(p.root().resolve("linked"), outside);
    assertEquals(
        List.of(DiagnosticCode.SOURCE_NOT_COMMITTED),
        compile(p.root().resolve("linked/train.yaml")).diagnostics().stream()
            .map(Diagnostic::code)
            .toList());
    Files.createSymbolicLink(p.root().resolve("same"), p.trainYaml().getParent());
    assertEquals(
        List.of(),
        RepositoryBoundary.check(p.root().resolve("same/train.yaml"), "same/train.yaml"));
    assertEquals(
        List.of(),
        RepositoryBoundary.check(outside.resolve("train.yaml"), "train.yaml"),
        "no work tree: a local file of one's own");
    assertEquals(
        List.of(),
        RepositoryBoundary.check(p.root().resolve("missing/train.yaml"), "train.yaml"),
        "missing: the reader says so");
  }
}
