package dev.trainyard.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Options naming the cluster and namespace of {@code status} and {@code logs}: the user's kubeconfig. */
final class ClusterTarget {
  @Option(names = "--kubeconfig", paramLabel = "FILE", description = "kubeconfig (default: $KUBECONFIG or ~/.kube/config)")
  Path kubeconfig;

  @Option(names = "--context", paramLabel = "NAME", description = "kubeconfig context (default: the current one)")
  String context;

  @Option(names = {"-n", "--namespace"}, paramLabel = "NS", description = "namespace (default: the context's, else default)")
  String namespace;
}
