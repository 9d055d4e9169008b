package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kustomize folder {@code controller/deploy}, rendered by the real {@code kubectl kustomize}.
 */
class DeployManifestsTest {

  static final Path DEPLOY =
      Path.of(System.getProperty("trainyard.repo.root", ".."))
          .toAbsolutePath()
          .normalize()
          .resolve("controller/deploy");

  @TempDir Path tmp;

  /** kubectl from PATH, else from the k8s test binaries cache (-Dtrainyard.k8s.dir). */
  static Optional<Path> kubectl() {
    Stream<Path> path =
        Stream.of(System.getenv().getOrDefault("PATH", "").split(":")).map(Path::of);
    String k8s = System.getProperty("trainyard.k8s.dir", "");
    Stream<Path> cache = k8s.isEmpty() ? Stream.empty() : Stream.of(Path.of(k8s, "bin"));
    return Stream.concat(path, cache)
        .map(d -> d.resolve("kubectl"))
        .filter(Files::isExecutable)
        .findFirst();
  }

  static List<Map<String, Object>> kustomize(Path dir) throws Exception {
    Optional<Path> kubectl = kubectl();
    assumeTrue(
        kubectl.isPresent(),
        "NOT RUN: kubectl not on PATH nor in -Dtrainyard.k8s.dir: kustomize output not checked");
    Process p =
        new ProcessBuilder(kubectl.get().toString(), "kustomize", dir.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(
        p.waitFor(Duration.ofSeconds(60).toSeconds(), TimeUnit.SECONDS), "kubectl kustomize hung");
    assertEquals(0, p.exitValue(), out);
    List<Map<String, Object>> objects = new ArrayList<>();
    try (MappingIterator<Map<String, Object>> it =
        new ObjectMapper(new YAMLFactory()).readerForMapOf(Object.class).readValues(out)) {
      it.forEachRemaining(objects::add);
    }
    return objects;
  }

  static Map<String, Object> one(List<Map<String, Object>> objects, String kind) {
    return objects.stream()
        .filter(o -> kind.equals(o.get("kind")))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + kind));
  }

  @SuppressWarnings("unchecked")
  static <T> T at(Object root, Object... path) {
    Object o = root;
    for (Object step : path) {
      if (o == null) {
        return null;
      }
      o =
          step instanceof Integer i
              ? ((List<Object>) o).get(i)
              : ((Map<String, Object>) o).get(step);
    }
    return (T) o;
  }

  @Test
  @DisplayName(
      "kubectl kustomize renders namespace, ServiceAccount, RBAC, ConfigMap, Deployment and Service in trainyard-system")
  void renders() throws Exception {
    List<Map<String, Object>> objects = kustomize(DEPLOY);
    Set<String> kinds = new TreeSet<>();
    objects.forEach(o -> kinds.add((String) o.get("kind")));
    assertEquals(
        new TreeSet<>(
            List.of(
                "ClusterRole",
                "ClusterRoleBinding",
                "ConfigMap",
                "Deployment",
                "Namespace",
                "PodDisruptionBudget",
                "Role",
                "RoleBinding",
                "Service",
                "ServiceAccount")),
        kinds);
    assertEquals(
        2,
        objects.stream().filter(o -> "ConfigMap".equals(o.get("kind"))).count(),
        "controller.yaml and platform.yaml, each its own ConfigMap");
    for (Map<String, Object> o : objects) {
      if (!Set.of("Namespace", "ClusterRole", "ClusterRoleBinding").contains(o.get("kind"))) {
        assertEquals(
            "trainyard-system", at(o, "metadata", "namespace"), o.get("kind") + " namespace");
      }
    }
    assertEquals(
        "restricted",
        at(one(objects, "Namespace"), "metadata", "labels", "pod-security.kubernetes.io/enforce"));
  }

  @Test
  @DisplayName(
      "least privilege: the ClusterRole lists and watches JobSets, pods and Workloads, lists Jobs and"
          + " creates TokenReviews (progress push), no Secrets, events or logs; pods/log is a separate ClusterRole bound per namespace; the"
          + " Lease Role creates Leases and gets/updates only trainyard-controller")
  @SuppressWarnings("unchecked") // kubectl's YAML read as plain maps
  void readOnly() throws Exception {
    List<Map<String, Object>> objects = kustomize(DEPLOY);
    Map<String, Object> rules = new TreeMap<>();
    Map<String, Object> logs = null;
    for (Map<String, Object> o : objects) {
      if (!"ClusterRole".equals(o.get("kind"))) {
        continue;
      }
      if ("trainyard-controller-logs".equals(at(o, "metadata", "name"))) {
        logs = o;
        continue;
      }
      assertEquals("trainyard-controller", at(o, "metadata", "name"));
      for (Map<String, Object> rule : (List<Map<String, Object>>) at(o, "rules")) {
        rules.put(
            String.join(",", (List<String>) at(rule, "apiGroups"))
                + "/"
                + String.join(",", (List<String>) at(rule, "resources")),
            at(rule, "verbs"));
      }
    }
    assertEquals(
        "{/pods=[list, watch], authentication.k8s.io/tokenreviews=[create], batch/jobs=[list],"
            + " jobset.x-k8s.io/jobsets=[list, watch], kueue.x-k8s.io/workloads,localqueues=[list, watch]}",
        rules.toString());
    List<Object> logRules = at(logs, "rules");
    assertEquals("[{apiGroups=[], resources=[pods/log], verbs=[get]}]", logRules.toString());
    assertEquals(
        1,
        objects.stream().filter(o -> "ClusterRoleBinding".equals(o.get("kind"))).count(),
        "pods/log is never bound cluster-wide");
    Map<String, Object> role = one(objects, "Role");
    List<Object> leaseRules = at(role, "rules");
    assertEquals(
        "[{apiGroups=[coordination.k8s.io], resources=[leases], verbs=[create]},"
            + " {apiGroups=[coordination.k8s.io], resourceNames=[trainyard-controller],"
            + " resources=[leases], verbs=[get, update]}]",
        leaseRules.toString());
    assertEquals(
        "trainyard-system", at(one(objects, "ClusterRoleBinding"), "subjects", 0, "namespace"));
  }

  @Test
  @DisplayName(
      "the Deployment probes /healthz and /readyz, runs restricted, mounts the forge token Secret and the hashed ConfigMap")
  void deployment() throws Exception {
    List<Map<String, Object>> objects = kustomize(DEPLOY);
    Map<String, Object> pod = at(one(objects, "Deployment"), "spec", "template", "spec");
    Map<String, Object> c = at(pod, "containers", 0);
    assertEquals("/healthz", at(c, "livenessProbe", "httpGet", "path"));
    assertEquals("/readyz", at(c, "readinessProbe", "httpGet", "path"));
    assertEquals(Boolean.TRUE, at(pod, "securityContext", "runAsNonRoot"));
    assertEquals("RuntimeDefault", at(pod, "securityContext", "seccompProfile", "type"));
    assertEquals(Boolean.FALSE, at(c, "securityContext", "allowPrivilegeEscalation"));
    assertEquals(Boolean.TRUE, at(c, "securityContext", "readOnlyRootFilesystem"));
    assertEquals(List.of("ALL"), at(c, "securityContext", "capabilities", "drop"));
    assertEquals("trainyard-controller", pod.get("serviceAccountName"));
    List<Map<String, Object>> volumes = at(pod, "volumes");
    assertTrue(
        volumes.stream()
            .anyMatch(v -> "trainyard-forge-tokens".equals(at(v, "secret", "secretName"))));
    List<Map<String, Object>> mounts = at(c, "volumeMounts");
    for (String[] cm :
        new String[][] {
          {"trainyard-controller-config-", "/etc/trainyard/controller"},
          {"trainyard-platform-", "/etc/trainyard/platform"}
        }) {
      String name =
          objects.stream()
              .filter(o -> "ConfigMap".equals(o.get("kind")))
              .map(o -> (String) at(o, "metadata", "name"))
              .filter(n -> n.startsWith(cm[0]))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no ConfigMap " + cm[0] + "<hash>"));
      String volume =
          volumes.stream()
              .filter(v -> v.get("configMap") != null && name.equals(at(v, "configMap", "name")))
              .map(v -> (String) v.get("name"))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no volume of " + name));
      assertTrue(
          mounts.stream()
              .anyMatch(m -> volume.equals(m.get("name")) && cm[1].equals(m.get("mountPath"))),
          name + " mounted at " + cm[1] + ": " + mounts);
    }
    String tokens =
        volumes.stream()
            .filter(v -> "trainyard-forge-tokens".equals(at(v, "secret", "secretName")))
            .map(v -> (String) v.get("name"))
            .findFirst()
            .orElseThrow();
    assertTrue(
        mounts.stream()
            .anyMatch(
                m ->
                    tokens.equals(m.get("name"))
                        && (ConfigFile.TOKENS + "/trainyard-forge-tokens")
                            .equals(m.get("mountPath"))),
        "tokens/<secret>/<key>: " + mounts);
    assertEquals(
        "trainyard-controller",
        c.get("image"),
        "the placeholder the overlay's images: entry replaces");
    List<String> args = at(c, "args");
    assertTrue(
        args.contains("--bind=$(POD_IP)"),
        "listens on the pod's own address, not every interface: " + args);
    assertTrue(
        args.contains("--config=/etc/trainyard/controller/controller.yaml"), args.toString());
    List<Map<String, Object>> env = at(c, "env");
    assertTrue(
        env.stream()
            .anyMatch(
                e ->
                    "POD_IP".equals(e.get("name"))
                        && "status.podIP".equals(at(e, "valueFrom", "fieldRef", "fieldPath"))));
    Map<String, Object> gitops =
        env.stream()
            .filter(e -> "TRAINYARD_GITOPS_TOKEN".equals(e.get("name")))
            .findFirst()
            .orElseThrow();
    assertEquals(
        Boolean.TRUE,
        at(gitops, "valueFrom", "secretKeyRef", "optional"),
        "pruning is optional, so is its token");
  }

  @Test
  @DisplayName(
      "the token Secret is readable by the controller on a real kubelet: fsGroup 65532 and a group-readable defaultMode 0440")
  void tokenReadable() throws Exception {
    Map<String, Object> pod = at(one(kustomize(DEPLOY), "Deployment"), "spec", "template", "spec");
    assertEquals(65532, (Integer) at(pod, "securityContext", "runAsUser"));
    assertEquals(65532, (Integer) at(pod, "securityContext", "fsGroup"));
    List<Map<String, Object>> volumes = at(pod, "volumes");
    Map<String, Object> tokens =
        volumes.stream()
            .filter(v -> "trainyard-forge-tokens".equals(at(v, "secret", "secretName")))
            .findFirst()
            .orElseThrow();
    assertEquals(0440, (Integer) at(tokens, "secret", "defaultMode"));
  }

  @Test
  @DisplayName(
      "two replicas: spread over nodes when possible (preferred anti-affinity) and a PodDisruptionBudget lets one go at a time")
  void availability() throws Exception {
    List<Map<String, Object>> objects = kustomize(DEPLOY);
    Map<String, Object> deployment = one(objects, "Deployment");
    assertEquals(2, (Integer) at(deployment, "spec", "replicas"));
    Map<String, Object> term =
        at(
            deployment,
            "spec",
            "template",
            "spec",
            "affinity",
            "podAntiAffinity",
            "preferredDuringSchedulingIgnoredDuringExecution",
            0,
            "podAffinityTerm");
    assertEquals("kubernetes.io/hostname", term.get("topologyKey"));
    Map<String, Object> podLabels = at(deployment, "spec", "template", "metadata", "labels");
    Map<String, Object> selects = at(term, "labelSelector", "matchLabels");
    selects.forEach(
        (k, v) -> assertEquals(v, podLabels.get(k), "anti-affinity selects the pods: " + k));
    Map<String, Object> pdb = one(objects, "PodDisruptionBudget");
    assertEquals("trainyard-system", at(pdb, "metadata", "namespace"));
    assertEquals(1, (Integer) at(pdb, "spec", "maxUnavailable"));
    Map<String, Object> pdbSelects = at(pdb, "spec", "selector", "matchLabels");
    assertEquals(
        at(deployment, "spec", "selector", "matchLabels"),
        pdbSelects,
        "the PDB covers the Deployment's pods");
  }

  @Test
  @DisplayName("the image is a kustomize parameter: an overlay's images: entry replaces it")
  void imageParameter() throws Exception {
    Files.writeString(
        tmp.resolve("kustomization.yaml"),
        """
                resources:
                - %s
                images:
                - name: trainyard-controller
                  newName: registry.test/platform/trainyard-controller
                  newTag: "9.9.9"
                """
            .formatted(tmp.relativize(DEPLOY)));
    Map<String, Object> pod = at(one(kustomize(tmp), "Deployment"), "spec", "template", "spec");
    assertEquals(
        "registry.test/platform/trainyard-controller:9.9.9", at(pod, "containers", 0, "image"));
  }

  @Test
  @DisplayName(
      "the overlay step of controller/deploy/README.md names the image by the digest Jib wrote (jib-image.digest)")
  void imageByDigest() throws Exception {
    // The shape of Jib's target/jib-image.digest: "sha256:" and 64 hex digits, no newline.
    String digest = "sha256:" + "0123456789abcdef".repeat(4);
    Files.writeString(
        tmp.resolve("kustomization.yaml"),
        """
                resources:
                - %s
                images:
                - name: trainyard-controller
                  newName: registry.test/platform/trainyard-controller
                  digest: %s
                """
            .formatted(tmp.relativize(DEPLOY), digest));
    Map<String, Object> pod = at(one(kustomize(tmp), "Deployment"), "spec", "template", "spec");
    assertEquals(
        "registry.test/platform/trainyard-controller@" + digest, at(pod, "containers", 0, "image"));
  }

  @Test
  @DisplayName(
      "the shipped controller.yaml and platform.yaml are valid: a GitHub forge for github.com, token from trainyard-forge-tokens/github-token")
  void shippedConfig() throws Exception {
    Files.createDirectories(tmp.resolve("tokens/trainyard-forge-tokens"));
    Files.writeString(tmp.resolve("tokens/trainyard-forge-tokens/github-token"), "t");
    String yaml =
        Files.readString(DEPLOY.resolve("controller.yaml"))
            .replace(
                "platform: " + ConfigFile.PLATFORM, "platform: " + DEPLOY.resolve("platform.yaml"))
            .replace("tokens: " + ConfigFile.TOKENS, "tokens: " + tmp.resolve("tokens"));
    Path copy = tmp.resolve("controller.yaml");
    Files.writeString(copy, yaml);
    ControllerConfig c = ConfigFile.read(copy);
    assertEquals("github.com", c.forges().get(0).prefix());
    assertEquals(
        "https://grafana.example.com/d/trainyard-run?var-cluster=prod&var-namespace=team-a&var-run=r1",
        c.targetUrl()
            .render(new RunKey("team-a", "js"), new RunProvenance("", "abc", "", "prod", "r1")));
    assertEquals(Duration.ofMinutes(10), c.stallAfter());
    assertEquals(8080, c.port());
    assertTrue(c.prune().isEmpty(), "pruning is off unless configured");
  }

  @Test
  @DisplayName(
      "the progress endpoint: Service trainyard-controller-progress 8443 → the container's port"
          + " progress, the optional Secret trainyard-progress-tls mounted where controller.yaml reads it")
  @SuppressWarnings("unchecked") // YAML read as plain maps
  void progressEndpoint() throws Exception {
    List<Map<String, Object>> objects = kustomize(DEPLOY);
    Map<String, Object> service =
        objects.stream()
            .filter(o -> "Service".equals(o.get("kind")))
            .filter(o -> "trainyard-controller-progress".equals(at(o, "metadata", "name")))
            .findFirst()
            .orElseThrow();
    assertEquals(8443, (Integer) at(service, "spec", "ports", 0, "port"));
    assertEquals("progress", at(service, "spec", "ports", 0, "targetPort"));
    Map<String, Object> pod = at(one(objects, "Deployment"), "spec", "template", "spec");
    Map<String, Object> c = at(pod, "containers", 0);
    List<Map<String, Object>> ports = at(c, "ports");
    assertTrue(
        ports.stream()
            .anyMatch(
                p ->
                    "progress".equals(p.get("name"))
                        && Integer.valueOf(8443).equals(p.get("containerPort"))),
        ports.toString());
    List<Map<String, Object>> volumes = at(pod, "volumes");
    Map<String, Object> tls =
        volumes.stream()
            .filter(v -> "progress-tls".equals(v.get("name")))
            .findFirst()
            .orElseThrow();
    assertEquals("trainyard-progress-tls", at(tls, "secret", "secretName"));
    assertEquals(Boolean.TRUE, at(tls, "secret", "optional"));
    List<Map<String, Object>> mounts = at(c, "volumeMounts");
    Map<String, Object> controllerYaml =
        new ObjectMapper(new YAMLFactory())
            .readValue(DEPLOY.resolve("controller.yaml").toFile(), Map.class);
    assertTrue(
        mounts.stream()
            .anyMatch(
                m ->
                    "progress-tls".equals(m.get("name"))
                        && at(controllerYaml, "progress", "tls").equals(m.get("mountPath"))),
        mounts.toString());
    assertEquals(8443, (Integer) at(controllerYaml, "progress", "port"));
  }
}
