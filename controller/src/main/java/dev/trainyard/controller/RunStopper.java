package dev.trainyard.controller;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.List;
import java.util.function.Function;

/**
 * Stops a run the controller failed while its pods still run (a stall past platform.yaml's {@code
 * status.progress.failStalledAfter}) by deactivating its Kueue Workload: a JSON merge patch {@code
 * {"spec":{"active":false}}}, Kueue's own way to stop a workload for good (Kueue's API,
 * apis/kueue/v1beta2/workload_types.go, {@code WorkloadSpec.Active}: "false: indicates that a
 * workload should never be admitted and evicts running workloads"; the same field Kueue sets itself
 * at its requeuing limit). Kueue then suspends the JobSet, which deletes its pods; nothing
 * re-creates them, and the JobSet stays in the cluster (and the GitOps repo) as it was, so Argo CD
 * or Flux see no drift: {@code spec.suspend} is Kueue's, never in git. A JobSet has no "fail now"
 * of its own, and deleting it would let the sync tool create it again. Needs {@code patch} on
 * {@code workloads.kueue.x-k8s.io} ({@code controller/deploy/rbac-stop-stalled.yaml}, checked at
 * start by {@link AccessCheck}); a run without a Workload (no Kueue) is failed on the commit only.
 */
interface RunStopper {

  /** Stops nothing. */
  RunStopper NONE = (key, why) -> false;

  /**
   * Asks the cluster to stop {@code key}'s run; whether a Workload was deactivated. Never throws
   * for the API server's refusals (logged).
   */
  boolean stop(RunKey key, String why);

  /** Deactivates through {@code client} the Workloads {@code names} lists for a run. */
  static RunStopper workloads(KubernetesClient client, Function<RunKey, List<String>> names) {
    System.Logger log = System.getLogger(RunStopper.class.getName());
    return (key, why) -> {
      boolean any = false;
      for (String name : names.apply(key)) {
        try {
          GenericKubernetesResource patched =
              client
                  .genericKubernetesResources(ClusterWatch.WORKLOAD_API, "Workload")
                  .inNamespace(key.namespace())
                  .withName(name)
                  .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"active\":false}}");
          any |= patched != null;
          log.log(
              System.Logger.Level.INFO,
              "run {0}: deactivated its Workload {1}: {2}",
              key.cacheKey(),
              name,
              why);
        } catch (KubernetesClientException e) {
          log.log(
              System.Logger.Level.ERROR,
              "run {0}: cannot deactivate its Workload {1} ({2}): {3}",
              key.cacheKey(),
              name,
              why,
              e.getMessage());
        }
      }
      return any;
    };
  }
}
