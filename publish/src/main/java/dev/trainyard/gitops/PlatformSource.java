package dev.trainyard.gitops;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a submit's platform policy comes from. The GitOps repository's own {@code platform.yaml}
 * and {@code runtimes/} decide which namespaces, queues and runtimes a source repo may use, so
 * {@code --platform} and {@code --runtimes} may not replace them (a submitter could otherwise open
 * another team's namespace or rewrite the cluster's queues); they serve a GitOps repo that has
 * none. A repo without {@code platform.yaml} gets the embedded default platform, with a warning: it
 * admits any source repo.
 */
final class PlatformSource {
  private PlatformSource() {}

  /**
   * E805 for an override of the repo's own files; W806 when the embedded default platform will be
   * used.
   */
  static List<Diagnostic> check(SubmitRequest request, Snapshot base) {
    List<Diagnostic> problems = new ArrayList<>();
    boolean hasPlatform = base.read("platform.yaml").isPresent();
    if (request.platform().isPresent() && hasPlatform) {
      problems.add(refused("--platform", "platform.yaml"));
    }
    if (request.runtimes().isPresent() && base.hasFolder("runtimes")) {
      problems.add(refused("--runtimes", "runtimes/"));
    }
    if (request.platform().isEmpty() && !hasPlatform) {
      problems.add(embedded());
    }
    return problems;
  }

  /** W806: the GitOps repo has no platform.yaml, so the embedded default platform is used. */
  static Diagnostic embedded() {
    return Diagnostic.warning(
            DiagnosticCode.EMBEDDED_PLATFORM,
            SourceLocation.ofFile(GitOpsPlatform.DISPLAY),
            "",
            "the GitOps repo has no platform.yaml: the embedded default platform is used (cluster local, namespace default, any source repo)")
        .withHint(
            "the platform team commits platform.yaml at the GitOps repo's root to decide namespaces, queues and secrets");
  }

  private static Diagnostic refused(String flag, String file) {
    return Diagnostic.error(
            DiagnosticCode.PLATFORM_OVERRIDE_REFUSED,
            SourceLocation.ofFile(flag),
            "",
            flag
                + " is refused: the GitOps repo has its own "
                + file
                + ", whose policy decides what a source repo may use")
        .withHint(
            "drop " + flag + "; to change the platform, change " + file + " in the GitOps repo");
  }
}
