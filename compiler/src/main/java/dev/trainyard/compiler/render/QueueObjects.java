package dev.trainyard.compiler.render;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.manifest.Manifest;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.platform.Platform.ClusterQueue;
import dev.trainyard.compiler.platform.Platform.FlavorQuota;
import dev.trainyard.compiler.platform.Platform.LocalQueue;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Kueue {@code v1beta2} objects from platform.yaml (v1beta2 is the storage version since Kueue
 * 0.16; v1beta1 is deprecated). A ClusterQueue always has an explicit {@code namespaceSelector}:
 * nil matches no namespace (kueue#301), {@code {}} matches all. Each flavor lists every covered
 * resource (a Kueue CEL rule); a resource a flavor gives no quota for gets {@code nominalQuota:
 * "0"}. A ResourceFlavor carries platform.yaml's {@code nodeLabels}, {@code nodeTaints} and {@code
 * tolerations}; Kueue adds the flavor's tolerations (and labels, as nodeSelector) to the pods it
 * admits, so tainted GPU nodes are reachable without tolerations in git.
 */
final class QueueObjects {
  static final String API_VERSION = "kueue.x-k8s.io/v1beta2";

  private QueueObjects() {}

  /**
   * The provenance every queue object carries: the platform.yaml it came from ({@link
   * Platform#provenance}) and the compiler version (no run's: a queue object serves every run of
   * its cluster or namespace), sorted.
   */
  static Map<String, String> annotations(Platform p, String compilerVersion) {
    Map<String, String> a = new TreeMap<>();
    a.put(Provenance.PLATFORM, p.provenance());
    a.put(Provenance.COMPILER_VERSION, compilerVersion);
    return a;
  }

  /**
   * ResourceFlavors and ClusterQueues behind the LocalQueues of {@code cluster}'s namespaces,
   * sorted by kind and name.
   */
  static List<Manifest> clusterScoped(Platform p, String cluster, Map<String, String> annotations) {
    Set<String> namespaces = new TreeSet<>();
    p.namespaces().stream()
        .filter(n -> n.cluster().equals(cluster))
        .forEach(n -> namespaces.add(n.name()));
    Set<String> cqNames = new TreeSet<>();
    p.queues().localQueues().stream()
        .filter(l -> namespaces.contains(l.namespace()))
        .forEach(l -> cqNames.add(l.clusterQueue()));
    Set<String> flavors = new TreeSet<>();
    List<Manifest> out = new ArrayList<>();
    for (String name : cqNames) {
      ClusterQueue cq = p.clusterQueue(name).orElseThrow();
      cq.flavors().forEach(f -> flavors.add(f.flavor()));
      out.add(clusterQueue(cq, annotations));
    }
    for (String name : flavors) {
      p.queues().resourceFlavors().stream()
          .filter(f -> f.name().equals(name))
          .findFirst()
          .ifPresent(f -> out.add(resourceFlavor(f, annotations)));
    }
    return out;
  }

  /** The controller's ServiceAccount and its per-namespace log-reading ClusterRole. */
  static final String CONTROLLER_NAMESPACE = "trainyard-system";

  static final String CONTROLLER_ACCOUNT = "trainyard-controller";
  static final String CONTROLLER_LOGS = "trainyard-controller-logs";

  /**
   * The objects of {@code namespace}'s queue folder: its LocalQueues, sorted by name, and, when
   * platform.yaml names a forge the controller posts to ({@code status.forges}), the RoleBinding
   * {@value #CONTROLLER_LOGS} that lets the controller ({@value #CONTROLLER_NAMESPACE}/{@value
   * #CONTROLLER_ACCOUNT}) read pod logs in this namespace only (ClusterRole of the same name,
   * controller/deploy/rbac.yaml): it follows rank 0's log for the progress a running run shows, and
   * a failed run's GitHub check shows its last log lines; with {@code progressPush.caCertificate},
   * the ConfigMap {@code progressPush.caConfigMap} holding it as {@code ca.crt}, which every run's
   * pods mount for the progress endpoint's TLS.
   */
  static List<Manifest> localQueues(Platform p, String namespace, Map<String, String> annotations) {
    List<Manifest> out = new ArrayList<>();
    if (!p.status().forges().isEmpty()) {
      ObjectNode rb =
          Manifest.skeleton(
              "rbac.authorization.k8s.io/v1", "RoleBinding", CONTROLLER_LOGS, namespace);
      annotate(rb, annotations);
      rb.putObject("roleRef")
          .put("apiGroup", "rbac.authorization.k8s.io")
          .put("kind", "ClusterRole")
          .put("name", CONTROLLER_LOGS);
      rb.putArray("subjects")
          .addObject()
          .put("kind", "ServiceAccount")
          .put("name", CONTROLLER_ACCOUNT)
          .put("namespace", CONTROLLER_NAMESPACE);
      out.add(Manifest.of(rb));
    }
    Platform.ProgressPush push = p.progressPush();
    if (push.enabled() && !push.caCertificate().isEmpty()) {
      ObjectNode ca = Manifest.skeleton("v1", "ConfigMap", push.caConfigMap(), namespace);
      annotate(ca, annotations);
      ca.putObject("data").put("ca.crt", push.caCertificate());
      out.add(Manifest.of(ca));
    }
    for (LocalQueue lq : p.queues().localQueues()) {
      if (lq.namespace().equals(namespace)) {
        ObjectNode o = Manifest.skeleton(API_VERSION, "LocalQueue", lq.name(), namespace);
        annotate(o, annotations);
        o.putObject("spec").put("clusterQueue", lq.clusterQueue());
        out.add(Manifest.of(o));
      }
    }
    return out;
  }

  private static Manifest clusterQueue(ClusterQueue cq, Map<String, String> annotations) {
    ObjectNode o = Manifest.skeleton(API_VERSION, "ClusterQueue", cq.name(), "");
    annotate(o, annotations);
    ObjectNode spec = o.putObject("spec");
    namespaceSelector(spec.putObject("namespaceSelector"), cq.namespaces());
    cq.cohort().ifPresent(c -> spec.put("cohortName", c));
    spec.put("queueingStrategy", "BestEffortFIFO");
    ObjectNode group = spec.putArray("resourceGroups").addObject();
    List<String> covered = cq.coveredResources();
    covered.forEach(group.putArray("coveredResources")::add);
    ArrayNode flavors = group.putArray("flavors");
    for (FlavorQuota f : cq.flavors()) {
      ObjectNode flavor = flavors.addObject().put("name", f.flavor());
      ArrayNode resources = flavor.putArray("resources");
      covered.forEach(
          r ->
              resources
                  .addObject()
                  .put("name", r)
                  .put("nominalQuota", f.quota().getOrDefault(r, "0")));
    }
    return Manifest.of(o);
  }

  private static void namespaceSelector(ObjectNode selector, List<String> namespaces) {
    if (namespaces.contains("*")) {
      return;
    }
    ObjectNode expr = selector.putArray("matchExpressions").addObject();
    expr.put("key", "kubernetes.io/metadata.name").put("operator", "In");
    new TreeSet<>(namespaces).forEach(expr.putArray("values")::add);
  }

  private static Manifest resourceFlavor(
      Platform.ResourceFlavor f, Map<String, String> annotations) {
    ObjectNode o = Manifest.skeleton(API_VERSION, "ResourceFlavor", f.name(), "");
    annotate(o, annotations);
    ObjectNode spec = o.putObject("spec");
    if (!f.nodeLabels().isEmpty()) {
      ObjectNode labels = spec.putObject("nodeLabels");
      new TreeMap<>(f.nodeLabels()).forEach(labels::put);
    }
    if (!f.nodeTaints().isEmpty()) {
      ArrayNode taints = spec.putArray("nodeTaints");
      for (Platform.Taint t : f.nodeTaints()) {
        ObjectNode taint = taints.addObject().put("key", t.key());
        putIfSet(taint, "value", t.value());
        taint.put("effect", t.effect());
      }
    }
    if (!f.tolerations().isEmpty()) {
      ArrayNode tolerations = spec.putArray("tolerations");
      for (Platform.Toleration t : f.tolerations()) {
        ObjectNode tol = tolerations.addObject();
        putIfSet(tol, "key", t.key());
        tol.put("operator", t.operator());
        putIfSet(tol, "value", t.value());
        putIfSet(tol, "effect", t.effect());
        t.tolerationSeconds().ifPresent(sec -> tol.put("tolerationSeconds", sec));
      }
    }
    return Manifest.of(o);
  }

  private static void putIfSet(ObjectNode o, String field, String value) {
    if (!value.isEmpty()) {
      o.put(field, value);
    }
  }

  private static void annotate(ObjectNode o, Map<String, String> annotations) {
    ObjectNode a = ((ObjectNode) o.get("metadata")).putObject("annotations");
    annotations.forEach(a::put);
    ((ObjectNode) o.get("metadata"))
        .putObject("labels")
        .put("app.kubernetes.io/managed-by", "trainyard");
  }
}
