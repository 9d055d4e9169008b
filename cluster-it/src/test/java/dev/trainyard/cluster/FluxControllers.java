package dev.trainyard.cluster;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Flux's source-controller and kustomize-controller (v1.9.6, from {@link FluxBinaries}) as plain
 * processes against a cluster's admin kubeconfig, the way {@link LocalCluster} runs the other
 * controllers. {@link #start} applies the Flux CRDs from the cache, creates namespace {@value
 * #NAMESPACE} and waits until both controllers serve their health endpoint; {@link #close()} kills
 * both process trees, newest first.
 *
 * <p>Flags from the binaries' {@code --help}: every listener ({@code --storage-addr}, {@code
 * --metrics-addr}, {@code --health-addr}) is bound to a free 127.0.0.1 port, since the defaults
 * ({@code :9090}, {@code :8080}, {@code :9440}) bind every interface. source-controller serves
 * artifacts from {@code --storage-path} (which must exist: "invalid dir path") at {@code
 * --storage-adv-addr}, the address written into {@code GitRepository.status.artifact.url} that
 * kustomize-controller downloads from. {@code --events-addr=} (empty) sends no events to a
 * notification-controller, which is not run. {@code --requeue-dependency=2s} re-checks a
 * Kustomization's {@code dependsOn} every 2 s instead of 30 s. Both find the cluster through {@code
 * KUBECONFIG} (controller-runtime's lookup) and their own namespace through {@code
 * RUNTIME_NAMESPACE}. Logs: {@code <workDir>/logs/<controller>.log}.
 */
final class FluxControllers implements AutoCloseable {

  static final String NAMESPACE = "flux-system";

  private final List<ClusterProcess> processes = Collections.synchronizedList(new ArrayList<>());
  private final Thread shutdownHook = new Thread(this::stopProcesses, "trainyard-flux-shutdown");
  private final FluxBinaries binaries;
  private final KubeCluster cluster;
  private final Path workDir;

  private FluxControllers(FluxBinaries binaries, KubeCluster cluster, Path workDir) {
    this.binaries = binaries;
    this.cluster = cluster;
    this.workDir = workDir;
  }

  /** CRDs, namespace, then both controllers; a controller that exits fails with its log's tail. */
  static FluxControllers start(FluxBinaries binaries, KubeCluster cluster, Path workDir) {
    FluxControllers flux = new FluxControllers(binaries, cluster, workDir);
    Runtime.getRuntime().addShutdownHook(flux.shutdownHook);
    try {
      CustomResourceDefinitions.install(
          cluster.client(), binaries.crds(), LocalCluster.READY_TIMEOUT);
      cluster
          .client()
          .resource(
              new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
          .fieldManager(ClusterBootstrap.FIELD_MANAGER)
          .serverSideApply();
      flux.startSourceController();
      flux.startKustomizeController();
      return flux;
    } catch (RuntimeException | Error e) {
      flux.close();
      throw e;
    }
  }

  private void startSourceController() {
    int storagePort = LoopbackPorts.free();
    String storage = "127.0.0.1:" + storagePort;
    List<String> command =
        new ArrayList<>(
            List.of(
                binaries.bin("source-controller").toString(),
                "--storage-path=" + LocalCluster.mkdirs(workDir.resolve("source-storage")),
                "--storage-addr=" + storage,
                "--storage-adv-addr=" + storage));
    ClusterProcess process = launch("source-controller", command);
    awaitPort(process, storagePort);
  }

  private void startKustomizeController() {
    launch(
        "kustomize-controller",
        new ArrayList<>(
            List.of(binaries.bin("kustomize-controller").toString(), "--requeue-dependency=2s")));
  }

  /** Adds the flags both controllers share, starts the process and waits for its health port. */
  private ClusterProcess launch(String name, List<String> command) {
    int healthPort = LoopbackPorts.free();
    command.addAll(
        List.of(
            "--metrics-addr=127.0.0.1:" + LoopbackPorts.free(),
            "--health-addr=127.0.0.1:" + healthPort,
            "--events-addr=",
            "--log-level=debug"));
    ClusterProcess process =
        ClusterProcess.start(
            name,
            command,
            Map.of("KUBECONFIG", cluster.kubeconfig().toString(), "RUNTIME_NAMESPACE", NAMESPACE),
            LocalCluster.mkdirs(workDir.resolve("logs")));
    processes.add(process);
    awaitPort(process, healthPort);
    return process;
  }

  private static void awaitPort(ClusterProcess process, int port) {
    Eventually.await(
        process.name() + " listening on 127.0.0.1:" + port,
        LocalCluster.READY_TIMEOUT,
        () -> {
          process.requireAlive();
          return LoopbackPorts.listening(port);
        });
  }

  /** The controllers started so far, oldest first. */
  List<ClusterProcess> processes() {
    synchronized (processes) {
      return List.copyOf(processes);
    }
  }

  /** The last {@code lines} of a controller's log, for failure messages. */
  String logTail(String controller, int lines) {
    synchronized (processes) {
      return processes.stream()
          .filter(p -> p.name().equals(controller))
          .findFirst()
          .map(p -> p.tail(lines))
          .orElse("(" + controller + " not started)");
    }
  }

  @Override
  public void close() {
    stopProcesses();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException alreadyShuttingDown) {
      // the hook itself is running
    }
  }

  private void stopProcesses() {
    List<ClusterProcess> newestFirst;
    synchronized (processes) {
      newestFirst = new ArrayList<>(processes);
    }
    Collections.reverse(newestFirst);
    newestFirst.forEach(ClusterProcess::stop);
  }
}
