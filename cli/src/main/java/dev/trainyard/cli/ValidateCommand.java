package dev.trainyard.cli;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import dev.trainyard.compiler.cluster.ClusterDryRun;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code trainyard validate}: every stage, nothing written; with {@code --cluster} also a
 * server-side dry run.
 */
@Command(
    name = "validate",
    description = {
      "Run every compile stage and report problems without writing anything.",
      "With --cluster, also send every object to the cluster of --kubeconfig/--context",
      "as a server-side apply with dryRun=All: the CRD schemas and the JobSet and",
      "Kueue webhooks judge exactly what git would hold; nothing is stored."
    },
    mixinStandardHelpOptions = true,
    footer = {
      "",
      "Exit codes: 0 ok, 1 problems in the input (diagnostics), 2 usage, 3 environment",
      "(disk, git, cluster unreachable), 4 internal error."
    })
final class ValidateCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin CompileOptions options;

  @Option(names = "--cluster", description = "also run a server-side dry run against a cluster")
  boolean cluster;

  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      description = "kubeconfig for --cluster (default: $KUBECONFIG or ~/.kube/config)")
  Path kubeconfig;

  @Option(
      names = "--context",
      paramLabel = "NAME",
      description = "kubeconfig context for --cluster (default: the current one)")
  String context;

  @Override
  public Integer call() {
    CompileResult result;
    try (Compiler compiler = new Compiler(SshSecretProvider.system())) {
      result = compiler.compile(options.request(spec));
    }
    if (!cluster || result.hasErrors()) {
      return Reporting.report(spec, options.output.format, result, Optional.empty());
    }
    List<Diagnostic> all = new ArrayList<>(result.diagnostics());
    try (ClusterDryRun dryRun =
        ClusterDryRun.connect(Optional.ofNullable(kubeconfig), Optional.ofNullable(context))) {
      all.addAll(dryRun.check(result.tree().orElseThrow(), result.job().orElseThrow()));
    }
    boolean rejected = all.stream().anyMatch(Diagnostic::isError);
    CompileResult checked =
        new CompileResult(rejected ? Optional.empty() : result.tree(), result.job(), all);
    return Reporting.report(spec, options.output.format, checked, Optional.empty());
  }
}
