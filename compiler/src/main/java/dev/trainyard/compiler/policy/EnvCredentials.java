package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.resolve.ResolvedJob;
import dev.trainyard.compiler.secrets.CredentialPatterns;
import dev.trainyard.compiler.source.SourceMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * W432 at each {@code env} value that looks like a credential ({@link CredentialPatterns}): plain
 * env lands in the GitOps repo as text and in every preview, where a Secret reference would not.
 * The hint is the {@code secrets:} entry that replaces it and the command that creates the Secret;
 * the value itself is never repeated.
 *
 * <pre>
 * train.yaml:4:18: warning[W432]: `env.WANDB_API_KEY` looks like a credential: its name says …
 *     hint: keep it in a Secret: kubectl -n team-a create secret generic wandb-api-key …
 * </pre>
 */
final class EnvCredentials {
  private EnvCredentials() {}

  static List<Diagnostic> check(ResolvedJob job) {
    List<Diagnostic> out = new ArrayList<>();
    for (Map.Entry<String, String> e : job.command().env().entrySet()) {
      Optional<String> why = CredentialPatterns.match(e.getKey(), e.getValue());
      why.ifPresent(reason -> out.add(warning(job, e.getKey(), reason)));
    }
    return out;
  }

  private static Diagnostic warning(ResolvedJob job, String name, String reason) {
    String pointer = SourceMap.child("/env", name);
    String secret = name.toLowerCase(Locale.ROOT).replace('_', '-').replaceAll("^-+|-+$", "");
    return Diagnostic.warning(
            DiagnosticCode.CREDENTIAL_IN_ENV,
            job.spec().document().map().at(pointer),
            pointer,
            "`env."
                + name
                + "` looks like a credential ("
                + reason
                + "); plain env is committed as text to the GitOps repo")
        .withHint(
            "keep it in a Secret: `kubectl -n "
                + job.target().namespace()
                + " create secret generic "
                + secret
                + " --from-literal=value=…`, then replace the env entry with `secrets: [{name: "
                + secret
                + ", key: value, env: "
                + name
                + "}]`");
  }
}
