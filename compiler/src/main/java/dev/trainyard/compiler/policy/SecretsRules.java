package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.resolve.ResolvedJob;
import java.util.List;

/**
 * An MPI job commits an SSH Secret, so the platform's secrets policy must be usable: {@code plain}
 * only with {@code allowPlain: true} (and then a warning: the key is readable by anyone who reads
 * the GitOps repo), {@code sealed-secrets} with the controller's certificate, {@code sops-age} with
 * recipients.
 */
final class SecretsRules {
  private SecretsRules() {}

  static void check(ResolvedJob job, List<Diagnostic> out) {
    Platform p = job.platform();
    Platform.SecretsPolicy s = p.secrets();
    switch (s.mode()) {
      case PLAIN -> {
        if (!s.allowPlain()) {
          out.add(
              platformError(
                      p,
                      "/secrets/policy",
                      "this MPI job needs an SSH Secret, and secrets policy `plain` needs `allowPlain: true`")
                  .withHint(
                      "plain Secrets put private keys into git in clear text; use `sealed-secrets` or `sops-age`"));
        } else {
          out.add(
              Diagnostic.warning(
                      DiagnosticCode.PLAIN_SECRET_IN_GIT,
                      job.spec().document().map().at("/runtime"),
                      "/runtime",
                      "the SSH private key of this MPI job is written as a plain Secret, readable by anyone who can read the GitOps repo")
                  .withHint(
                      "platform.yaml `secrets.policy: sealed-secrets` or `sops-age` encrypts it"));
        }
      }
      case SEALED_SECRETS -> {
        if (s.sealedSecretsCertificate().isEmpty()) {
          out.add(
              platformError(
                      p,
                      "/secrets",
                      "this MPI job needs an SSH Secret, and secrets policy `sealed-secrets` needs `sealedSecrets.certificate`")
                  .withHint("paste the output of `kubeseal --fetch-cert` into platform.yaml"));
        }
      }
      case SOPS_AGE -> {
        if (s.ageRecipients().isEmpty()) {
          out.add(
              platformError(
                  p,
                  "/secrets",
                  "this MPI job needs an SSH Secret, and secrets policy `sops-age` needs `sopsAge.recipients`"));
        }
      }
    }
  }

  private static Diagnostic platformError(Platform p, String pointer, String message) {
    return Diagnostic.error(DiagnosticCode.SECRETS_POLICY, p.map().at(pointer), pointer, message);
  }
}
