package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.controller.forge.RetryPolicy;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped RBAC ({@code controller/deploy/rbac.yaml}) on the real API server with RBAC on: the
 * controller, impersonated as its ServiceAccount, has every right {@link AccessCheck} asks for and
 * no more (no Secrets, no pod logs outside a namespace whose generated RoleBinding grants them);
 * with one rule missing it does not start and names the right.
 */
class ControllerRbacTest {

  static final String ACCOUNT = "trainyard-controller";

  @TempDir Path temp;

  /** A controller without forges, with {@code election}. */
  ControllerConfig config(LeaseElection.Settings election) throws Exception {
    return new ControllerConfig(
        List.of(),
        new TargetUrl(""),
        Duration.ofMinutes(10),
        Duration.ofSeconds(1),
        Duration.ofSeconds(2),
        RetryPolicy.standard(),
        Duration.ofSeconds(1),
        0,
        election,
        RunPruningTest.platform(temp, RunPruningTest.PLATFORM),
        Optional.empty());
  }

  /**
   * The deploy file's objects, adapted to {@code ns}: namespaced ones there, cluster ones named
   * apart.
   */
  static List<HasMetadata> shipped(KubernetesClient admin, String ns) throws Exception {
    String yaml = Files.readString(DeployManifestsTest.DEPLOY.resolve("rbac.yaml"));
    List<HasMetadata> objects = admin.load(new ByteArrayInputStream(yaml.getBytes())).items();
    for (HasMetadata o : objects) {
      if (o instanceof ClusterRole || o instanceof ClusterRoleBinding) {
        o.getMetadata().setName(o.getMetadata().getName() + "-" + ns);
      } else {
        o.getMetadata().setNamespace(ns);
      }
      if (o instanceof ClusterRoleBinding b) {
        b.getRoleRef().setName(b.getRoleRef().getName() + "-" + ns);
        b.getSubjects().forEach(s -> s.setNamespace(ns));
      }
      if (o instanceof RoleBinding b) {
        b.getSubjects().forEach(s -> s.setNamespace(ns));
      }
    }
    return objects;
  }

  /** A client acting as ServiceAccount {@code ns}/{@value #ACCOUNT}. */
  static KubernetesClient as(String ns) {
    Config c = LiveApiServer.config(LiveApiServer.kubeconfig());
    c.setImpersonateUsername("system:serviceaccount:" + ns + ":" + ACCOUNT);
    c.setImpersonateGroups(
        "system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated");
    return new KubernetesClientBuilder().withConfig(c).build();
  }

  static LeaseElection.Settings lease(String ns) {
    return LeaseElection.Settings.scaled(ns, ACCOUNT, "a", Duration.ofSeconds(2));
  }

  static AccessCheck.Right right(
      String verb, String group, String resource, String ns, String name) {
    return new AccessCheck.Right(verb, group, resource, ns, name);
  }

  @Test
  @DisplayName(
      "with the shipped RBAC the controller's account has every right it needs, reads no Secret"
          + " and no pod log; the generated RoleBinding grants pods/log in its namespace only")
  void shippedRightsSuffice() throws Exception {
    KubernetesClient admin = LiveApiServer.client();
    String ns = LiveApiServer.namespace("rbac");
    String other = LiveApiServer.namespace("rbac-other");
    admin.resourceList(shipped(admin, ns)).serverSideApply();
    try (KubernetesClient controller = as(ns)) {
      // New bindings take effect once the API server's RBAC informer has them (see below).
      LiveApiServer.await(
          "the shipped RBAC to take effect",
          Duration.ofSeconds(30),
          () -> AccessCheck.denied(controller, AccessCheck.needed(true, lease(ns), true)).isEmpty(),
          () ->
              AccessCheck.denied(controller, AccessCheck.needed(true, lease(ns), true)).toString());
      assertEquals(List.of(), AccessCheck.denied(controller, AccessCheck.needed(true, lease(ns))));
      assertEquals(
          List.of(), AccessCheck.denied(controller, AccessCheck.needed(true, lease(ns), true)));
      assertEquals(
          List.of(
              right("list", "", "secrets", "", ""),
              right("get", "", "pods/log", ns, ""),
              right("list", "", "events", "", ""),
              right("create", "coordination.k8s.io", "leases", other, ""),
              right("update", "coordination.k8s.io", "leases", ns, "someone-else")),
          AccessCheck.denied(
              controller,
              List.of(
                  right("list", "", "secrets", "", ""),
                  right("get", "", "pods/log", ns, ""),
                  right("list", "", "events", "", ""),
                  right("create", "coordination.k8s.io", "leases", other, ""),
                  right("update", "coordination.k8s.io", "leases", ns, "someone-else"))));
      // The RoleBinding `trainyard submit` writes into a namespace's _queues/ when a forge posts
      // check runs (QueueObjects; its exact shape is QueueObjectsTest's), bound to this account.
      RoleBinding logs =
          new RoleBindingBuilder()
              .withNewMetadata()
              .withName("trainyard-controller-logs")
              .withNamespace(other)
              .endMetadata()
              .withNewRoleRef()
              .withApiGroup("rbac.authorization.k8s.io")
              .withKind("ClusterRole")
              .withName("trainyard-controller-logs-" + ns)
              .endRoleRef()
              .addNewSubject()
              .withKind("ServiceAccount")
              .withName(ACCOUNT)
              .withNamespace(ns)
              .endSubject()
              .build();
      admin.resource(logs).serverSideApply();
      // The API server's RBAC authorizer reads bindings through its own informer: a new binding
      // takes effect after a moment (seen: over 5 s at load 20), so ask again until it has.
      List<AccessCheck.Right> asked =
          List.of(right("get", "", "pods/log", other, ""), right("get", "", "pods/log", ns, ""));
      LiveApiServer.await(
          "the RoleBinding to take effect",
          Duration.ofSeconds(30),
          () -> AccessCheck.denied(controller, asked).size() == 1,
          () -> AccessCheck.denied(controller, asked).toString());
      assertEquals(
          List.of(right("get", "", "pods/log", ns, "")), AccessCheck.denied(controller, asked));
    }
  }

  @Test
  @DisplayName(
      "one rule missing: the controller does not start and names each denied right with the hint")
  void missingRuleStopsStart() throws Exception {
    KubernetesClient admin = LiveApiServer.client();
    String ns = LiveApiServer.namespace("rbac");
    List<HasMetadata> objects = shipped(admin, ns);
    for (HasMetadata o : objects) {
      if (o instanceof ClusterRole r && r.getMetadata().getName().startsWith(ACCOUNT + "-")) {
        for (PolicyRule rule : r.getRules()) {
          if (rule.getResources().equals(List.of("pods"))) {
            rule.setVerbs(List.of("get", "list"));
          }
        }
      }
    }
    admin.resourceList(objects).serverSideApply();
    try (KubernetesClient probe = as(ns)) {
      LiveApiServer.await(
          "the shipped RBAC to take effect",
          Duration.ofSeconds(30),
          () -> AccessCheck.denied(probe, AccessCheck.needed(true, lease(ns))).size() == 1,
          () -> AccessCheck.denied(probe, AccessCheck.needed(true, lease(ns))).toString());
    }
    try (KubernetesClient controller = as(ns);
        Controller c =
            new Controller(
                controller, config(lease(ns)), Clock.systemUTC(), "127.0.0.1", () -> {})) {
      ClusterAccessException e = assertThrows(ClusterAccessException.class, c::start);
      assertEquals("the controller's user may not watch pods at cluster scope", e.getMessage());
      assertEquals(AccessCheck.HINT, e.hint());
      assertTrue(e.hint().contains("controller/deploy/rbac.yaml"));
    }
    try (KubernetesClient nobody = as(LiveApiServer.namespace("rbac-none"))) {
      assertEquals(
          List.of(
              "list jobsets at cluster scope",
              "list pods at cluster scope",
              "watch jobsets at cluster scope",
              "watch pods at cluster scope",
              "list jobs at cluster scope"),
          AccessCheck.denied(nobody, AccessCheck.needed(false, null)).stream()
              .map(AccessCheck.Right::describe)
              .toList());
      assertEquals(
          "update leases l in namespace n",
          right("update", "coordination.k8s.io", "leases", "n", "l").describe());
      assertEquals(
          List.of("create leases in namespace n", "get leases l in namespace n"),
          AccessCheck.needed(
                  true, LeaseElection.Settings.scaled("n", "l", "i", Duration.ofSeconds(3)))
              .stream()
              .filter(r -> r.group().equals("coordination.k8s.io"))
              .map(AccessCheck.Right::describe)
              .limit(2)
              .toList());
      assertTrue(
          AccessCheck.needed(true, null).stream().anyMatch(r -> r.resource().equals("workloads")));
      assertEquals(
          List.of("create tokenreviews at cluster scope"),
          AccessCheck.denied(nobody, AccessCheck.needed(false, null, true)).stream()
              .map(AccessCheck.Right::describe)
              .filter(d -> d.contains("tokenreviews"))
              .toList());
      assertTrue(
          AccessCheck.needed(true, null, false).stream()
              .noneMatch(r -> r.resource().equals("tokenreviews")));
    }
  }

  /** The objects of deploy file {@code file}, named apart for {@code ns} like {@link #shipped}. */
  static List<HasMetadata> shippedFile(KubernetesClient admin, String ns, String file)
      throws Exception {
    String yaml = Files.readString(DeployManifestsTest.DEPLOY.resolve(file));
    List<HasMetadata> objects = admin.load(new ByteArrayInputStream(yaml.getBytes())).items();
    for (HasMetadata o : objects) {
      o.getMetadata().setName(o.getMetadata().getName() + "-" + ns);
      if (o instanceof ClusterRoleBinding b) {
        b.getRoleRef().setName(b.getRoleRef().getName() + "-" + ns);
        b.getSubjects().forEach(x -> x.setNamespace(ns));
      }
    }
    return objects;
  }

  @Test
  @DisplayName(
      "failStalledAfter needs patch on Workloads: rbac.yaml alone denies it and the controller"
          + " would not start; rbac-stop-stalled.yaml grants patch and nothing more (no get, update,"
          + " delete, nor JobSets or pods)")
  void stopStalledRights() throws Exception {
    KubernetesClient admin = LiveApiServer.client();
    String ns = LiveApiServer.namespace("rbac-stop");
    admin.resourceList(shipped(admin, ns)).serverSideApply();
    AccessCheck.Features stop = new AccessCheck.Features(false, true);
    try (KubernetesClient controller = as(ns)) {
      assertEquals(
          List.of("patch workloads at cluster scope"),
          AccessCheck.denied(controller, AccessCheck.needed(true, lease(ns), stop)).stream()
              .map(AccessCheck.Right::describe)
              .toList());
      admin.resourceList(shippedFile(admin, ns, "rbac-stop-stalled.yaml")).serverSideApply();
      assertEquals(
          List.of(), AccessCheck.denied(controller, AccessCheck.needed(true, lease(ns), stop)));
      assertEquals(
          List.of(
              right("get", "kueue.x-k8s.io", "workloads", "", ""),
              right("update", "kueue.x-k8s.io", "workloads", "", ""),
              right("delete", "kueue.x-k8s.io", "workloads", "", ""),
              right("patch", "jobset.x-k8s.io", "jobsets", "", ""),
              right("delete", "", "pods", "", "")),
          AccessCheck.denied(
              controller,
              List.of(
                  right("get", "kueue.x-k8s.io", "workloads", "", ""),
                  right("update", "kueue.x-k8s.io", "workloads", "", ""),
                  right("delete", "kueue.x-k8s.io", "workloads", "", ""),
                  right("patch", "jobset.x-k8s.io", "jobsets", "", ""),
                  right("delete", "", "pods", "", ""))));
    }
    assertTrue(
        AccessCheck.needed(false, null, stop).stream().noneMatch(r -> r.verb().equals("patch")),
        "without Kueue there is no Workload to patch");
    assertTrue(
        AccessCheck.needed(true, null, new AccessCheck.Features(true, false)).stream()
            .noneMatch(r -> r.verb().equals("patch")));
    assertTrue(AccessCheck.HINT.contains("rbac-stop-stalled.yaml"));
  }
}
