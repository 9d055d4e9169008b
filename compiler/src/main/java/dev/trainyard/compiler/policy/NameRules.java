package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.resolve.JobLayout;
import dev.trainyard.compiler.resolve.Names;
import dev.trainyard.compiler.resolve.ResolvedJob;
import java.util.List;

/**
 * Job names: RFC 1035 labels (mpi-operator#733: a dot breaks the hostfile), and the JobSet pod-name budget
 * {@code len(jobset) + len(rjob) + digits(replicas-1) + digits(completions-1) ≤ 54} for every replicated
 * job, run id included (JobSet webhook, jobset#408).
 */
final class NameRules {
  private NameRules() {}

  static List<Diagnostic> check(ResolvedJob job) {
    String name = job.naming().jobName();
    if (!Names.isLabel(name)) {
      return List.of(
          Diagnostic.error(DiagnosticCode.INVALID_NAME, job.spec().document().map().at("/name"), "/name",
                  "`name` must be an RFC 1035 label (lower-case letters, digits and '-', starting with a letter), got \""
                      + name + "\"")
              .withHint("write `name: " + Names.sanitize(name, 40) + "`; dots and upper case break pod DNS names and MPI hostfiles"));
    }
    JobLayout layout = JobLayout.of(job.runtime(), job.topology().nodes());
    int maxJobSet = layout.maxJobSetNameLength();
    int runName = job.naming().runName().length();
    if (runName <= maxJobSet) {
      return List.of();
    }
    int runIdPart = runName - name.length();
    var tight = layout.tightestJob();
    int longest = Math.max(0, maxJobSet - runIdPart);
    String message =
        "`name` is too long for this job: \"" + name + "\" (" + name.length() + " characters) gives JobSet \""
            + job.naming().runName() + "\", and its longest pod name `" + job.naming().runName() + "-" + tight.name() + "-0-"
            + (tight.pods() - 1) + "-xxxxx` exceeds 63 characters";
    return List.of(
        Diagnostic.error(DiagnosticCode.NAME_TOO_LONG, job.spec().document().map().at("/name"), "/name", message)
            .withHint("the longest name that fits " + job.topology().nodes() + " node(s) of runtime "
                + job.runtime().name() + " is " + longest + " characters, e.g. `name: "
                + Names.sanitize(name, Math.max(1, longest)) + "` (JobSet limit: len(jobset)+len(rjob)+digits(replicas-1)+digits(completions-1) <= 54, jobset#408)"));
  }
}
