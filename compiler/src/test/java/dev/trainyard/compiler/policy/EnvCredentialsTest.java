package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.Severity;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** W432: a credential written into plain env is warned at its value, with the Secret form. */
class EnvCredentialsTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  private static final String KEY = "9f2c4e7a1b3d5f6e8a0c2b4d6f8e1a3c5b7d9e0f";
  @TempDir Path dir;

  private List<Diagnostic> w432(String yaml) {
    CompileResult r = TrainProject.create(dir, yaml).compile();
    return r.diagnostics().stream()
        .filter(d -> d.code() == DiagnosticCode.CREDENTIAL_IN_ENV)
        .toList();
  }

  @Test
  @DisplayName(
      "a credential in env is a warning at its value, naming the variable and the secrets: form, never the value")
  void warnedAtValue() {
    List<Diagnostic> found =
        w432("run: python train.py\nenv:\n  WANDB_PROJECT: llama\n  WANDB_API_KEY: " + KEY + "\n");
    assertEquals(1, found.size(), found.toString());
    Diagnostic d = found.get(0);
    assertEquals(Severity.WARNING, d.severity());
    assertEquals(4, d.location().line());
    assertEquals(18, d.location().column());
    assertEquals("/env/WANDB_API_KEY", d.pointer());
    WORDING.approve(d.message());
    assertTrue(
        d.hint().contains("kubectl -n default create secret generic wandb-api-key")
            && d.hint()
                .contains("secrets: [{name: wandb-api-key, key: value, env: WANDB_API_KEY}]"),
        d.hint());
    assertFalse(d.message().contains(KEY) || d.hint().contains(KEY), "the value is never echoed");
  }

  @Test
  @DisplayName("a token shape is warned under any name; references and ordinary values are not")
  void shapesAndReferences() {
    String yaml =
        "run: python train.py\nenv:\n  HUB: hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh\n"
            + "  HF_TOKEN_FILE: /var/run/secrets/hf/token\n  API_TOKEN: $API_TOKEN\n  LR: '0.001'\n";
    List<Diagnostic> found = w432(yaml);
    assertEquals(List.of("/env/HUB"), found.stream().map(Diagnostic::pointer).toList());
    WORDING.approve(found.get(0).message());
  }
}
