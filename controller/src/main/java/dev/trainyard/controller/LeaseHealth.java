package dev.trainyard.controller;

import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Whether the Lease election works, for {@code /readyz} and the log: a replica is ready once it
 * leads or has seen another replica lead (a standby); until then it answers 503, so a controller
 * that can never take its Lease (namespace missing, RBAC) does not look healthy while it posts
 * nothing. The reason comes from a server-side dry-run create of the Lease ({@code dryRun=All}:
 * nothing is stored), which fails with the same error fabric8's elector keeps to itself
 * ("namespaces \"x\" not found", "cannot create resource leases"). Each distinct reason is logged
 * once, at most {@link #MAX_REASONS}.
 */
final class LeaseHealth {

  /** Distinct reasons logged at most, so a flapping API cannot flood the log. */
  static final int MAX_REASONS = 20;

  private final String identity;
  private final Consumer<String> log;
  private final Set<String> logged = new LinkedHashSet<>();
  private volatile String leader = "";
  private volatile String reason = "campaigning for the Lease";

  LeaseHealth(String identity, Consumer<String> log) {
    this.identity = identity;
    this.log = log;
  }

  /** fabric8's new-leader callback: {@code who} holds the Lease (possibly this replica). */
  void leader(String who) {
    leader = who == null ? "" : who;
  }

  /** "" when ready (leading, or another replica is known to lead), else why not. */
  String notReady(boolean leading) {
    return leading || !leader.isEmpty() ? "" : "no leader: " + reason;
  }

  /** Records and logs (once) why the Lease cannot be taken. */
  synchronized void failed(String why) {
    reason = why;
    if (!logged.contains(why) && logged.size() < MAX_REASONS) {
      logged.add(why);
      log.accept(why);
    }
  }

  /**
   * While no leader is known, asks the API server whether this replica could create the Lease at
   * all.
   */
  void probe(KubernetesClient client, LeaseElection.Settings s, boolean leading) {
    if (!notReady(leading).isEmpty()) {
      try {
        client
            .resource(
                new LeaseBuilder()
                    .withNewMetadata()
                    .withName(s.leaseName())
                    .withNamespace(s.namespace())
                    .endMetadata()
                    .withNewSpec()
                    .withHolderIdentity(identity)
                    .endSpec()
                    .build())
            .dryRun()
            .create();
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) { // 409: the Lease exists, fabric8 will see its holder
          failed("cannot take Lease " + s.namespace() + "/" + s.leaseName() + ": " + why(e));
        }
      }
    }
  }

  private static String why(KubernetesClientException e) {
    if (e.getCode() == 403) {
      return ClusterErrors.forbidden(e)
          + " (check the Role and RoleBinding trainyard-controller-leader-election)";
    }
    if (e.getCode() == 404) {
      return (e.getStatus() == null ? "not found" : e.getStatus().getMessage())
          + " (--lease-namespace, default $POD_NAMESPACE)";
    }
    return e.getCode() > 0 ? "HTTP " + e.getCode() : ClusterErrors.unreachable(e, "the API server");
  }
}
