package dev.trainyard.compiler.platform;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.platform.Platform.SecretsMode;
import dev.trainyard.compiler.secrets.AgeRecipient;
import dev.trainyard.compiler.secrets.SealingCertificate;
import dev.trainyard.compiler.source.ParsedDocument;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** Cross-references inside a platform.yaml that JSON Schema cannot express. */
final class PlatformReferences {
  private PlatformReferences() {}

  static List<Diagnostic> check(Platform p, ParsedDocument doc) {
    List<Diagnostic> out = new ArrayList<>();
    if (p.clusters().isEmpty()) {
      out.add(PlatformBinder.invalid(doc, "/clusters", "`clusters` must name at least one cluster"));
    }
    Set<String> clusters = p.clusters().stream().map(Platform.Cluster::name).collect(Collectors.toSet());
    for (int i = 0; i < p.namespaces().size(); i++) {
      Platform.NamespaceRule ns = p.namespaces().get(i);
      if (!clusters.contains(ns.cluster())) {
        out.add(PlatformBinder.invalid(doc, "/namespaces/" + i + "/cluster", "namespace `" + ns.name() + "` names unknown cluster \"" + ns.cluster() + "\"")
            .withHint("known clusters: " + String.join(", ", clusters.stream().sorted().toList())));
      }
      if (p.localQueue(ns.name(), ns.defaultQueue()).isEmpty()) {
        out.add(PlatformBinder.invalid(doc, "/namespaces/" + i + "/defaultQueue",
            "default queue \"" + ns.defaultQueue() + "\" of namespace `" + ns.name() + "` is not a LocalQueue in that namespace")
            .withHint("add it under `queues.localQueues`"));
      }
    }
    checkQueues(p, doc, out);
    checkSecrets(p, doc, out);
    return out;
  }

  private static void checkQueues(Platform p, ParsedDocument doc, List<Diagnostic> out) {
    Set<String> flavors = p.queues().resourceFlavors().stream().map(Platform.ResourceFlavor::name).collect(Collectors.toSet());
    List<Platform.ClusterQueue> cqs = p.queues().clusterQueues();
    for (int i = 0; i < cqs.size(); i++) {
      for (int j = 0; j < cqs.get(i).flavors().size(); j++) {
        String flavor = cqs.get(i).flavors().get(j).flavor();
        if (!flavors.contains(flavor)) {
          out.add(PlatformBinder.invalid(doc, "/queues/clusterQueues/" + i + "/flavors/" + j + "/name",
              "ClusterQueue `" + cqs.get(i).name() + "` names unknown ResourceFlavor \"" + flavor + "\""));
        }
      }
    }
    List<Platform.LocalQueue> lqs = p.queues().localQueues();
    for (int i = 0; i < lqs.size(); i++) {
      if (p.clusterQueue(lqs.get(i).clusterQueue()).isEmpty()) {
        out.add(PlatformBinder.invalid(doc, "/queues/localQueues/" + i + "/clusterQueue",
            "LocalQueue `" + lqs.get(i).name() + "` names unknown ClusterQueue \"" + lqs.get(i).clusterQueue() + "\""));
      }
    }
  }

  private static void checkSecrets(Platform p, ParsedDocument doc, List<Diagnostic> out) {
    Platform.SecretsPolicy s = p.secrets();
    if (s.mode() == SecretsMode.PLAIN && !s.allowPlain()) {
      out.add(PlatformBinder.invalid(doc, "/secrets/policy", "secrets policy `plain` needs `allowPlain: true`")
          .withHint("plain Secrets put private keys into git in clear text; use `sealed-secrets` or `sops-age`"));
    }
    if (s.mode() == SecretsMode.SEALED_SECRETS && s.sealedSecretsCertificate().isEmpty()) {
      out.add(PlatformBinder.invalid(doc, "/secrets", "secrets policy `sealed-secrets` needs `sealedSecrets.certificate`")
          .withHint("paste the output of `kubeseal --fetch-cert`"));
    }
    s.sealedSecretsCertificate().ifPresent(pem -> out.addAll(
        SealingCertificate.parse(pem, doc.map().at("/secrets/sealedSecrets/certificate"), "/secrets/sealedSecrets/certificate").diagnostics()));
    if (s.mode() == SecretsMode.SOPS_AGE && s.ageRecipients().isEmpty()) {
      out.add(PlatformBinder.invalid(doc, "/secrets", "secrets policy `sops-age` needs `sopsAge.recipients`"));
    }
    for (int i = 0; i < s.ageRecipients().size(); i++) {
      String pointer = "/secrets/sopsAge/recipients/" + i;
      out.addAll(AgeRecipient.parse(s.ageRecipients().get(i), doc.map().at(pointer), pointer).diagnostics());
    }
  }
}
