package dev.trainyard.controller;

import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;

/**
 * What the controller may not do that it needs, asked of the API server before anything starts
 * (SelfSubjectAccessReview, which every authenticated user may create: the built-in {@code
 * system:basic-user} ClusterRole), so a missing RBAC rule is one clear line at start instead of an
 * informer that retries its list for ever and a readiness probe that never passes.
 *
 * <p>Needed (controller/deploy/rbac.yaml): list and watch JobSets, pods and (when Kueue is served)
 * Workloads and LocalQueues at cluster scope; list Jobs at cluster scope; with leader election,
 * create Leases and get and update the named Lease in its namespace; with platform.yaml's {@code
 * progressPush}, create TokenReviews (the pods' tokens are checked with them); with its {@code
 * status.progress.failStalledAfter} and Kueue served, patch Workloads at cluster scope ({@link
 * RunStopper}: a stalled run's Workload is deactivated; controller/deploy/rbac-stop-stalled.yaml).
 * Reading {@code pods/log} is per namespace and optional (only GitHub check runs show log lines):
 * not checked here.
 */
final class AccessCheck {

  /** One right: verb on group/resource, in namespace ("" for cluster scope), on name ("" any). */
  record Right(String verb, String group, String resource, String namespace, String name) {
    /** "list jobsets at cluster scope", "update lease trainyard-controller in namespace ns". */
    String describe() {
      String what = name.isEmpty() ? resource : resource + " " + name;
      return verb
          + " "
          + what
          + (namespace.isEmpty() ? " at cluster scope" : " in namespace " + namespace);
    }
  }

  private AccessCheck() {}

  /**
   * What optional features need: {@code progress} (progressPush: create TokenReviews), {@code
   * stopStalled} (failStalledAfter with Kueue: patch Workloads).
   */
  record Features(boolean progress, boolean stopStalled) {}

  /** The rights a controller with these settings needs. */
  static List<Right> needed(boolean workloads, LeaseElection.Settings election) {
    return needed(workloads, election, false);
  }

  /**
   * The rights a controller with these settings needs; with {@code progress} (platform.yaml's
   * {@code progressPush}) also {@code create tokenreviews}, to check the pods' tokens.
   */
  static List<Right> needed(boolean workloads, LeaseElection.Settings election, boolean progress) {
    return needed(workloads, election, new Features(progress, false));
  }

  /** The rights a controller with these settings and {@code features} needs. */
  static List<Right> needed(boolean workloads, LeaseElection.Settings election, Features features) {
    boolean progress = features.progress();
    List<Right> out = new ArrayList<>();
    for (String verb : List.of("list", "watch")) {
      out.add(new Right(verb, "jobset.x-k8s.io", "jobsets", "", ""));
      out.add(new Right(verb, "", "pods", "", ""));
      if (workloads) {
        out.add(new Right(verb, "kueue.x-k8s.io", "workloads", "", ""));
        out.add(new Right(verb, "kueue.x-k8s.io", "localqueues", "", ""));
      }
    }
    out.add(new Right("list", "batch", "jobs", "", ""));
    if (progress) {
      out.add(new Right("create", "authentication.k8s.io", "tokenreviews", "", ""));
    }
    if (workloads && features.stopStalled()) {
      out.add(new Right("patch", "kueue.x-k8s.io", "workloads", "", ""));
    }
    if (election != null) {
      out.add(new Right("create", "coordination.k8s.io", "leases", election.namespace(), ""));
      for (String verb : List.of("get", "update")) {
        out.add(
            new Right(
                verb, "coordination.k8s.io", "leases", election.namespace(), election.leaseName()));
      }
    }
    return out;
  }

  /** Those of {@code rights} the API server denies to {@code client}'s user, in order. */
  static List<Right> denied(KubernetesClient client, List<Right> rights) {
    List<Right> out = new ArrayList<>();
    for (Right r : rights) {
      SelfSubjectAccessReview review =
          new SelfSubjectAccessReviewBuilder()
              .withNewSpec()
              .withNewResourceAttributes()
              .withVerb(r.verb())
              .withGroup(r.group())
              .withResource(r.resource())
              .withNamespace(r.namespace().isEmpty() ? null : r.namespace())
              .withName(r.name().isEmpty() ? null : r.name())
              .endResourceAttributes()
              .endSpec()
              .build();
      SelfSubjectAccessReview answer =
          client.authorization().v1().selfSubjectAccessReview().create(review);
      if (answer.getStatus() == null || !Boolean.TRUE.equals(answer.getStatus().getAllowed())) {
        out.add(r);
      }
    }
    return out;
  }

  /** The hint for a denied right. */
  static final String HINT =
      "apply controller/deploy/rbac.yaml (the ClusterRole trainyard-controller and the Role"
          + " trainyard-controller-leader-election, bound to this ServiceAccount); with a"
          + " --lease-name other than trainyard-controller, name that Lease in the Role; with"
          + " platform.yaml's status.progress.failStalledAfter, also"
          + " controller/deploy/rbac-stop-stalled.yaml";

  /**
   * Throws when {@code client}'s user lacks one of the rights a controller with these settings
   * needs: a {@link ClusterAccessException} naming every denied right, with {@link #HINT}.
   */
  static void require(KubernetesClient client, boolean workloads, LeaseElection.Settings election) {
    require(client, workloads, election, false);
  }

  /** As above, with {@code progress}: also {@code create tokenreviews}. */
  static void require(
      KubernetesClient client,
      boolean workloads,
      LeaseElection.Settings election,
      boolean progress) {
    require(client, workloads, election, new Features(progress, false));
  }

  /** As above, with what {@code features} need too. */
  static void require(
      KubernetesClient client,
      boolean workloads,
      LeaseElection.Settings election,
      Features features) {
    List<Right> denied = denied(client, needed(workloads, election, features));
    if (!denied.isEmpty()) {
      throw new ClusterAccessException(
          "the controller's user may not "
              + String.join("; ", denied.stream().map(Right::describe).toList()),
          HINT,
          null);
    }
  }
}
