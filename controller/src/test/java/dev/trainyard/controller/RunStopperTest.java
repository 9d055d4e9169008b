package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A stalled run stopped on the real API server: its Workload (found by owner in the informer cache)
 * gets {@code spec.active: false} from the controller's ServiceAccount holding only the shipped
 * rbac.yaml and rbac-stop-stalled.yaml; the JobSet and its other fields are left as they were; a
 * refusal (no such right) is false, not an exception.
 */
class RunStopperTest {

  @Test
  @DisplayName(
      "the run's Workload is deactivated by a merge patch as the controller's account with"
          + " rbac-stop-stalled.yaml; without that file the patch is refused and nothing changes")
  void deactivatesTheWorkload() throws Exception {
    KubernetesClient admin = LiveApiServer.client();
    String ns = LiveApiServer.namespace("stop");
    GenericKubernetesResource run = LiveApiServer.jobSet(ns, "llama", 1, true);
    LiveApiServer.workload(run, "team-q");
    LiveApiServer.workload(LiveApiServer.jobSet(ns, "other", 1, true), "team-q");
    admin.resourceList(ControllerRbacTest.shipped(admin, ns)).serverSideApply();
    RunKey key = new RunKey(ns, "llama");
    try (KubernetesClient controller = ControllerRbacTest.as(ns);
        ClusterWatch watch =
            new ClusterWatch(admin, Duration.ofMinutes(10), Clock.systemUTC(), k -> {}, k -> {})) {
      watch.start();
      long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (watch.workloadNames(key).isEmpty() && System.nanoTime() < until) {
        Thread.sleep(50);
      }
      assertEquals(List.of("jobset-llama"), watch.workloadNames(key));
      assertEquals(List.of(), watch.workloadNames(new RunKey(ns, "none")));
      RunStopper stopper = RunStopper.workloads(controller, watch::workloadNames);
      assertFalse(stopper.stop(key, "stalled"), "rbac.yaml alone may not patch Workloads");
      assertEquals(true, spec(admin, ns, "jobset-llama").get("active"), "the CRD's default");
      admin
          .resourceList(ControllerRbacTest.shippedFile(admin, ns, "rbac-stop-stalled.yaml"))
          .serverSideApply();
      Instant t0 = Instant.now();
      boolean stopped = false;
      // RBAC changes reach the authorizer's cache within a moment.
      while (!stopped && Duration.between(t0, Instant.now()).toSeconds() < 30) {
        stopped = stopper.stop(key, "failed: stalled, no progress for 2h");
        if (!stopped) {
          Thread.sleep(200);
        }
      }
      assertTrue(stopped);
      assertEquals(false, spec(admin, ns, "jobset-llama").get("active"));
      assertEquals("team-q", spec(admin, ns, "jobset-llama").get("queueName"), "the rest kept");
      assertEquals(true, spec(admin, ns, "jobset-other").get("active"), "another run untouched");
      assertFalse(RunStopper.NONE.stop(key, "x"));
    }
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> spec(KubernetesClient admin, String ns, String name) {
    return (Map<String, Object>)
        admin
            .genericKubernetesResources(ClusterWatch.WORKLOAD_API, "Workload")
            .inNamespace(ns)
            .withName(name)
            .get()
            .getAdditionalProperties()
            .get("spec");
  }
}
