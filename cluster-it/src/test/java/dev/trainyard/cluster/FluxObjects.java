package dev.trainyard.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Flux objects in namespace {@value FluxControllers#NAMESPACE}, read and written as generic
 * objects. Field names from the CRDs in the cache (source.toolkit.fluxcd.io/v1 GitRepository,
 * kustomize.toolkit.fluxcd.io/v1 Kustomization): {@code status.conditions[type=Ready]}, {@code
 * status.lastAppliedRevision} ({@code main@sha1:<sha>}), {@code status.lastHandledReconcileAt}, and
 * the {@code reconcile.fluxcd.io/requestedAt} annotation that asks for a reconcile now
 * (fluxcd/pkg/apis/meta).
 */
final class FluxObjects {

  static final String GIT_REPOSITORY_API = "source.toolkit.fluxcd.io/v1";
  static final String KUSTOMIZATION_API = "kustomize.toolkit.fluxcd.io/v1";
  static final String REQUESTED_AT = "reconcile.fluxcd.io/requestedAt";

  private final KubernetesClient client;

  FluxObjects(KubernetesClient client) {
    this.client = client;
  }

  /**
   * The basic-auth Secret a GitRepository's {@code secretRef} names: keys {@code username} and
   * {@code password}.
   */
  void applyGitSecret(String name, GitHttpServer.Credentials credentials) {
    client
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(FluxControllers.NAMESPACE)
                .endMetadata()
                .withStringData(
                    Map.of("username", credentials.user(), "password", credentials.token()))
                .build())
        .fieldManager(ClusterBootstrap.FIELD_MANAGER)
        .forceConflicts()
        .serverSideApply();
  }

  void apply(List<GenericKubernetesResource> objects) {
    objects.forEach(
        o ->
            client
                .resource(o)
                .fieldManager(ClusterBootstrap.FIELD_MANAGER)
                .forceConflicts()
                .serverSideApply());
  }

  Resource<GenericKubernetesResource> kustomization(String name) {
    return api(KUSTOMIZATION_API, "Kustomization").withName(name);
  }

  Resource<GenericKubernetesResource> gitRepository(String name) {
    return api(GIT_REPOSITORY_API, "GitRepository").withName(name);
  }

  private NonNamespaceOperation<
          GenericKubernetesResource,
          GenericKubernetesResourceList,
          Resource<GenericKubernetesResource>>
      api(String apiVersion, String kind) {
    return client
        .genericKubernetesResources(apiVersion, kind)
        .inNamespace(FluxControllers.NAMESPACE);
  }

  /** Whether a Kustomization last applied commit {@code sha} (any branch) and is Ready. */
  static boolean appliedAndReady(GenericKubernetesResource kustomization, String sha) {
    Object revision =
        kustomization == null ? null : kustomization.get("status", "lastAppliedRevision");
    return revision != null && revision.toString().endsWith(":" + sha) && ready(kustomization);
  }

  static boolean ready(GenericKubernetesResource object) {
    return conditions(object).stream()
        .anyMatch(c -> "Ready".equals(c.get("type")) && "True".equals(c.get("status")));
  }

  /**
   * Sets {@value #REQUESTED_AT} to a new value, which makes the controller reconcile now; returns
   * the value.
   */
  String requestReconcile(Resource<GenericKubernetesResource> object) {
    String value = Instant.now().toString();
    Edits.edit(
        object,
        o -> {
          Map<String, String> annotations =
              new HashMap<>(
                  o.getMetadata().getAnnotations() == null
                      ? Map.of()
                      : o.getMetadata().getAnnotations());
          annotations.put(REQUESTED_AT, value);
          o.getMetadata().setAnnotations(annotations);
          return o;
        });
    return value;
  }

  /** Whether the controller has handled the reconcile request {@code value}. */
  static boolean handled(GenericKubernetesResource object, String value) {
    return object != null && value.equals(object.get("status", "lastHandledReconcileAt"));
  }

  /** One line per object for failure messages: kind/name and its conditions. */
  String describe(List<Resource<GenericKubernetesResource>> objects) {
    return objects.stream()
        .map(Resource::get)
        .map(
            o ->
                o == null
                    ? "(gone)"
                    : o.getKind()
                        + "/"
                        + o.getMetadata().getName()
                        + " "
                        + conditions(o)
                        + " lastAppliedRevision="
                        + o.get("status", "lastAppliedRevision"))
        .collect(Collectors.joining("\n  ", "\n  ", ""));
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> conditions(GenericKubernetesResource object) {
    Object conditions = object == null ? null : object.get("status", "conditions");
    return conditions instanceof List<?> list ? (List<Map<String, Object>>) list : List.of();
  }
}
