package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.Suggestions;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.resolve.JobLayout;
import dev.trainyard.compiler.resolve.ResolvedJob;
import java.util.ArrayList;
import java.util.List;

/**
 * What Kueue must accept before the run can be admitted, checked against {@code platform.yaml}'s
 * {@code kueue:} settings: at most {@code maxPodSets} replicated jobs (each is one PodSet of the
 * Workload; Kueue refuses to create a larger Workload, so the JobSet would stay suspended), and a
 * {@code priority} that names one of the cluster's WorkloadPriorityClasses (an unknown one also
 * leaves the JobSet suspended: Kueue cannot create its Workload).
 */
final class KueueRules {
  private KueueRules() {}

  static List<Diagnostic> check(ResolvedJob job) {
    List<Diagnostic> out = new ArrayList<>();
    Platform.KueueSettings kueue = job.platform().kueue();
    JobLayout layout = JobLayout.of(job.runtime(), job.topology().nodes());
    if (layout.jobs().size() > kueue.maxPodSets()) {
      out.add(
          Diagnostic.error(
                  DiagnosticCode.TOO_MANY_POD_SETS,
                  job.spec().document().map().at("/runtime"),
                  "/runtime",
                  "runtime "
                      + job.runtime().ref()
                      + " makes "
                      + layout.jobs().size()
                      + " replicated jobs (Kueue PodSets), and this cluster's Kueue"
                      + " admits at most "
                      + kueue.maxPodSets()
                      + " (platform.yaml `kueue.maxPodSets`)")
              .withHint(
                  "use a runtime with fewer replicated jobs (e.g. one with `launcherAsNode: true`), or raise `kueue.maxPodSets` if the"
                      + " cluster runs a Kueue that allows more (v0.19: 18)"));
    }
    String priority = job.target().priority();
    if (!priority.isEmpty()) {
      priority(job, priority, kueue, out);
    }
    return out;
  }

  private static void priority(
      ResolvedJob job, String priority, Platform.KueueSettings kueue, List<Diagnostic> out) {
    var at = job.spec().document().map().at("/priority");
    if (kueue.priorityClasses().isEmpty()) {
      out.add(
          Diagnostic.warning(
                  DiagnosticCode.PRIORITY_NOT_CHECKED,
                  at,
                  "/priority",
                  "`priority` \""
                      + priority
                      + "\" cannot be checked: platform.yaml lists no `kueue.priorityClasses`; if the cluster has no such"
                      + " WorkloadPriorityClass, the run stays suspended")
              .withHint(
                  "ask the platform team to list the cluster's WorkloadPriorityClasses in platform.yaml (`kubectl get workloadpriorityclasses`)"));
    } else if (!kueue.priorityClasses().contains(priority)) {
      out.add(
          Diagnostic.error(
                  DiagnosticCode.UNKNOWN_PRIORITY,
                  at,
                  "/priority",
                  "`priority` \""
                      + priority
                      + "\" is not a WorkloadPriorityClass of this cluster; Kueue would leave the run suspended")
              .withHint(
                  Suggestions.closest(priority, kueue.priorityClasses())
                          .map(c -> "did you mean `" + c + "`? ")
                          .orElse("")
                      + "classes: "
                      + String.join(", ", kueue.priorityClasses())));
    }
  }
}
