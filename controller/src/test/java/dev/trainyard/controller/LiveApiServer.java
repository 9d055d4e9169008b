package dev.trainyard.controller;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.trainyard.compiler.cluster.LocalApiServer;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeStatusBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The real API server of the controller's unit tests: the compiler's {@link LocalApiServer} (etcd
 * and kube-apiserver from {@code scripts/k8s-testbin}'s cache, with the JobSet and Kueue CRDs the
 * cache copied from the projects' Go modules), one per JVM, so PIT's runs of a test class per
 * mutant start it once; the CLI's tests use it through the controller's test-jar. No controllers
 * run: a test writes the objects and their status itself, the way the JobSet controller, the
 * kubelet and Kueue would. Without the binaries cache a test is reported as not run (a JUnit
 * assumption).
 */
public final class LiveApiServer {

  public static final String COMMIT = "6f1c2d3e4a5b6c7d8e9f00112233445566778899";

  /** The source host the tests' forge endpoint serves. */
  public static final String HOST = "gh-ctl.test";

  private static final AtomicInteger NAMESPACES = new AtomicInteger();
  private static KubernetesClient client;
  private static Path kubeconfig;

  private LiveApiServer() {}

  /**
   * An admin client of the shared server; the test is skipped (with the reason) without the
   * binaries.
   */
  public static synchronized KubernetesClient client() {
    if (client == null) {
      client = new KubernetesClientBuilder().withConfig(config(kubeconfig())).build();
    }
    return client;
  }

  /** The shared server's kubeconfig (context {@code local}, namespace unset). */
  public static synchronized Path kubeconfig() {
    if (kubeconfig == null) {
      StringBuilder reason = new StringBuilder();
      Optional<Path> cache = LocalApiServer.binaries(reason);
      assumeTrue(cache.isPresent(), "NOT RUN: " + reason);
      kubeconfig = LocalApiServer.shared(cache.get()).kubeconfig();
    }
    return kubeconfig;
  }

  static Config config(Path kubeconfig) {
    Config c = Config.fromKubeconfig(null, kubeconfig.toFile());
    c.setRequestRetryBackoffLimit(1);
    return c;
  }

  /**
   * A new namespace {@code prefix-N} (namespaces are never deleted: no namespace controller runs).
   */
  public static String namespace(String prefix) {
    String name =
        prefix
            + "-"
            + NAMESPACES.incrementAndGet()
            + "-"
            + Long.toHexString(System.nanoTime() & 0xffffff);
    client()
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
        .create();
    return name;
  }

  /**
   * A JobSet {@code name} of one replicated job "node" with {@code pods} pods, source commit {@link
   * #COMMIT} when {@code run}.
   */
  public static GenericKubernetesResource jobSet(
      String namespace, String name, int pods, boolean run) {
    Map<String, String> annotations = new LinkedHashMap<>();
    if (run) {
      annotations.put("trainyard.dev/source-commit", COMMIT);
      annotations.put("trainyard.dev/source-repo", "https://" + HOST + "/acme/" + name + ".git");
      annotations.put("trainyard.dev/source-path", "jobs/" + name + "/train.yaml");
      annotations.put("trainyard.dev/cluster", "unit");
    }
    String yaml =
        """
                apiVersion: jobset.x-k8s.io/v1alpha2
                kind: JobSet
                metadata: {name: %s, namespace: %s, labels: {trainyard.dev/run: %s}}
                spec:
                  replicatedJobs:
                  - name: node
                    replicas: 1
                    template:
                      spec:
                        parallelism: %d
                        completions: %d
                        completionMode: Indexed
                        template:
                          spec:
                            restartPolicy: Never
                            containers: [{name: main, image: busybox:1.37}]
                """
            .formatted(name, namespace, "run-" + name, pods, pods);
    GenericKubernetesResource js = Serialization.unmarshal(yaml, GenericKubernetesResource.class);
    js.getMetadata().setAnnotations(run ? annotations : null);
    return client().resource(js).create();
  }

  /**
   * Pod {@code index} of {@code jobSet}'s replicated job "node", labelled as the JobSet controller
   * does, not scheduled.
   */
  public static Pod pod(String namespace, String jobSet, int index, int attempt) {
    return pod(namespace, jobSet, index, attempt, null);
  }

  /** As above, bound to {@code node} (null: unscheduled); no Node object exists for it. */
  public static Pod pod(String namespace, String jobSet, int index, int attempt, String node) {
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName(jobSet + "-node-0-" + index + "-a" + attempt)
            .withNamespace(namespace)
            .addToLabels(Snapshots.JOBSET_NAME, jobSet)
            .addToLabels(RunLogs.RJOB, "node")
            .addToLabels(RunLogs.JOB_INDEX, "0")
            .addToLabels(Snapshots.RESTART_ATTEMPT, Integer.toString(attempt))
            .addToAnnotations(RunLogs.COMPLETION_INDEX, Integer.toString(index))
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("main")
            .withImage("busybox:1.37")
            .endContainer()
            .withRestartPolicy("Never")
            .withNodeName(node)
            .endSpec()
            .build();
    return client().resource(pod).create();
  }

  /**
   * Writes {@code pod}'s status as the kubelet does once its container runs and is ready: phase
   * Running, condition Ready True, the main container running since {@code started}.
   */
  public static Pod running(Pod pod, String started) {
    Pod now = client().pods().resource(pod).get();
    now.setStatus(
        new PodStatusBuilder()
            .withPhase("Running")
            .withStartTime(started)
            .addNewCondition()
            .withType("Ready")
            .withStatus("True")
            .withLastTransitionTime(started)
            .endCondition()
            .addNewContainerStatus()
            .withName("main")
            .withImage("busybox:1.37")
            .withReady(true)
            .withStarted(true)
            .withRestartCount(0)
            .withNewState()
            .withNewRunning()
            .withStartedAt(started)
            .endRunning()
            .endState()
            .endContainerStatus()
            .build());
    return client().resource(now).updateStatus();
  }

  /**
   * A Node {@code name} as the kubelet registers it: InternalIP 127.0.0.1 and the kubelet's port,
   * {@code port}, where the API server asks for the logs of its pods (no other status). Nodes are
   * cluster-wide: give each test its own name.
   */
  public static Node node(String name, int port) {
    Node created =
        client()
            .resource(new NodeBuilder().withNewMetadata().withName(name).endMetadata().build())
            .create();
    created.setStatus(
        new NodeStatusBuilder()
            .addNewAddress()
            .withType("InternalIP")
            .withAddress("127.0.0.1")
            .endAddress()
            .withNewDaemonEndpoints()
            .withNewKubeletEndpoint()
            .withPort(port)
            .endKubeletEndpoint()
            .endDaemonEndpoints()
            .build());
    return client().resource(created).updateStatus();
  }

  /** A LocalQueue {@code name} in {@code namespace} naming ClusterQueue {@code name}-cq. */
  public static GenericKubernetesResource localQueue(String namespace, String name) {
    String yaml =
        """
                apiVersion: kueue.x-k8s.io/v1beta2
                kind: LocalQueue
                metadata: {name: %s, namespace: %s}
                spec: {clusterQueue: %s-cq}
                """
            .formatted(name, namespace, name);
    return client()
        .resource(Serialization.unmarshal(yaml, GenericKubernetesResource.class))
        .create();
  }

  /**
   * {@code jobSet} labelled for LocalQueue {@code queue} ({@code kueue.x-k8s.io/queue-name}), as a
   * compiled run is.
   */
  public static GenericKubernetesResource queued(GenericKubernetesResource jobSet, String queue) {
    return client()
        .resource(jobSet)
        .edit(
            js -> {
              js.getMetadata().getLabels().put("kueue.x-k8s.io/queue-name", queue);
              return js;
            });
  }

  /**
   * A Kueue Workload (v1beta2) owned by {@code jobSet}, as Kueue's JobSet integration creates it.
   */
  public static GenericKubernetesResource workload(GenericKubernetesResource jobSet, String queue) {
    String yaml =
        """
                apiVersion: kueue.x-k8s.io/v1beta2
                kind: Workload
                metadata: {name: jobset-%s, namespace: %s}
                spec:
                  queueName: %s
                  podSets:
                  - name: node
                    count: 1
                    template:
                      spec:
                        restartPolicy: Never
                        containers: [{name: main, image: busybox:1.37}]
                """
            .formatted(jobSet.getMetadata().getName(), jobSet.getMetadata().getNamespace(), queue);
    GenericKubernetesResource w = Serialization.unmarshal(yaml, GenericKubernetesResource.class);
    w.getMetadata()
        .setOwnerReferences(
            List.of(
                new OwnerReferenceBuilder()
                    .withApiVersion(ClusterWatch.JOBSET_API)
                    .withKind("JobSet")
                    .withName(jobSet.getMetadata().getName())
                    .withUid(jobSet.getMetadata().getUid())
                    .withController(true)
                    .build()));
    return client().resource(w).create();
  }

  /**
   * Sets {@code jobSet}'s status conditions to one condition {@code type} True, as the JobSet
   * controller does.
   */
  public static void condition(GenericKubernetesResource jobSet, String type, String reason) {
    GenericKubernetesResource now =
        client()
            .genericKubernetesResources(ClusterWatch.JOBSET_API, "JobSet")
            .inNamespace(jobSet.getMetadata().getNamespace())
            .withName(jobSet.getMetadata().getName())
            .get();
    now.getAdditionalProperties()
        .put(
            "status",
            Map.of(
                "conditions",
                List.of(
                    Map.of(
                        "type",
                        type,
                        "status",
                        "True",
                        "reason",
                        reason,
                        "message",
                        reason,
                        "lastTransitionTime",
                        "2026-12-01T08:00:00Z"))));
    client().resource(now).updateStatus();
  }

  /**
   * Waits until {@code condition} holds, at most {@code timeout}; fails naming {@code what} and
   * {@code state}.
   */
  public static void await(
      String what, Duration timeout, BooleanSupplier condition, Supplier<String> state) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "timed out after "
                + timeout.toSeconds()
                + " s waiting for "
                + what
                + "; "
                + state.get());
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what, e);
      }
    }
  }

  public static void await(String what, BooleanSupplier condition) {
    await(what, Duration.ofSeconds(30), condition, () -> "");
  }
}
