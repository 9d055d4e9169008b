package dev.trainyard.gitops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.secrets.SshKeyGenerator;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code submit} runs the leak check on what it commits: a key anywhere but an allowed plain Secret
 * refuses it.
 */
class SubmitLeakCheckTest {
  @TempDir Path temp;

  private SubmitResult submit(String trainYaml) throws GitOpsException {
    Path bare = GitCli.bare(temp.resolve("gitops.git"));
    TrainProject project = TrainProject.create(temp, trainYaml);
    SubmitRequest request =
        new SubmitRequest(
            List.of(project.trainYaml()),
            GitOpsLocation.parse(bare.toString(), Path.of("")),
            "main",
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            false,
            false);
    return new Submitter(
            temp.resolve("cache"),
            Map.of(),
            Clock.fixed(Instant.parse("2026-12-01T09:00:00Z"), ZoneOffset.UTC))
        .submit(request);
  }

  @Test
  @DisplayName(
      "a private key pasted into an env value (base64) refuses the submit with E809 at the JobSet's line; nothing is pushed")
  void keyInEnvRefused() throws Exception {
    String key = new SshKeyGenerator(new SecureRandom()).generate("pasted").privateKeyOpenSsh();
    String b64 = Base64.getEncoder().encodeToString(key.getBytes(StandardCharsets.UTF_8));
    SubmitResult result = submit("run: python train.py\nenv:\n  DEPLOY_KEY: " + b64 + "\n");
    assertTrue(result.hasErrors());
    assertFalse(result.pushed());
    Diagnostic d =
        result.diagnostics().stream()
            .filter(x -> x.code() == DiagnosticCode.PRIVATE_KEY_IN_TREE)
            .findFirst()
            .orElseThrow();
    assertTrue(
        d.location()
            .file()
            .matches("clusters/local/default/demo-[0-9a-f]+/jobset-demo-[0-9a-f]+\\.yaml"),
        d.location().toString());
    assertTrue(d.location().line() > 0);
    assertFalse(d.message().contains(b64.substring(40, 60)), d.message());
    assertEquals("", GitCli.git(temp.resolve("gitops.git"), "for-each-ref").strip());
  }

  @Test
  @DisplayName(
      "an MPI run's SSH Secret under the embedded default (plain allowed in local/default) passes the check")
  void allowedPlainSecretPasses() throws Exception {
    SubmitResult result = submit("runtime: mpi\nrun: ./a.out\nnodes: 2\n");
    assertFalse(result.hasErrors(), result.diagnostics().toString());
    assertTrue(result.pushed());
  }
}
