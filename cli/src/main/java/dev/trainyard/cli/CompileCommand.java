package dev.trainyard.cli;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.manifest.OutputTree;
import dev.trainyard.gitops.ClusterRoots;
import dev.trainyard.gitops.FolderSnapshot;
import dev.trainyard.gitops.HandWrittenFiles;
import dev.trainyard.gitops.TreeWriter;
import dev.trainyard.gitops.leaks.LeakCheck;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code trainyard compile}: every stage, then the files are written under {@code --out}. */
@Command(
    name = "compile",
    header = "Compile a train.yaml into GitOps manifests (JobSet, Kueue objects).",
    description = {
      "Compile a train.yaml into GitOps manifests: a JobSet, Kueue queue objects, and",
      "for MPI runtimes a hostfile ConfigMap and an SSH Secret.",
      "Files go to OUT/clusters/<cluster>/<namespace>/<run>/ with a kustomization.yaml",
      "per folder; the run's folder is replaced whole. A file someone added by hand",
      "to a queue folder (_queues/, _cluster/) stops it (E814): it would be deleted.",
      "The kustomization.yaml files above those folders are not edited (submit keeps",
      "them): one that does not list a written folder gets a warning (W815).",
      "Re-compiling the same commit gives byte-identical files (an existing SSH Secret",
      "is reused)."
    },
    mixinStandardHelpOptions = true,
    footer = {
      "",
      "Exit codes: 0 ok, 1 problems in the input (diagnostics), 2 usage, 3 environment",
      "(disk, git, cluster unreachable), 4 internal error."
    })
final class CompileCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin CompileOptions options;

  @Override
  public Integer call() throws IOException {
    CompileResult result;
    try (Compiler compiler = new Compiler(SshSecretProvider.system())) {
      result = compiler.compile(options.request(spec));
    }
    if (result.hasErrors()) {
      return Reporting.report(spec, options.output.format, result, Optional.empty());
    }
    OutputTree tree = result.tree().orElseThrow();
    Path out = Invocation.of(spec).resolve(options.out);
    // The checks submit runs before a commit, on the same bytes TreeWriter would write: a leak,
    // or a hand-written file in a queue folder the write would delete; with either, nothing lands.
    List<Diagnostic> refusals =
        new ArrayList<>(LeakCheck.compiled(tree, result.job().orElseThrow().platform()));
    refusals.addAll(HandWrittenFiles.onDisk(out, tree, "compile --out", "nothing was written"));
    if (!refusals.isEmpty()) {
      List<Diagnostic> all = new ArrayList<>(result.diagnostics());
      all.addAll(refusals);
      int exit =
          Reporting.report(
              spec,
              options.output.format,
              new CompileResult(Optional.empty(), result.job(), all),
              Optional.empty());
      spec.commandLine().getErr().println("nothing was written to " + options.out);
      spec.commandLine().getErr().flush();
      return exit;
    }
    TreeWriter.write(tree, out);
    List<Diagnostic> unlisted = ClusterRoots.unlisted(new FolderSnapshot(out), tree);
    if (!unlisted.isEmpty()) {
      List<Diagnostic> all = new ArrayList<>(result.diagnostics());
      all.addAll(unlisted);
      result = new CompileResult(result.tree(), result.job(), all);
    }
    return Reporting.report(
        spec, options.output.format, result, Optional.of(new Reporting.Written(options.out, tree)));
  }
}
