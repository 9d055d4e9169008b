package dev.trainyard.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension that injects a {@link KubeCluster} parameter. One cluster serves the whole test
 * run: it lives in the root {@link ExtensionContext} store and is closed (every process tree
 * killed) when the run ends.
 *
 * <p>Target: {@code -Dtrainyard.kubeconfig=PATH} / env {@code TRAINYARD_KUBECONFIG} for an existing
 * cluster; otherwise a {@link LocalCluster} with the full stack (T3, plus Kueue when {@code
 * bin/kueue} was built) from the {@link K8sBinaries} cache, working in {@code -Dtrainyard.work.dir}
 * (default {@code target/cluster}). A missing cache fails every test with the hint to run {@code
 * scripts/k8s-testbin}.
 */
public final class KubeClusterExtension implements ParameterResolver {

  private static final ExtensionContext.Namespace STORE =
      ExtensionContext.Namespace.create(KubeClusterExtension.class);

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == KubeCluster.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return shared(context);
  }

  /** The run's cluster, started on first use; a failed start fails every later test at once. */
  public static KubeCluster shared(ExtensionContext context) {
    return context
        .getRoot()
        .getStore(STORE)
        .getOrComputeIfAbsent("cluster", key -> SharedCluster.attempt(), SharedCluster.class)
        .get();
  }

  /** The outcome of the one start attempt per run; closed by JUnit with the root store. */
  private record SharedCluster(KubeCluster cluster, RuntimeException failure)
      implements AutoCloseable {

    static SharedCluster attempt() {
      try {
        return new SharedCluster(startCluster(), null);
      } catch (RuntimeException e) {
        return new SharedCluster(null, e);
      }
    }

    KubeCluster get() {
      if (failure != null) {
        throw new IllegalStateException(
            "the shared test cluster did not start: " + failure.getMessage(), failure);
      }
      return cluster;
    }

    @Override
    public void close() {
      if (cluster instanceof LocalCluster local) {
        local.close();
      } else if (cluster instanceof ExistingCluster existing) {
        existing.close();
      }
    }
  }

  private static KubeCluster startCluster() {
    String kubeconfig =
        System.getProperty("trainyard.kubeconfig", System.getenv("TRAINYARD_KUBECONFIG"));
    if (kubeconfig != null && !kubeconfig.isBlank()) {
      return new ExistingCluster(Path.of(kubeconfig));
    }
    K8sBinaries binaries = K8sBinaries.locate();
    Set<Component> components =
        EnumSet.of(
            Component.JOBSET_CONTROLLER,
            Component.KUBE_CONTROLLER_MANAGER,
            Component.KUBE_SCHEDULER,
            Component.KWOK);
    if (binaries.has(Component.KUEUE_CONTROLLER.binary())) {
      components.add(Component.KUEUE_CONTROLLER);
    }
    Path dir = workDir("shared");
    LocalCluster cluster = LocalCluster.start(binaries, dir, components);
    ClusterFootprint.write(cluster, dir.resolve("footprint-at-start.txt"));
    return cluster;
  }

  /** An emptied directory {@code <trainyard.work.dir>/<name>} for one cluster's state and logs. */
  static Path workDir(String name) {
    Path dir =
        Path.of(System.getProperty("trainyard.work.dir", "target/cluster"))
            .toAbsolutePath()
            .resolve(name);
    try (Stream<Path> old = Files.exists(dir) ? Files.walk(dir) : Stream.empty()) {
      old.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot clear " + dir, e);
    }
    return LocalCluster.mkdirs(dir);
  }
}
