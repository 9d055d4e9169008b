package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.render.GpuCheck;
import dev.trainyard.compiler.resolve.ResolvedJob;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code checkpoint.recoverOnExitCodes} (train.yaml's, and the namespace's in platform.yaml) that
 * cannot do what the user meant, each at the code's own line:
 *
 * <ul>
 *   <li>E445: {@value GpuCheck#EXIT_CODE}, the exit of Trainyard's GPU start-up check ({@link
 *       GpuCheck}): it means the node is broken, and the status controller reports it as a platform
 *       error; a recover rule would turn that into silent restarts.
 *   <li>W446: an exit a restart does not cure, whose meaning Trainyard or bash already gives: 137
 *       (SIGKILL: the kernel's OOM killer, or the kubelet after the grace period; reported as "out
 *       of memory or node pressure"), 143 (SIGTERM: preemption and eviction already restart the run
 *       through the {@code DisruptionTarget} rule; the pod's own script exits 143 when stopped),
 *       126 and 127 (bash: not executable, not found).
 *   <li>W447: {@code retries: 0} with recover codes: the {@code RestartJobSet} rule counts against
 *       JobSet's {@code failurePolicy.maxRestarts}, which is 0, so such an exit fails the run.
 * </ul>
 */
final class RecoverCodeRules {
  /** Codes a restart does not cure, with what they mean. */
  private static final Map<Integer, String> NOT_CURED =
      Map.of(
          126,
          "bash's \"command not executable\", which a restart repeats",
          127,
          "bash's \"command not found\", which a restart repeats",
          137,
          "SIGKILL: the kernel's out-of-memory killer or the kubelet after the grace period; Trainyard"
              + " reports it as out of memory or node pressure, and a restart from the checkpoint"
              + " runs out of memory again at the same step",
          143,
          "SIGTERM: preemption and eviction already restart the run from its checkpoint (the"
              + " DisruptionTarget rule), and a run stopped on purpose would start again");

  private RecoverCodeRules() {}

  static List<Diagnostic> check(ResolvedJob job) {
    if (job.checkpoint().isEmpty() || job.checkpoint().get().recoverOnExitCodes().isEmpty()) {
      return List.of();
    }
    List<Diagnostic> out = new ArrayList<>();
    job.spec()
        .checkpoint()
        .ifPresent(
            c -> {
              for (int i = 0; i < c.recoverOnExitCodes().size(); i++) {
                String pointer = "/checkpoint/recoverOnExitCodes/" + i;
                code(
                    c.recoverOnExitCodes().get(i),
                    job.spec().document().map().at(pointer),
                    pointer,
                    "train.yaml",
                    out);
              }
            });
    platformCodes(job, out);
    if (job.retries() == 0) {
      out.add(withoutRetries(job));
    }
    return out;
  }

  /** The namespace's codes, at their lines in platform.yaml. */
  private static void platformCodes(ResolvedJob job, List<Diagnostic> out) {
    List<Platform.NamespaceRule> namespaces = job.platform().namespaces();
    for (int n = 0; n < namespaces.size(); n++) {
      Platform.NamespaceRule ns = namespaces.get(n);
      if (!ns.name().equals(job.target().namespace())
          || !ns.cluster().equals(job.target().cluster())
          || ns.checkpoints().isEmpty()) {
        continue;
      }
      List<Integer> codes = ns.checkpoints().get().recoverOnExitCodes();
      for (int i = 0; i < codes.size(); i++) {
        String pointer = "/namespaces/" + n + "/checkpoints/recoverOnExitCodes/" + i;
        code(
            codes.get(i),
            job.platform().map().at(pointer),
            pointer,
            "namespace `" + ns.name() + "` in " + job.platform().origin(),
            out);
      }
    }
  }

  private static void code(
      int code, SourceLocation at, String pointer, String whose, List<Diagnostic> out) {
    if (code == GpuCheck.EXIT_CODE) {
      out.add(
          Diagnostic.error(
                  DiagnosticCode.RECOVER_CODE_RESERVED,
                  at,
                  pointer,
                  "recoverOnExitCodes of "
                      + whose
                      + " lists "
                      + code
                      + ", the exit code of Trainyard's GPU start-up check: it means a node without"
                      + " the GPUs or driver the run needs, reported as a platform error, and a"
                      + " restart from a checkpoint does not repair the node")
              .withHint(
                  "remove "
                      + code
                      + "; the run's own exit codes for a restart are any other codes from 1 to 255"
                      + " (e.g. 75 for a timeout your program detects)"));
      return;
    }
    String meaning = NOT_CURED.get(code);
    if (meaning != null) {
      out.add(
          Diagnostic.warning(
                  DiagnosticCode.RECOVER_CODE_NOT_CURED,
                  at,
                  pointer,
                  "recoverOnExitCodes of " + whose + " lists " + code + ", which is " + meaning)
              .withHint(
                  "remove "
                      + code
                      + " unless a restart really cures it; have your program exit with a code of"
                      + " its own (e.g. 75) for what a restart cures, such as an NCCL timeout"));
    }
  }

  private static Diagnostic withoutRetries(ResolvedJob job) {
    // retries defaults to 3: 0 is always written.
    return Diagnostic.warning(
            DiagnosticCode.RECOVER_WITHOUT_RETRIES,
            job.spec().document().map().at("/retries"),
            "/retries",
            "recoverOnExitCodes "
                + job.checkpoint().get().recoverOnExitCodes()
                + " restart the run, but `retries: 0` leaves no restart: such an exit fails the run"
                + " (JobSet's failurePolicy.maxRestarts 0)")
        .withHint(
            "set `retries:` to the restarts the run may use (each recover exit counts as one), or"
                + " leave recoverOnExitCodes out");
  }
}
