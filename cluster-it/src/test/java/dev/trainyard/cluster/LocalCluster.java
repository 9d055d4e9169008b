package dev.trainyard.cluster;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A throw-away cluster on 127.0.0.1 made of processes from the binaries cache: etcd,
 * kube-apiserver, then (as asked) the JobSet controller with webhooks, kube-controller-manager,
 * kube-scheduler, kwok with fake nodes and the Kueue controller. All state lives under {@code
 * workDir}; {@link #close()} kills every process tree it started, newest first.
 *
 * <p>Flags follow reference/k8s-test-harness.md section 5 (kwokctl's binary runtime and envtest).
 * kube-api-test 7.6.1 is not used: it binds etcd to 0.0.0.0 and its env config throws
 * ClassCastException (section 3).
 */
public final class LocalCluster implements KubeCluster, AutoCloseable {

  static final Duration READY_TIMEOUT = Duration.ofSeconds(120);
  private static final AtomicInteger NAMESPACES = new AtomicInteger();

  private final K8sBinaries binaries;
  private final Path workDir;
  private final Set<Component> components;
  private final List<ClusterProcess> processes = Collections.synchronizedList(new ArrayList<>());
  private final Map<String, Duration> startupTimes = new LinkedHashMap<>();
  private final Thread shutdownHook = new Thread(this::stopProcesses, "trainyard-cluster-shutdown");
  private ClusterCertificates certs;
  private Path kubeconfig;
  private int apiServerPort;
  private KubernetesClient client;

  private LocalCluster(K8sBinaries binaries, Path workDir, Set<Component> components) {
    this.binaries = binaries;
    this.workDir = workDir;
    this.components = EnumSet.copyOf(components);
  }

  /**
   * Starts the given components (etcd and the apiserver always); fails with the failing process's
   * log.
   */
  public static LocalCluster start(K8sBinaries binaries, Path workDir, Set<Component> components) {
    LocalCluster cluster = new LocalCluster(binaries, workDir, components);
    Runtime.getRuntime().addShutdownHook(cluster.shutdownHook);
    try {
      cluster.startAll();
      return cluster;
    } catch (RuntimeException | Error e) {
      cluster.close();
      throw e;
    }
  }

  private void startAll() {
    timed(
        "certificates",
        () -> {
          certs = ClusterCertificates.generate(mkdirs(workDir.resolve("pki")));
        });
    int[] etcdPort = new int[1];
    timed(
        "etcd",
        () -> {
          etcdPort[0] = startEtcd();
        });
    timed("kube-apiserver", () -> startApiServer(etcdPort[0]));
    ClusterBootstrap bootstrap = new ClusterBootstrap(this, binaries);
    timed("crds", bootstrap::installCrds);
    if (runs(Component.JOBSET_CONTROLLER)) {
      timed("jobset", bootstrap::startJobSetController);
    }
    if (runs(Component.KUBE_CONTROLLER_MANAGER)) {
      timed("kube-controller-manager", bootstrap::startControllerManager);
    }
    if (runs(Component.KUBE_SCHEDULER)) {
      timed("kube-scheduler", bootstrap::startScheduler);
    }
    if (runs(Component.KWOK)) {
      timed("kwok", bootstrap::startKwok);
    }
    if (runs(Component.KUEUE_CONTROLLER)) {
      timed("kueue", bootstrap::startKueueController);
    }
  }

  private int startEtcd() {
    int clientPort = LoopbackPorts.free();
    int peerPort = LoopbackPorts.free();
    String client = "http://127.0.0.1:" + clientPort;
    String peer = "http://127.0.0.1:" + peerPort;
    ClusterProcess etcd =
        launch(
            "etcd",
            List.of(
                binaries.bin("etcd").toString(),
                "--name=node0",
                "--data-dir=" + mkdirs(workDir.resolve("etcd")),
                "--listen-client-urls=" + client,
                "--advertise-client-urls=" + client,
                "--listen-peer-urls=" + peer,
                "--initial-advertise-peer-urls=" + peer,
                "--initial-cluster=node0=" + peer,
                "--unsafe-no-fsync=true",
                "--log-level=warn"),
            Map.of());
    waitForPort(etcd, clientPort);
    return clientPort;
  }

  private void startApiServer(int etcdPort) {
    apiServerPort = LoopbackPorts.free();
    ClusterProcess apiserver =
        launch(
            "kube-apiserver",
            List.of(
                binaries.bin("kube-apiserver").toString(),
                "--etcd-servers=http://127.0.0.1:" + etcdPort,
                "--bind-address=127.0.0.1",
                "--advertise-address=127.0.0.1",
                "--secure-port=" + apiServerPort,
                "--endpoint-reconciler-type=none",
                "--cert-dir=" + mkdirs(workDir.resolve("apiserver-certs")),
                "--tls-cert-file=" + certs.file("apiserver.crt"),
                "--tls-private-key-file=" + certs.file("apiserver.key"),
                "--client-ca-file=" + certs.file("ca.crt"),
                "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
                "--service-account-key-file=" + certs.file("sa.pub"),
                "--service-account-signing-key-file=" + certs.file("sa.key"),
                "--service-cluster-ip-range=10.0.0.0/24",
                "--authorization-mode=RBAC",
                "--allow-privileged=true",
                // Pods on kwok nodes need no tokens; without this admission waits for kcm's default
                // SA.
                "--disable-admission-plugins=ServiceAccount",
                // DefaultTolerationSeconds gives every pod 300 s on a not-ready or unreachable node
                // before the taint
                // manager evicts it; NodeLossIT's unreachable node would wait that long. No other
                // test has such a node.
                "--default-not-ready-toleration-seconds=5",
                "--default-unreachable-toleration-seconds=5",
                "--enable-priority-and-fairness=false",
                "--profiling=false",
                // kwok nodes have a Hostname address nothing resolves; logs go to their InternalIP
                // (kwok's server).
                "--kubelet-preferred-address-types=InternalIP"),
            Map.of());
    kubeconfig = writeKubeconfig();
    client = new KubernetesClientBuilder().withConfig(clientConfig()).build();
    Eventually.await(
        "kube-apiserver /readyz",
        READY_TIMEOUT,
        () -> {
          apiserver.requireAlive();
          return "ok".equals(client.raw("/readyz"));
        });
  }

  private Path writeKubeconfig() {
    String yaml =
        String.join(
            "\n",
            "apiVersion: v1",
            "kind: Config",
            "current-context: trainyard-it",
            "clusters:",
            "- name: trainyard-it",
            "  cluster:",
            "    server: https://127.0.0.1:" + apiServerPort,
            "    certificate-authority: " + certs.file("ca.crt"),
            "users:",
            "- name: admin",
            "  user:",
            "    client-certificate: " + certs.file("admin.crt"),
            "    client-key: " + certs.file("admin.key"),
            "contexts:",
            "- name: trainyard-it",
            "  context: {cluster: trainyard-it, user: admin}",
            "");
    Path path = workDir.resolve("kubeconfig");
    try {
      Files.writeString(path, yaml, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return path;
  }

  private Config clientConfig() {
    try {
      Config config = Config.fromKubeconfig(Files.readString(kubeconfig));
      config.setRequestTimeout(30_000);
      config.setConnectionTimeout(10_000);
      return config;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Starts a process whose log goes to {@code workDir/logs}; it is stopped by {@link #close()}. */
  ClusterProcess launch(String name, List<String> command, Map<String, String> env) {
    ClusterProcess process =
        ClusterProcess.start(name, command, env, mkdirs(workDir.resolve("logs")));
    processes.add(process);
    return process;
  }

  void waitForPort(ClusterProcess process, int port) {
    Eventually.await(
        process.name() + " listening on 127.0.0.1:" + port,
        READY_TIMEOUT,
        () -> {
          process.requireAlive();
          return LoopbackPorts.listening(port);
        });
  }

  ClusterCertificates certificates() {
    return certs;
  }

  Path workDir() {
    return workDir;
  }

  /** Per-step start durations in start order, e.g. {@code kube-apiserver -> PT6.2S}. */
  public Map<String, Duration> startupTimes() {
    return Collections.unmodifiableMap(new LinkedHashMap<>(startupTimes));
  }

  /** The processes started so far, oldest first. */
  List<ClusterProcess> processes() {
    synchronized (processes) {
      return List.copyOf(processes);
    }
  }

  @Override
  public KubernetesClient client() {
    return client;
  }

  @Override
  public Path kubeconfig() {
    return kubeconfig;
  }

  @Override
  public boolean runs(Component component) {
    return components.contains(component)
        || component == Component.ETCD
        || component == Component.KUBE_APISERVER;
  }

  @Override
  public String newNamespace() {
    String name =
        "it-" + NAMESPACES.incrementAndGet() + "-" + UUID.randomUUID().toString().substring(0, 6);
    client
        .namespaces()
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName(name)
                .addToLabels("trainyard.dev/it", "true")
                .endMetadata()
                .build())
        .create();
    return name;
  }

  @Override
  public void close() {
    if (!processes().isEmpty() && Files.isDirectory(workDir)) {
      ClusterFootprint.write(this, workDir.resolve("footprint-at-close.txt"));
    }
    if (client != null) {
      client.close();
    }
    stopProcesses();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException alreadyShuttingDown) {
      // the hook itself is running
    }
  }

  private void stopProcesses() {
    List<ClusterProcess> newestFirst = new ArrayList<>(processes());
    Collections.reverse(newestFirst);
    newestFirst.forEach(ClusterProcess::stop);
  }

  private void timed(String step, Runnable action) {
    long start = System.nanoTime();
    action.run();
    startupTimes.put(step, Duration.ofNanos(System.nanoTime() - start));
  }

  static Path mkdirs(Path dir) {
    try {
      return Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
