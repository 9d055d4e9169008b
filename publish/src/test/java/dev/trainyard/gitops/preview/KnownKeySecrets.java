package dev.trainyard.gitops.preview;

import dev.trainyard.compiler.CompileRequest;
import dev.trainyard.compiler.SshSecretSource;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.manifest.Manifest;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.render.RenderServices;
import dev.trainyard.compiler.resolve.ResolvedJob;
import dev.trainyard.compiler.secrets.AgeRecipient;
import dev.trainyard.compiler.secrets.PlainSecretSealer;
import dev.trainyard.compiler.secrets.SealedSecretSealer;
import dev.trainyard.compiler.secrets.SealingCertificate;
import dev.trainyard.compiler.secrets.SecretSealer;
import dev.trainyard.compiler.secrets.SopsAgeSealer;
import dev.trainyard.compiler.secrets.SshKeyGenerator;
import dev.trainyard.compiler.secrets.SshKeyPair;
import dev.trainyard.compiler.secrets.UnsealedSecret;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

/**
 * The compile's SSH secret source with key material the test knows: one fresh key pair (the
 * compiler's own generator), sealed with the compiler's own sealer for the platform's policy, so a
 * leak test can search the preview for exactly that key.
 */
final class KnownKeySecrets implements SshSecretSource {
  private final SshKeyPair keys =
      new SshKeyGenerator(new SecureRandom()).generate("trainyard@leak-test");

  SshKeyPair keys() {
    return keys;
  }

  @Override
  public StageResult<RenderServices> forRun(CompileRequest request, ResolvedJob job) {
    RenderServices services =
        (namespace, name, labels, annotations) ->
            Manifest.of(
                sealer(job.platform().secrets())
                    .seal(
                        new UnsealedSecret(
                            namespace,
                            name,
                            "kubernetes.io/ssh-auth",
                            labels,
                            annotations,
                            Map.of(
                                "ssh-privatekey",
                                keys.privateKeyOpenSsh(),
                                "ssh-publickey",
                                keys.publicKeyAuthorized()),
                            true)));
    return StageResult.of(services, List.of());
  }

  private static SecretSealer sealer(Platform.SecretsPolicy policy) {
    SourceLocation at = SourceLocation.ofFile("platform.yaml");
    return switch (policy.mode()) {
      case PLAIN -> new PlainSecretSealer();
      case SEALED_SECRETS ->
          new SealedSecretSealer(
              SealingCertificate.parse(
                      policy.sealedSecretsCertificate().orElseThrow(), at, "/secrets")
                  .value()
                  .orElseThrow(),
              new SecureRandom());
      case SOPS_AGE ->
          new SopsAgeSealer(
              policy.ageRecipients().stream()
                  .map(r -> AgeRecipient.parse(r, at, "/secrets").value().orElseThrow())
                  .toList(),
              new SecureRandom(),
              Clock.fixed(PreviewRepos.T0, ZoneOffset.UTC));
    };
  }
}
