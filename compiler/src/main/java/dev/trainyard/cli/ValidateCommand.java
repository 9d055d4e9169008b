package dev.trainyard.cli;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code trainyard validate}: every stage, nothing written. */
@Command(
    name = "validate",
    description = "Run every compile stage and report problems without writing anything.",
    mixinStandardHelpOptions = true,
    footer = {"", "Exit codes: 0 ok, 1 problems in the input (diagnostics), 2 usage, 3 environment, 4 internal error."})
final class ValidateCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin CompileOptions options;

  @Override
  public Integer call() {
    CompileResult result = new Compiler(SshSecretProvider.system()).compile(options.request(Optional.empty()));
    return Reporting.report(spec, options.output, result, Optional.empty());
  }
}
