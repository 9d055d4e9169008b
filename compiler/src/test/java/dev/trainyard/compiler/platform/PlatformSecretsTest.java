package dev.trainyard.compiler.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.testing.CompileCall;
import dev.trainyard.compiler.testing.PlatformYaml;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Key material in platform.yaml must parse, even for a torch job that needs no Secret; and a
 * cluster list must exist.
 */
class PlatformSecretsTest {
  @TempDir Path temp;
  private int projects;

  private CompileResult compile(String platformYaml) {
    Path dir = temp.resolve("p" + projects++);
    TrainProject p = TrainProject.create(dir, "run: torchrun train.py\n");
    return CompileCall.of(p.trainYaml()).platformText(dir, platformYaml).compile();
  }

  private static List<Diagnostic> errors(CompileResult r) {
    assertFalse(r.tree().isPresent(), r.diagnostics().toString());
    return r.diagnostics().stream().filter(Diagnostic::isError).toList();
  }

  @Test
  @DisplayName(
      "a sealed-secrets certificate that is no PEM certificate is an error at the certificate, for any job")
  void badCertificate() {
    List<Diagnostic> d =
        errors(
            compile(
                PlatformYaml.base()
                    .secrets("{policy: sealed-secrets, sealedSecrets: {certificate: not-a-pem}}")
                    .text()));
    assertEquals(1, d.size(), d.toString());
    assertEquals("/secrets/sealedSecrets/certificate", d.get(0).pointer());
    assertEquals(7, d.get(0).location().line());
  }

  @Test
  @DisplayName(
      "an age recipient that does not decode is an error at that recipient's index; the first, valid one is not")
  void badRecipient() {
    String good = "age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p";
    List<Diagnostic> d =
        errors(
            compile(
                PlatformYaml.base()
                    .secrets("{policy: sops-age, sopsAge: {recipients: [" + good + ", age1xyz]}}")
                    .text()));
    assertEquals(1, d.size(), d.toString());
    assertEquals("/secrets/sopsAge/recipients/1", d.get(0).pointer());
  }

  @Test
  @DisplayName("a platform with no clusters is refused")
  void noClusters() {
    List<Diagnostic> d =
        errors(
            compile(
                PlatformYaml.base()
                    .text()
                    .replace("clusters: [{name: local, domain: cluster.local}]", "clusters: []")));
    assertTrue(d.stream().anyMatch(x -> x.pointer().equals("/clusters")), d.toString());
  }
}
