package dev.trainyard.compiler.platform;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.secrets.AgeRecipient;
import dev.trainyard.compiler.secrets.SealingCertificate;
import dev.trainyard.compiler.source.ParsedDocument;
import dev.trainyard.compiler.units.Durations;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** Cross-references inside a platform.yaml that JSON Schema cannot express. */
final class PlatformReferences {
  private PlatformReferences() {}

  static List<Diagnostic> check(Platform p, ParsedDocument doc) {
    // An empty `clusters` never gets here: the schema asks for at least one (minItems: 1).
    List<Diagnostic> out = new ArrayList<>();
    Set<String> clusters =
        p.clusters().stream().map(Platform.Cluster::name).collect(Collectors.toSet());
    for (int i = 0; i < p.namespaces().size(); i++) {
      Platform.NamespaceRule ns = p.namespaces().get(i);
      if (!clusters.contains(ns.cluster())) {
        out.add(
            PlatformBinder.invalid(
                    doc,
                    "/namespaces/" + i + "/cluster",
                    "namespace `" + ns.name() + "` names unknown cluster \"" + ns.cluster() + "\"")
                .withHint(
                    "known clusters: " + String.join(", ", clusters.stream().sorted().toList())));
      }
      if (p.localQueue(ns.name(), ns.defaultQueue()).isEmpty()) {
        out.add(
            PlatformBinder.invalid(
                    doc,
                    "/namespaces/" + i + "/defaultQueue",
                    "default queue \""
                        + ns.defaultQueue()
                        + "\" of namespace `"
                        + ns.name()
                        + "` is not a LocalQueue in that namespace")
                .withHint("add it under `queues.localQueues`"));
      }
    }
    checkQueues(p, doc, out);
    checkSecrets(p, doc, out);
    out.addAll(PlatformStatusChecks.check(p.status(), doc));
    checkDurations(doc, out);
    return out;
  }

  /**
   * Durations the schema's pattern admits but {@link Durations} refuses (over 36500d): without this
   * the binder would read them as absent and the default would apply without a word.
   */
  private static void checkDurations(ParsedDocument doc, List<Diagnostic> out) {
    List<String> pointers =
        new ArrayList<>(
            List.of(
                "/status/stallAfter",
                "/status/progress/stallAfter",
                "/status/progress/every",
                "/status/progress/failStalledAfter",
                "/retention/succeeded",
                "/retention/failed"));
    for (int i = 0; i < doc.root().path("namespaces").size(); i++) {
      pointers.add("/namespaces/" + i + "/retention/succeeded");
      pointers.add("/namespaces/" + i + "/retention/failed");
    }
    for (String pointer : pointers) {
      JsonNode node = doc.root().at(pointer);
      if (node.isTextual() && Durations.seconds(node.asText()).isEmpty()) {
        out.add(
            PlatformBinder.invalid(
                    doc,
                    pointer,
                    "`"
                        + pointer.substring(1).replace('/', '.')
                        + "` is "
                        + node.asText()
                        + ", longer than the 36500d (100 years) a duration may be")
                .withHint("write a duration of at most 36500d (876000h)"));
      }
    }
  }

  private static void checkQueues(Platform p, ParsedDocument doc, List<Diagnostic> out) {
    Set<String> flavors =
        p.queues().resourceFlavors().stream()
            .map(Platform.ResourceFlavor::name)
            .collect(Collectors.toSet());
    List<Platform.ClusterQueue> cqs = p.queues().clusterQueues();
    for (int i = 0; i < cqs.size(); i++) {
      for (int j = 0; j < cqs.get(i).flavors().size(); j++) {
        String flavor = cqs.get(i).flavors().get(j).flavor();
        if (!flavors.contains(flavor)) {
          out.add(
              PlatformBinder.invalid(
                  doc,
                  "/queues/clusterQueues/" + i + "/flavors/" + j + "/name",
                  "ClusterQueue `"
                      + cqs.get(i).name()
                      + "` names unknown ResourceFlavor \""
                      + flavor
                      + "\""));
        }
      }
    }
    List<Platform.LocalQueue> lqs = p.queues().localQueues();
    Set<String> namespaces =
        p.namespaces().stream().map(Platform.NamespaceRule::name).collect(Collectors.toSet());
    for (int i = 0; i < lqs.size(); i++) {
      Platform.LocalQueue lq = lqs.get(i);
      var cq = p.clusterQueue(lq.clusterQueue());
      if (cq.isEmpty()) {
        out.add(
            PlatformBinder.invalid(
                doc,
                "/queues/localQueues/" + i + "/clusterQueue",
                "LocalQueue `"
                    + lq.name()
                    + "` names unknown ClusterQueue \""
                    + lq.clusterQueue()
                    + "\""));
      } else if (!cq.get().namespaces().contains("*")
          && !cq.get().namespaces().contains(lq.namespace())) {
        // Kueue admits a workload only if its LocalQueue's namespace matches the ClusterQueue's
        // namespaceSelector.
        out.add(
            PlatformBinder.invalid(
                    doc,
                    "/queues/localQueues/" + i + "/clusterQueue",
                    "LocalQueue `"
                        + lq.name()
                        + "` in namespace `"
                        + lq.namespace()
                        + "` points at ClusterQueue `"
                        + cq.get().name()
                        + "`, whose namespaces ("
                        + String.join(", ", cq.get().namespaces())
                        + ") do not include it, so Kueue would never admit its jobs")
                .withHint("add `" + lq.namespace() + "` to the ClusterQueue's `namespaces`"));
      }
      if (!namespaces.contains(lq.namespace())) {
        out.add(
            PlatformBinder.invalid(
                doc,
                "/queues/localQueues/" + i + "/namespace",
                "LocalQueue `"
                    + lq.name()
                    + "` is in namespace `"
                    + lq.namespace()
                    + "`, which `namespaces` does not declare"));
      }
    }
    duplicates(
        doc,
        out,
        "/clusters",
        p.clusters().stream().map(Platform.Cluster::name).toList(),
        "cluster");
    duplicates(
        doc,
        out,
        "/namespaces",
        p.namespaces().stream().map(n -> n.cluster() + "/" + n.name()).toList(),
        "namespace");
    duplicates(
        doc,
        out,
        "/queues/resourceFlavors",
        p.queues().resourceFlavors().stream().map(Platform.ResourceFlavor::name).toList(),
        "ResourceFlavor");
    duplicates(
        doc,
        out,
        "/queues/clusterQueues",
        cqs.stream().map(Platform.ClusterQueue::name).toList(),
        "ClusterQueue");
    duplicates(
        doc,
        out,
        "/queues/localQueues",
        lqs.stream().map(l -> l.namespace() + "/" + l.name()).toList(),
        "LocalQueue");
  }

  /** Each name of {@code names} (in list order) appears once. */
  private static void duplicates(
      ParsedDocument doc, List<Diagnostic> out, String pointer, List<String> names, String what) {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < names.size(); i++) {
      if (!seen.add(names.get(i))) {
        out.add(
            PlatformBinder.invalid(
                doc, pointer + "/" + i, what + " \"" + names.get(i) + "\" is defined twice"));
      }
    }
  }

  /**
   * Key material given must parse. Whether a policy has what it needs (a certificate, recipients,
   * plain allowed) is checked only when a job needs a Secret (policy stage), so a torch-only
   * platform needs none.
   */
  private static void checkSecrets(Platform p, ParsedDocument doc, List<Diagnostic> out) {
    Platform.SecretsPolicy s = p.secrets();
    s.sealedSecretsCertificate()
        .ifPresent(
            pem ->
                out.addAll(
                    SealingCertificate.parse(
                            pem,
                            doc.map().at("/secrets/sealedSecrets/certificate"),
                            "/secrets/sealedSecrets/certificate")
                        .diagnostics()));
    for (int i = 0; i < s.ageRecipients().size(); i++) {
      String pointer = "/secrets/sopsAge/recipients/" + i;
      out.addAll(
          AgeRecipient.parse(s.ageRecipients().get(i), doc.map().at(pointer), pointer)
              .diagnostics());
    }
  }
}
