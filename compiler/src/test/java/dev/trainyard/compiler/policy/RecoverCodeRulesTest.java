package dev.trainyard.compiler.policy;

import static dev.trainyard.compiler.testing.TrainProject.withCode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.PlatformYaml;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** recoverOnExitCodes that cannot do what was meant (E445, W446, W447) and --fresh alone (W318). */
class RecoverCodeRulesTest {
  @RegisterExtension static final Wording WORDING = new Wording();
  @TempDir Path dir;

  private CompileResult compile(String trainYaml, String namespaceCodes) {
    return TrainProject.create(dir, trainYaml)
        .withPlatform(
            PlatformYaml.base()
                .namespaces(
                    "[{name: team-a, cluster: local, sources: [\"github.com/acme/*\"], defaultQueue:"
                        + " q, checkpoints: {size: 10Gi, accessMode: ReadWriteMany,"
                        + " recoverOnExitCodes: "
                        + namespaceCodes
                        + "}}]")
                .text())
        .compile();
  }

  @Test
  @DisplayName(
      "80, the GPU check's exit, is refused (E445) at its item in train.yaml, and at its line in platform.yaml")
  void gpuCheckCode() {
    CompileResult r =
        compile("run: torchrun t.py\ncheckpoint:\n  recoverOnExitCodes: [75, 80]\n", "[]");
    List<Diagnostic> d = withCode(r, DiagnosticCode.RECOVER_CODE_RESERVED);
    assertEquals(1, d.size(), r.diagnostics().toString());
    assertTrue(r.hasErrors());
    assertEquals("/checkpoint/recoverOnExitCodes/1", d.get(0).pointer());
    assertEquals(3, d.get(0).location().line());
    assertEquals(28, d.get(0).location().column(), "at the 80");
    WORDING.approve(d.get(0));
    CompileResult platform = compile("run: torchrun t.py\ncheckpoint: {}\n", "[80]");
    Diagnostic p = withCode(platform, DiagnosticCode.RECOVER_CODE_RESERVED).get(0);
    assertEquals("/namespaces/0/checkpoints/recoverOnExitCodes/0", p.pointer());
    assertTrue(p.location().file().endsWith("platform.yaml"), p.location().toString());
    assertTrue(p.message().startsWith("recoverOnExitCodes of namespace `team-a` in "), p.message());
    CompileResult plain =
        compile("run: torchrun t.py\ncheckpoint: {recoverOnExitCodes: [75]}\n", "[76]");
    assertFalse(plain.hasErrors(), plain.diagnostics().toString());
    assertEquals(
        List.of(),
        plain.diagnostics().stream().filter(x -> x.code().name().startsWith("RECOVER")).toList());
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(ints = {126, 127, 137, 143})
  @DisplayName(
      "exits a restart does not cure (SIGKILL/OOM 137, SIGTERM 143, bash's 126/127) are warned about (W446), saying why")
  void notCured(int code) {
    CompileResult r =
        compile("run: torchrun t.py\ncheckpoint:\n  recoverOnExitCodes: [" + code + "]\n", "[]");
    List<Diagnostic> d = withCode(r, DiagnosticCode.RECOVER_CODE_NOT_CURED);
    assertEquals(1, d.size(), r.diagnostics().toString());
    assertFalse(r.hasErrors(), r.diagnostics().toString());
    assertEquals(3, d.get(0).location().line());
    assertTrue(d.get(0).message().contains("lists " + code + ", which is "), d.get(0).message());
    WORDING.approve(d.get(0));
  }

  @Test
  @DisplayName(
      "retries: 0 with recover codes: warned (W447) at retries, since the restart rule has no restart left")
  void withoutRetries() {
    CompileResult r =
        compile("run: torchrun t.py\nretries: 0\ncheckpoint:\n  recoverOnExitCodes: [75]\n", "[]");
    List<Diagnostic> d = withCode(r, DiagnosticCode.RECOVER_WITHOUT_RETRIES);
    assertEquals(1, d.size(), r.diagnostics().toString());
    assertEquals("/retries", d.get(0).pointer());
    assertEquals(2, d.get(0).location().line());
    assertTrue(d.get(0).message().contains("[75]"), d.get(0).message());
    WORDING.approve(d.get(0));
    CompileResult platform = compile("run: torchrun t.py\nretries: 0\ncheckpoint: {}\n", "[75]");
    assertEquals(1, withCode(platform, DiagnosticCode.RECOVER_WITHOUT_RETRIES).size());
    CompileResult none = compile("run: torchrun t.py\nretries: 0\ncheckpoint: {}\n", "[]");
    assertEquals(List.of(), withCode(none, DiagnosticCode.RECOVER_WITHOUT_RETRIES));
    CompileResult one =
        compile("run: torchrun t.py\nretries: 1\ncheckpoint: {recoverOnExitCodes: [75]}\n", "[]");
    assertEquals(List.of(), withCode(one, DiagnosticCode.RECOVER_WITHOUT_RETRIES));
  }

  @Test
  @DisplayName(
      "--fresh for a train.yaml without checkpoint: a warning naming the flag (W318); the run still compiles")
  void freshWithoutCheckpoint() {
    CompileResult r = TrainProject.create(dir, "run: torchrun t.py\n").compile(b -> b.fresh(true));
    List<Diagnostic> d = withCode(r, DiagnosticCode.FRESH_WITHOUT_CHECKPOINT);
    assertEquals(1, d.size(), r.diagnostics().toString());
    assertFalse(r.hasErrors());
    assertTrue(r.tree().isPresent(), "compiled");
    assertTrue(d.get(0).message().startsWith("--fresh does nothing here"), d.get(0).message());
    WORDING.approve(d.get(0));
    CompileResult without = TrainProject.create(dir, "run: torchrun t.py\n").compile();
    assertEquals(List.of(), withCode(without, DiagnosticCode.FRESH_WITHOUT_CHECKPOINT));
  }

  @Test
  @DisplayName(
      "only the target namespace's codes count, reported at that namespace's item in platform.yaml")
  void targetNamespaceOnly() {
    CompileResult r =
        TrainProject.create(dir, "run: torchrun t.py\ncheckpoint: {}\n")
            .withPlatform(
                PlatformYaml.base()
                    .namespaces(
                        "[{name: team-b, cluster: local, sources: [\"github.com/acme/*\"],"
                            + " defaultQueue: q, checkpoints: {size: 1Gi, accessMode: ReadWriteMany,"
                            + " recoverOnExitCodes: [80]}},"
                            + " {name: team-a, cluster: local, sources: [\"github.com/acme/*\"],"
                            + " defaultQueue: q, checkpoints: {size: 1Gi, accessMode: ReadWriteMany,"
                            + " recoverOnExitCodes: [75, 137]}}]")
                    .localQueues(
                        "[{name: q, namespace: team-a, clusterQueue: cq},"
                            + " {name: q, namespace: team-b, clusterQueue: cq}]")
                    .text())
            .compile(b -> b.namespace(Optional.of("team-a")));
    assertEquals(List.of(), withCode(r, DiagnosticCode.RECOVER_CODE_RESERVED), "team-b's 80");
    List<Diagnostic> d = withCode(r, DiagnosticCode.RECOVER_CODE_NOT_CURED);
    assertEquals(1, d.size(), r.diagnostics().toString());
    assertEquals("/namespaces/1/checkpoints/recoverOnExitCodes/1", d.get(0).pointer());
  }
}
