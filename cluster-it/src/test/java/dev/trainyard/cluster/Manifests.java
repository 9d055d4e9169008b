package dev.trainyard.cluster;

import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Kubernetes objects read from YAML files (one or many documents each) and applied with server-side
 * apply under field manager {@value ClusterBootstrap#FIELD_MANAGER}. Whether a kind is namespaced
 * is asked from the API server's discovery, so CRD kinds need no hard-coded list.
 */
final class Manifests {

  /**
   * API groups that may sit in an output tree but whose controllers the harness does not run:
   * GitOps bootstrap objects (Argo CD, Flux, kustomize) and SealedSecrets (bitnami.com; the
   * sealed-secrets controller turns them into Secrets in a real cluster).
   */
  static final List<String> NOT_APPLIED_GROUPS =
      List.of(
          "kustomize.config.k8s.io",
          "argoproj.io",
          "kustomize.toolkit.fluxcd.io",
          "source.toolkit.fluxcd.io",
          "bitnami.com");

  private final KubernetesClient client;
  private final Map<String, Map<String, Boolean>> namespacedByGroupVersion = new HashMap<>();

  Manifests(KubernetesClient client) {
    this.client = client;
  }

  /** Every object in every {@code *.yaml}/{@code *.yml} file under {@code root}, in path order. */
  List<GenericKubernetesResource> loadTree(Path root) {
    List<GenericKubernetesResource> objects = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path file : files.filter(Manifests::isYaml).sorted(Comparator.naturalOrder()).toList()) {
        objects.addAll(loadFile(file));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + root, e);
    }
    return objects.stream().filter(Manifests::appliedHere).toList();
  }

  /**
   * False for objects a real cluster gets only through another controller: {@link
   * #NOT_APPLIED_GROUPS}, and SOPS-encrypted files (a top-level {@code sops} block; Flux decrypts
   * them before applying). Each exclusion is printed, so a skipped object is visible in the test
   * output.
   */
  static boolean appliedHere(GenericKubernetesResource object) {
    String reason =
        NOT_APPLIED_GROUPS.contains(group(object))
            ? "group " + group(object) + " not served here"
            : object.getAdditionalProperties().containsKey("sops")
                ? "SOPS-encrypted (Flux decrypts it)"
                : null;
    if (reason != null && object.getMetadata() != null) {
      System.out.println(
          "not applied: "
              + object.getKind()
              + " "
              + object.getMetadata().getName()
              + " ("
              + reason
              + ")");
    }
    return reason == null;
  }

  static List<GenericKubernetesResource> loadFile(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return parse(in);
    }
  }

  /** Objects from a classpath resource such as {@code manifests/jobset-minimal.yaml}. */
  static List<GenericKubernetesResource> loadResource(String name) {
    try (InputStream in = Manifests.class.getResourceAsStream("/" + name)) {
      if (in == null) {
        throw new IllegalStateException("missing test resource " + name);
      }
      return parse(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Objects from YAML text with one or more documents. */
  static List<GenericKubernetesResource> parse(String yaml) {
    return parse(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)));
  }

  private static List<GenericKubernetesResource> parse(InputStream in) {
    Object parsed = Serialization.unmarshal(in, GenericKubernetesResource.class);
    List<GenericKubernetesResource> out = new ArrayList<>();
    if (parsed instanceof List<?> list) {
      list.stream()
          .filter(GenericKubernetesResource.class::isInstance)
          .map(GenericKubernetesResource.class::cast)
          .forEach(out::add);
    } else if (parsed instanceof GenericKubernetesResource object) {
      out.add(object);
    }
    return out.stream().filter(o -> o.getKind() != null).toList();
  }

  private static boolean isYaml(Path path) {
    String name = path.getFileName().toString();
    return Files.isRegularFile(path) && (name.endsWith(".yaml") || name.endsWith(".yml"));
  }

  static String group(HasMetadata object) {
    String apiVersion = object.getApiVersion();
    return apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
  }

  /**
   * Whether the server serves {@code object}'s kind as namespaced; fails if it does not serve the
   * kind.
   */
  boolean namespaced(HasMetadata object) {
    Map<String, Boolean> kinds =
        namespacedByGroupVersion.computeIfAbsent(object.getApiVersion(), this::discover);
    Boolean namespaced = kinds.get(object.getKind());
    if (namespaced == null) {
      throw new AssertionError(
          "the API server does not serve "
              + object.getKind()
              + " in "
              + object.getApiVersion()
              + " (object "
              + object.getMetadata().getName()
              + ")");
    }
    return namespaced;
  }

  private Map<String, Boolean> discover(String groupVersion) {
    APIResourceList list = client.getApiResources(groupVersion);
    Map<String, Boolean> kinds = new HashMap<>();
    if (list != null) {
      for (APIResource resource : list.getResources()) {
        if (!resource.getName().contains("/")) {
          kinds.put(resource.getKind(), resource.getNamespaced());
        }
      }
    }
    return kinds;
  }

  /** A copy placed in {@code namespace} (namespaced kinds) or left cluster-scoped. */
  GenericKubernetesResource placed(GenericKubernetesResource object, String namespace) {
    GenericKubernetesResource copy = Serialization.clone(object);
    copy.getMetadata().setNamespace(namespaced(object) ? namespace : null);
    return copy;
  }

  /**
   * Server-side apply with {@code dryRun=All}: admission webhooks and schema run, nothing is
   * stored.
   */
  GenericKubernetesResource dryRunApply(GenericKubernetesResource object) {
    return client
        .resource(object)
        .dryRun()
        .fieldManager(ClusterBootstrap.FIELD_MANAGER)
        .forceConflicts()
        .serverSideApply();
  }

  GenericKubernetesResource apply(GenericKubernetesResource object) {
    return client
        .resource(object)
        .fieldManager(ClusterBootstrap.FIELD_MANAGER)
        .forceConflicts()
        .serverSideApply();
  }

  /** Apply order: cluster-scoped first, then config objects, then workloads (JobSets) last. */
  int applyRank(GenericKubernetesResource object) {
    if (!namespaced(object)) {
      return 0;
    }
    return "JobSet".equals(object.getKind()) ? 2 : 1;
  }
}
