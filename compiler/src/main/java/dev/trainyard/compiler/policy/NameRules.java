package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.resolve.JobLayout;
import dev.trainyard.compiler.resolve.Names;
import dev.trainyard.compiler.resolve.ResolvedJob;
import java.util.List;

/**
 * Job names: RFC 1035 labels (mpi-operator#733: a dot breaks the hostfile), and the JobSet pod-name
 * budget {@code len(jobset) + len(rjob) + digits(replicas-1) + digits(completions-1) ≤ 54} for
 * every replicated job, run id included (JobSet webhook, jobset#408).
 */
final class NameRules {
  private NameRules() {}

  static List<Diagnostic> check(ResolvedJob job) {
    String name = job.naming().jobName();
    JobLayout layout = JobLayout.of(job.runtime(), job.topology().nodes());
    int maxJobSet = layout.maxJobSetNameLength();
    int runName = job.naming().runName().length();
    int runIdPart = runName - name.length();
    int longest = Math.max(0, maxJobSet - runIdPart);
    if (!Names.isLabel(name) && Names.isLabelShaped(name)) {
      return List.of(
          Diagnostic.error(
                  DiagnosticCode.NAME_TOO_LONG,
                  job.spec().document().map().at("/name"),
                  "/name",
                  "`name` is too long: "
                      + name.length()
                      + " characters, and a name is at most 63 (an RFC 1035 label)")
              .withHint(
                  "the longest name that fits "
                      + job.topology().nodes()
                      + " node(s) of runtime "
                      + job.runtime().name()
                      + " is "
                      + longest
                      + " characters, e.g. `name: "
                      + Names.sanitize(name, Math.max(1, longest))
                      + "`"));
    }
    if (!Names.isLabel(name)) {
      // The suggested spelling must also fit the name budget, or following the hint leads to the
      // next error.
      return List.of(
          Diagnostic.error(
                  DiagnosticCode.INVALID_NAME,
                  job.spec().document().map().at("/name"),
                  "/name",
                  "`name` must be an RFC 1035 label (lower-case letters, digits and '-', starting with a letter), got \""
                      + name
                      + "\"")
              .withHint(
                  "write `name: "
                      + Names.sanitize(name, Math.max(1, Math.min(40, longest)))
                      + "`; dots and upper case break pod DNS names and MPI hostfiles"));
    }
    if (runName <= maxJobSet) {
      return List.of();
    }
    var tight = layout.tightestJob();
    String message =
        "`name` is too long for this job: \""
            + name
            + "\" ("
            + name.length()
            + " characters) gives JobSet \""
            + job.naming().runName()
            + "\", and its longest pod name `"
            + job.naming().runName()
            + "-"
            + tight.name()
            + "-0-"
            + (tight.pods() - 1)
            + "-xxxxx` exceeds 63 characters";
    return List.of(
        Diagnostic.error(
                DiagnosticCode.NAME_TOO_LONG,
                job.spec().document().map().at("/name"),
                "/name",
                message)
            .withHint(
                "the longest name that fits "
                    + job.topology().nodes()
                    + " node(s) of runtime "
                    + job.runtime().name()
                    + " is "
                    + longest
                    + " characters, e.g. `name: "
                    + Names.sanitize(name, Math.max(1, longest))
                    + "` (JobSet limit: len(jobset)+len(rjob)+digits(replicas-1)+digits(completions-1) <= 54, jobset#408)"));
  }
}
