package dev.trainyard.compiler.resolve;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.resolve.ResolvedJob.Target;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Picks cluster, namespace and queue. A train.yaml cannot escape its team: the namespace must list
 * a {@code sources} pattern matching the source repo, and the queue must be a LocalQueue of that
 * namespace.
 */
final class TargetChoice {
  private TargetChoice() {}

  static Optional<Target> choose(ResolveInput in, List<Diagnostic> problems) {
    Platform p = in.platform();
    String clusterName = in.cluster().orElse(p.clusters().get(0).name());
    Optional<Platform.Cluster> cluster = p.cluster(clusterName);
    if (cluster.isEmpty()) {
      problems.add(
          Diagnostic.error(
                  DiagnosticCode.UNKNOWN_TARGET,
                  fileOf(in),
                  "",
                  "cluster \"" + clusterName + "\" is not in " + p.origin())
              .withHint(
                  "clusters: "
                      + String.join(
                          ", ", p.clusters().stream().map(Platform.Cluster::name).toList())));
      return Optional.empty();
    }
    Optional<Platform.NamespaceRule> ns = namespace(in, clusterName, problems);
    if (ns.isEmpty()) {
      return Optional.empty();
    }
    return queue(in, cluster.get(), ns.get(), problems);
  }

  private static Optional<Platform.NamespaceRule> namespace(
      ResolveInput in, String cluster, List<Diagnostic> problems) {
    String repo = in.source().normalizedRepo();
    List<Platform.NamespaceRule> inCluster =
        in.platform().namespaces().stream().filter(n -> n.cluster().equals(cluster)).toList();
    Optional<Platform.NamespaceRule> chosen =
        in.namespace().isPresent()
            ? inCluster.stream().filter(n -> n.name().equals(in.namespace().get())).findFirst()
            : inCluster.stream().filter(n -> allows(n, repo)).findFirst();
    if (chosen.isEmpty()) {
      String known =
          String.join(", ", inCluster.stream().map(Platform.NamespaceRule::name).toList());
      problems.add(
          Diagnostic.error(
                  DiagnosticCode.UNKNOWN_TARGET,
                  fileOf(in),
                  "",
                  in.namespace()
                      .map(
                          n ->
                              "namespace \""
                                  + n
                                  + "\" is not defined for cluster \""
                                  + cluster
                                  + "\"")
                      .orElse(
                          "no namespace of cluster \"" + cluster + "\" accepts jobs from " + repo))
              .withHint(
                  "namespaces of \""
                      + cluster
                      + "\": "
                      + known
                      + "; the platform team lists allowed source repos per namespace in "
                      + in.platform().origin()));
      return Optional.empty();
    }
    if (!allows(chosen.get(), repo)) {
      problems.add(
          Diagnostic.error(
                  DiagnosticCode.QUEUE_NOT_ALLOWED,
                  fileOf(in),
                  "",
                  "namespace \"" + chosen.get().name() + "\" does not accept jobs from " + repo)
              .withHint(
                  "it accepts "
                      + String.join(", ", chosen.get().sources())
                      + " ("
                      + in.platform().origin()
                      + ")"));
      return Optional.empty();
    }
    return chosen;
  }

  private static Optional<Target> queue(
      ResolveInput in,
      Platform.Cluster cluster,
      Platform.NamespaceRule ns,
      List<Diagnostic> problems) {
    String name = in.spec().queue().orElse(ns.defaultQueue());
    Optional<Platform.LocalQueue> lq = in.platform().localQueue(ns.name(), name);
    if (lq.isEmpty()) {
      List<String> known =
          in.platform().queues().localQueues().stream()
              .filter(q -> q.namespace().equals(ns.name()))
              .map(Platform.LocalQueue::name)
              .sorted()
              .toList();
      problems.add(
          Diagnostic.error(
                  DiagnosticCode.QUEUE_NOT_ALLOWED,
                  ResolveStage.at(in.spec(), "/queue"),
                  "/queue",
                  "queue \"" + name + "\" is not a LocalQueue of namespace `" + ns.name() + "`")
              .withHint("queues in `" + ns.name() + "`: " + String.join(", ", known)));
      return Optional.empty();
    }
    return Optional.of(
        new Target(
            cluster.name(),
            cluster.domain(),
            ns.name(),
            lq.get().name(),
            lq.get().clusterQueue(),
            in.spec().priority().orElse("")));
  }

  /** Glob match ({@code *} within a path segment, {@code **} across) of the normalised repo URL. */
  static boolean allows(Platform.NamespaceRule ns, String repo) {
    return ns.sources().stream()
        .anyMatch(
            p ->
                p.equals("*")
                    || FileSystems.getDefault().getPathMatcher("glob:" + p).matches(Path.of(repo)));
  }

  private static SourceLocation fileOf(ResolveInput in) {
    return SourceLocation.ofFile(in.spec().document().source().displayPath());
  }
}
