package dev.trainyard.controller;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.net.URI;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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

  /**
   * Deactivates through {@code client} the Workloads {@code names} lists for a run: one {@code
   * PATCH} each, nothing read first (fabric8's patch of a named resource GETs it, which the RBAC
   * here does not grant: the informer has it already).
   */
  static RunStopper workloads(KubernetesClient client, Function<RunKey, List<String>> names) {
    System.Logger log = System.getLogger(RunStopper.class.getName());
    HttpClient http = client.getHttpClient();
    String root = client.getMasterUrl().toString().replaceAll("/+$", "");
    return (key, why) -> {
      boolean any = false;
      for (String name : names.apply(key)) {
        HttpRequest patch =
            http.newHttpRequestBuilder()
                .uri(
                    URI.create(
                        root
                            + "/apis/"
                            + ClusterWatch.WORKLOAD_API
                            + "/namespaces/"
                            + key.namespace()
                            + "/workloads/"
                            + name))
                .patch(MERGE_PATCH, DEACTIVATE)
                .build();
        String answer;
        try {
          HttpResponse<String> r = http.sendAsync(patch, String.class).get(30, TimeUnit.SECONDS);
          answer = r.isSuccessful() ? "" : r.code() + " " + r.body();
        } catch (ExecutionException | TimeoutException e) {
          answer = e.toString();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          answer = e.toString();
        }
        any |= answer.isEmpty();
        if (answer.isEmpty()) {
          log.log(
              System.Logger.Level.INFO,
              "run {0}: deactivated its Workload {1}: {2}",
              key.cacheKey(),
              name,
              why);
        } else {
          log.log(
              System.Logger.Level.ERROR,
              "run {0}: cannot deactivate its Workload {1} ({2}): {3}",
              key.cacheKey(),
              name,
              why,
              answer);
        }
      }
      return any;
    };
  }

  /** RFC 7386 JSON merge patch, as the API server names it. */
  String MERGE_PATCH = "application/merge-patch+json";

  /** The patch: Kueue's {@code spec.active} false. */
  String DEACTIVATE = "{\"spec\":{\"active\":false}}";
}
