package dev.trainyard.cli;

import dev.trainyard.compiler.CompileRequest;
import dev.trainyard.compiler.TargetFlags;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Options shared by {@code compile} and {@code validate}. */
final class CompileOptions {
  @Parameters(
      index = "0",
      arity = "0..1",
      defaultValue = "train.yaml",
      paramLabel = "TRAIN_YAML",
      description = "the train.yaml to compile (default: train.yaml in this folder)")
  Path trainYaml;

  @Option(
      names = "--platform",
      paramLabel = "FILE",
      description =
          "platform.yaml (default: the embedded default platform: cluster local, namespace default, queue default)")
  Path platform;

  @Option(
      names = "--runtimes",
      paramLabel = "DIR",
      description =
          "platform runtimes folder, one <name>/<version>/runtime.yaml each; overrides and adds"
              + " to the built-ins")
  Path runtimes;

  @Option(
      names = "--source-repo",
      paramLabel = "URL",
      description =
          "clone URL of the source repo (default: the git remote of the repo holding TRAIN_YAML)")
  String sourceRepo;

  @Option(
      names = "--source-commit",
      paramLabel = "SHA",
      description =
          "full commit SHA pods clone (default: HEAD; then uncommitted files next to TRAIN_YAML are an error)")
  String sourceCommit;

  @CommandLine.Mixin TargetOptions target;

  @CommandLine.Mixin CheckpointOptions checkpoints;

  @Option(
      names = "--attempt",
      paramLabel = "N",
      defaultValue = "1",
      description =
          "re-run counter for the same commit; part of the run id (default: ${DEFAULT-VALUE})")
  int attempt;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      defaultValue = "gitops",
      description =
          "root of the GitOps working tree (default: ${DEFAULT-VALUE}); compile writes there, an existing run's SSH Secret there is reused, and the folder never counts as uncommitted code")
  Path out;

  @CommandLine.Mixin OutputOptions output;

  /**
   * The request for the compiler; usage errors (picocli exit 2) for values picocli cannot check,
   * and for a {@code --target-cluster} or {@code --namespace} that platform.yaml does not define.
   */
  CompileRequest request(CommandLine.Model.CommandSpec spec) {
    Invocation invocation = Invocation.of(spec);
    if (attempt < 1) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--attempt must be at least 1, got " + attempt);
    }
    Path outDir = invocation.resolve(out);
    if (Files.exists(outDir) && !Files.isDirectory(outDir)) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--out " + out + " is a file, not a folder");
    }
    CompileRequest request =
        CompileRequest.builder(invocation.resolve(trainYaml))
            .displayPath(trainYaml.toString())
            .workingDirectory(invocation.workingDirectory())
            .platformFile(Optional.ofNullable(platform).map(invocation::resolve))
            // A relative --platform is named as typed; an absolute one relative to the working
            // directory (the compiler's rule for a platform.yaml path).
            .platformDisplay(
                Optional.ofNullable(platform).filter(p -> !p.isAbsolute()).map(Path::toString))
            .runtimesDir(Optional.ofNullable(runtimes).map(invocation::resolve))
            .sourceRepo(Optional.ofNullable(sourceRepo))
            .sourceCommit(Optional.ofNullable(sourceCommit))
            .cluster(target.cluster())
            .namespace(target.namespace())
            .attempt(attempt)
            .existingTree(outDir)
            .sourceBranch(checkpoints.branch(spec))
            .fresh(checkpoints.fresh)
            .build();
    TargetOptions.refuse(spec, TargetFlags.check(request));
    return request;
  }
}
