package dev.trainyard.cli;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.gitops.leaks.LeakCheck;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code trainyard check-secrets [DIR]}: the leak check over a GitOps working tree ({@link
 * LeakCheck}).
 */
@Command(
    name = "check-secrets",
    header = "Scan a GitOps working tree for private key material.",
    description = {
      "Scan every file of a GitOps working tree (not .git/) for private key material:",
      "PEM, OpenSSH, PKCS#8, PKCS#1, SEC1, DER, age and PuTTY keys, and base64 of any",
      "of them (wrapped, split across lines, in comments, annotations, ConfigMaps or",
      "any field).",
      "A key is allowed only in a plain Secret object in a namespace where",
      "platform.yaml allows plain Secrets (secrets.policy: plain, allowPlain: true).",
      "Findings name the file, the line and the kind of key, never the key.",
      "Symbolic links below DIR are not followed; the summary lists them."
    },
    mixinStandardHelpOptions = true,
    footer = {
      "",
      "Exit codes: 0 no key outside an allowed plain Secret, 1 keys found, 2 usage, 3 a",
      "file or folder cannot be read, 4 internal error."
    })
final class CheckSecretsCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(
      index = "0",
      arity = "0..1",
      paramLabel = "DIR",
      description = "root of the GitOps working tree (default: the current folder)")
  Path dir;

  @Option(
      names = "--platform",
      paramLabel = "FILE",
      description =
          "platform.yaml (default: DIR/platform.yaml, else the embedded default platform)")
  Path platform;

  @Mixin OutputOptions output;

  @Override
  public Integer call() {
    Path root = dir == null ? Path.of(".") : dir;
    Invocation invocation = Invocation.of(spec);
    StageResult<LeakCheck.Report> result;
    try {
      result =
          LeakCheck.checkFolder(
              invocation.resolve(root), Optional.ofNullable(platform).map(invocation::resolve));
    } catch (IOException e) {
      return Reporting.environment(
          spec,
          output.format,
          e.getMessage(),
          "check the folder's permissions, or pass the GitOps checkout's root as DIR");
    }
    if (result.failed()) {
      return print(result.diagnostics(), Optional.empty(), root);
    }
    return print(result.value().orElseThrow().diagnostics(), result.value(), root);
  }

  private int print(List<Diagnostic> diagnostics, Optional<LeakCheck.Report> report, Path root) {
    output.print(
        spec,
        diagnostics,
        json ->
            report.ifPresent(
                r -> {
                  json.put("files", r.files()).put("allowedPlainSecretKeys", r.allowed());
                  var links = json.putArray("skippedLinks");
                  r.skippedLinks().forEach(links::add);
                }),
        out -> report.ifPresent(r -> out.println(summary(r, root))));
    return report.isEmpty() || report.get().leaked() ? 1 : 0;
  }

  private static String summary(LeakCheck.Report r, Path root) {
    return "checked "
        + r.files()
        + " file(s) under "
        + root
        + ": "
        + (r.leaked()
            ? r.diagnostics().stream().filter(d -> d.isError()).count()
                + " private key(s) where none may be"
            : "no private key outside an allowed plain Secret")
        + (r.allowed() > 0
            ? "; " + r.allowed() + " in plain Secrets that platform.yaml allows"
            : "")
        + (r.skippedLinks().isEmpty()
            ? ""
            : "\nnot read: "
                + r.skippedLinks().size()
                + " symbolic link(s), not followed (git stores only the name they point to): "
                + String.join(", ", r.skippedLinks()));
  }
}
