package dev.trainyard.cli;

import java.nio.file.Path;
import java.util.regex.Pattern;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Options naming the cluster and namespace of {@code status} and {@code logs}: the user's
 * kubeconfig.
 */
final class ClusterTarget {
  /** Kubernetes: a namespace name is a DNS-1123 label (apimachinery validation.IsDNS1123Label). */
  private static final Pattern DNS_1123_LABEL =
      Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  @Spec(Spec.Target.MIXEE)
  CommandSpec mixee;

  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      description = "kubeconfig (default: $KUBECONFIG or ~/.kube/config)")
  Path kubeconfig;

  @Option(
      names = "--context",
      paramLabel = "NAME",
      description = "kubeconfig context (default: the current one)")
  String context;

  String namespace;

  /**
   * A namespace that no cluster could have is a usage error (exit 2) here, not an API error (exit
   * 3) later.
   */
  @Option(
      names = {"-n", "--namespace"},
      paramLabel = "NS",
      description = "namespace (default: the context's, else default)")
  void namespace(String value) {
    if (!DNS_1123_LABEL.matcher(value).matches()) {
      throw new ParameterException(
          mixee.commandLine(),
          "-n/--namespace \""
              + value
              + "\" is not a namespace name:"
              + " a DNS-1123 label has at most 63 lower-case letters, digits and '-', and starts and ends with a letter or digit");
    }
    namespace = value;
  }
}
