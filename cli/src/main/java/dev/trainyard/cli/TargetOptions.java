package dev.trainyard.cli;

import dev.trainyard.compiler.TargetFlags;
import java.util.Optional;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code --target-cluster} and {@code --namespace}: where compile, validate, submit and preview put
 * the run.
 */
final class TargetOptions {
  @Option(
      names = "--target-cluster",
      paramLabel = "NAME",
      description = "target cluster from platform.yaml (default: the first)")
  String cluster;

  @Option(
      names = "--namespace",
      paramLabel = "NAME",
      description = "target namespace (default: the first that accepts the source repo)")
  String namespace;

  Optional<String> cluster() {
    return Optional.ofNullable(cluster);
  }

  Optional<String> namespace() {
    return Optional.ofNullable(namespace);
  }

  /**
   * A value the platform does not define, as a usage error (exit 2) naming the flag, once per
   * command.
   */
  static void refuse(CommandSpec spec, Optional<TargetFlags.Refusal> refusal) {
    if (refusal.isPresent()) {
      throw new ParameterException(
          spec.commandLine(), refusal.get().message() + " (" + refusal.get().hint() + ")");
    }
  }
}
