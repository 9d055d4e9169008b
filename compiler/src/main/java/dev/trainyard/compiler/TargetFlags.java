package dev.trainyard.compiler;

import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.platform.PlatformLoader;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * {@code --target-cluster} and {@code --namespace} checked against platform.yaml once, before any
 * train.yaml is compiled: a value the platform does not define is a usage error naming the flag
 * (exit 2), not the same E310 at every train.yaml. Whether a namespace accepts a job's source repo
 * depends on the job, so that stays a diagnostic of its compile.
 *
 * <pre>
 * TargetFlags.check(Optional.of(Path.of("platform.yaml")), "platform.yaml", Optional.of("nosuch"), Optional.empty())
 *   → Refusal[flag=--target-cluster, message=--target-cluster nosuch: no such cluster in platform.yaml, hint=clusters: local, gpu]
 * </pre>
 */
public final class TargetFlags {
  /**
   * Why a flag's value is refused.
   *
   * @param flag {@code --target-cluster} or {@code --namespace}
   * @param message what is wrong, quoting the value
   * @param hint the values the platform defines
   */
  public record Refusal(String flag, String message, String hint) {}

  private TargetFlags() {}

  /**
   * {@link #check(Optional, String, Optional, Optional)} with the request's platform, cluster and
   * namespace.
   */
  public static Optional<Refusal> check(CompileRequest request) {
    return check(
        request.platformFile(),
        request
            .platformDisplay()
            .orElseGet(
                () -> Compiler.displayOf(request.platformFile(), request.workingDirectory())),
        request.cluster(),
        request.namespace());
  }

  /**
   * Loads the platform only when a flag is given (the common compile pays nothing). A platform.yaml
   * that does not load is left to the compile, which reports it at its lines.
   *
   * @param platformFile platform.yaml, or empty for the embedded default
   * @param display how messages name it
   */
  public static Optional<Refusal> check(
      Optional<Path> platformFile,
      String display,
      Optional<String> cluster,
      Optional<String> namespace) {
    // PlatformLoader gives a value only when it found no problem at all, so a value is a platform
    // to check against.
    return cluster
        .or(() -> namespace)
        .flatMap(
            given ->
                PlatformLoader.standard()
                    .load(platformFile, display)
                    .value()
                    .flatMap(p -> check(p, display, cluster, namespace)));
  }

  /** The same check against a loaded platform. */
  public static Optional<Refusal> check(
      Platform platform, String display, Optional<String> cluster, Optional<String> namespace) {
    List<String> clusters = platform.clusters().stream().map(Platform.Cluster::name).toList();
    if (cluster.isPresent() && !clusters.contains(cluster.get())) {
      return Optional.of(
          new Refusal(
              "--target-cluster",
              "--target-cluster " + cluster.get() + ": no such cluster in " + display,
              "clusters: " + String.join(", ", clusters)));
    }
    String target = cluster.orElse(clusters.get(0));
    List<String> namespaces =
        platform.namespaces().stream()
            .filter(n -> n.cluster().equals(target))
            .map(Platform.NamespaceRule::name)
            .toList();
    if (namespace.isPresent() && !namespaces.contains(namespace.get())) {
      return Optional.of(
          new Refusal(
              "--namespace",
              "--namespace "
                  + namespace.get()
                  + ": no such namespace of cluster "
                  + target
                  + " in "
                  + display,
              "namespaces of " + target + ": " + String.join(", ", namespaces)));
    }
    return Optional.empty();
  }
}
