package dev.trainyard.cluster;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Brings a {@link LocalCluster}'s apiserver to a usable cluster: CRDs from the cache, the JobSet
 * controller and its webhooks, controller-manager, scheduler, kwok with fake nodes, the Kueue
 * controller. Each step waits for its process to serve before returning. All servers bind to
 * 127.0.0.1.
 *
 * <p>Flags: kwokctl's binary runtime (kwok pkg/kwokctl/components) and the JobSet/Kueue config
 * types (jobset api/config/v1alpha1, kueue apis/config/v1beta2), as summarised in
 * reference/k8s-test-harness.md.
 */
final class ClusterBootstrap {

  static final String FIELD_MANAGER = "trainyard-it";

  private final LocalCluster cluster;
  private final K8sBinaries binaries;

  ClusterBootstrap(LocalCluster cluster, K8sBinaries binaries) {
    this.cluster = cluster;
    this.binaries = binaries;
  }

  private KubernetesClient client() {
    return cluster.client();
  }

  private Map<String, String> kubeconfigEnv() {
    return Map.of("KUBECONFIG", cluster.kubeconfig().toString());
  }

  /** Server-side applies every CRD file in the cache and waits until each is Established. */
  void installCrds() {
    CustomResourceDefinitions.install(client(), binaries.crds(), LocalCluster.READY_TIMEOUT);
  }

  /** JobSet controller with webhooks on 127.0.0.1 (they cannot be switched off, jobset main.go). */
  void startJobSetController() {
    int webhookPort = LoopbackPorts.free();
    int healthPort = LoopbackPorts.free();
    Path config =
        writeFile(
            "jobset-config.yaml",
            String.join(
                "\n",
                "apiVersion: config.jobset.x-k8s.io/v1alpha1",
                "kind: Configuration",
                "leaderElection: {leaderElect: false}",
                "internalCertManagement: {enable: false}",
                "webhook: {port: "
                    + webhookPort
                    + ", host: 127.0.0.1, certDir: "
                    + cluster.certificates().webhookCertDir()
                    + "}",
                "health: {healthProbeBindAddress: '127.0.0.1:" + healthPort + "'}",
                ""));
    ClusterProcess jobset =
        cluster.launch(
            "jobset",
            List.of(
                binaries.bin("jobset").toString(),
                "--config=" + config,
                "--kubeconfig=" + cluster.kubeconfig(),
                "--metrics-bind-address=0",
                "--zap-log-level=info"),
            kubeconfigEnv());
    cluster.waitForPort(jobset, webhookPort);
    new JobSetWebhooks(webhookPort, cluster.certificates().caBundle()).register(client());
  }

  void startControllerManager() {
    int port = LoopbackPorts.free();
    ClusterProcess kcm =
        cluster.launch(
            "kube-controller-manager",
            List.of(
                binaries.bin("kube-controller-manager").toString(),
                "--kubeconfig=" + cluster.kubeconfig(),
                "--authentication-kubeconfig=" + cluster.kubeconfig(),
                "--authorization-kubeconfig=" + cluster.kubeconfig(),
                "--leader-elect=false",
                "--bind-address=127.0.0.1",
                "--secure-port=" + port,
                "--cert-dir=" + LocalCluster.mkdirs(cluster.workDir().resolve("kcm-certs")),
                "--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics",
                "--service-account-private-key-file=" + cluster.certificates().file("sa.key"),
                "--root-ca-file=" + cluster.certificates().file("ca.crt"),
                "--use-service-account-credentials=false",
                "--concurrent-job-syncs=10",
                "--node-monitor-grace-period=60s"),
            Map.of());
    cluster.waitForPort(kcm, port);
  }

  void startScheduler() {
    int port = LoopbackPorts.free();
    ClusterProcess scheduler =
        cluster.launch(
            "kube-scheduler",
            List.of(
                binaries.bin("kube-scheduler").toString(),
                "--kubeconfig=" + cluster.kubeconfig(),
                "--authentication-kubeconfig=" + cluster.kubeconfig(),
                "--authorization-kubeconfig=" + cluster.kubeconfig(),
                "--leader-elect=false",
                "--bind-address=127.0.0.1",
                "--secure-port=" + port,
                "--cert-dir=" + LocalCluster.mkdirs(cluster.workDir().resolve("scheduler-certs")),
                "--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics"),
            Map.of());
    cluster.waitForPort(scheduler, port);
  }

  /**
   * kwok with its upstream fast stages plus our failure and outcome stages, then the fake nodes,
   * waited Ready. When kwok's Logs CRD is in the Go module cache it is installed and kwok serves
   * container logs from the files Logs objects name ({@link KwokLogs}): its nodes get InternalIP
   * 127.0.0.1 and kwok's port as kubelet port.
   */
  void startKwok() {
    int port = LoopbackPorts.free();
    Path stages =
        writeFile(
            "kwok-stages.yaml",
            read(binaries.kwokStages())
                + "\n---\n"
                + resource("kwok/pod-fail-stage.yaml")
                + "\n---\n"
                + resource("kwok/pod-recover-stage.yaml")
                + "\n---\n"
                + resource("kwok/pod-outcome-stages.yaml")
                + "\n---\n"
                + resource("kwok/node-unreachable-stages.yaml"));
    List<String> command =
        new ArrayList<>(
            List.of(
                binaries.bin("kwok").toString(),
                "--kubeconfig=" + cluster.kubeconfig(),
                "--config=" + stages,
                "--manage-all-nodes=true",
                "--server-address=127.0.0.1:" + port,
                "--node-lease-duration-seconds=40",
                "--cidr=10.64.0.0/16"));
    Optional<Path> logsCrd = KwokLogs.crd(binaries);
    if (logsCrd.isPresent()) {
      Path dir = LocalCluster.mkdirs(cluster.workDir().resolve("kwok-crds"));
      try {
        Files.copy(
            logsCrd.get(),
            dir.resolve(logsCrd.get().getFileName()),
            StandardCopyOption.REPLACE_EXISTING);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      CustomResourceDefinitions.install(client(), dir, LocalCluster.READY_TIMEOUT);
      command.addAll(List.of("--enable-crds=Logs", "--node-ip=127.0.0.1", "--node-port=" + port));
    }
    ClusterProcess kwok = cluster.launch("kwok", command, kubeconfigEnv());
    cluster.waitForPort(kwok, port);
    FakeNodes.createAndAwaitReady(client(), kwok);
  }

  /** Kueue controller (T4); only called when {@code bin/kueue} exists. */
  void startKueueController() {
    new KueueController(cluster, binaries).start();
  }

  Path writeFile(String name, String content) {
    Path path = cluster.workDir().resolve(name);
    try {
      Files.writeString(path, content, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return path;
  }

  private static String read(Path path) {
    try {
      return Files.readString(path, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String resource(String name) {
    try (InputStream in = ClusterBootstrap.class.getResourceAsStream("/" + name)) {
      if (in == null) {
        throw new IllegalStateException("missing test resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
