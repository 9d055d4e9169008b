package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.Severity;
import dev.trainyard.compiler.testing.PlatformYaml;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** An MPI job commits an SSH Secret, so the platform's secrets policy must be usable. */
class SecretsRulesTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  private static final String MPI = "run: python train.py\nruntime: mpi\nnodes: 2\n";
  @TempDir Path temp;
  private int projects;

  private CompileResult compile(String trainYaml, String secrets) {
    return TrainProject.create(temp.resolve("p" + projects++), trainYaml)
        .withPlatform(PlatformYaml.base().secrets(secrets).text())
        .compile();
  }

  private static Diagnostic policyError(CompileResult r) {
    List<Diagnostic> d = TrainProject.withCode(r, DiagnosticCode.SECRETS_POLICY);
    assertEquals(1, d.size(), r.diagnostics().toString());
    assertEquals(Severity.ERROR, d.get(0).severity());
    assertTrue(
        d.get(0).location().file().endsWith("platform.yaml"), d.get(0).location().toString());
    assertEquals(7, d.get(0).location().line());
    assertFalse(r.tree().isPresent());
    return d.get(0);
  }

  @Test
  @DisplayName(
      "policy plain without allowPlain is E407 at platform.yaml secrets.policy for an MPI job")
  void plainWithoutAllow() {
    Diagnostic d = policyError(compile(MPI, "{policy: plain}"));
    WORDING.approve(d.message());
    assertEquals("/secrets/policy", d.pointer());
    WORDING.approve(d.hint());
  }

  @Test
  @DisplayName(
      "policy plain with allowPlain is warning W410 at train.yaml's runtime line, and the run compiles")
  void plainAllowedWarns() {
    CompileResult r = compile(MPI, "{policy: plain, allowPlain: true}");
    List<Diagnostic> d = TrainProject.withCode(r, DiagnosticCode.PLAIN_SECRET_IN_GIT);
    assertEquals(1, d.size(), r.diagnostics().toString());
    assertEquals(Severity.WARNING, d.get(0).severity());
    assertEquals("/runtime", d.get(0).pointer());
    assertEquals(2, d.get(0).location().line());
    WORDING.approve(d.get(0).hint());
    assertTrue(r.tree().isPresent());
  }

  @Test
  @DisplayName(
      "policy sealed-secrets without sealedSecrets.certificate is E407 at platform.yaml secrets")
  void sealedWithoutCertificate() {
    Diagnostic d = policyError(compile(MPI, "{policy: sealed-secrets}"));
    WORDING.approve(d.message());
    assertEquals("/secrets", d.pointer());
    WORDING.approve(d.hint());
  }

  @Test
  @DisplayName("policy sops-age without sopsAge.recipients is E407 at platform.yaml secrets")
  void sopsWithoutRecipients() {
    Diagnostic d = policyError(compile(MPI, "{policy: sops-age}"));
    WORDING.approve(d.message());
    assertEquals("/secrets", d.pointer());
  }

  @Test
  @DisplayName(
      "a job without MPI needs no SSH Secret: an unusable secrets policy is no error for torch")
  void torchIgnoresPolicy() {
    CompileResult r = compile("run: torchrun train.py\n", "{policy: plain}");
    assertEquals(List.of(), TrainProject.withCode(r, DiagnosticCode.SECRETS_POLICY));
    assertEquals(List.of(), TrainProject.withCode(r, DiagnosticCode.PLAIN_SECRET_IN_GIT));
    assertTrue(r.tree().isPresent(), r.diagnostics().toString());
  }
}
