package dev.trainyard.controller.state;

import dev.trainyard.compiler.render.GpuCheck;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The failure a child Job's Failed condition records, for when the failed pod is gone: the Job
 * controller writes it once and keeps it while the Job exists (Kubernetes {@code
 * pkg/controller/job}, {@code job_controller.go} and {@code pod_failure_policy.go}). The compiled
 * pod failure policy (compiler {@code JobSetBuilder}) makes these:
 *
 * <ul>
 *   <li>reason {@code FailedIndexes}, "Job has failed indexes": every index ended, some by the
 *       user's non-zero exit (rule 1, {@code FailIndex}: the Job controller keeps no exit code, the
 *       failed index is in {@code status.failedIndexes}); {@code MaxFailedIndexesExceeded}, "Job
 *       has exceeded the specified maximal number of failed indexes", when {@code maxFailedIndexes}
 *       ends the Job at the first failed rank. Both the user's;
 *   <li>reason {@code PodFailurePolicy}, "Pod NS/P has condition DisruptionTarget matching FailJob
 *       rule at index 0" (eviction, preemption, node loss: the platform's), "Container node for pod
 *       NS/P failed with exit code N matching FailJob rule at index 1" (the user's command, rule 1
 *       since issue #19) or "Container code-sync for pod NS/P failed with exit code N matching
 *       FailJob rule at index 2" (the source fetch, rule 2);
 *   <li>reason {@code DeadlineExceeded}, "Job was active longer than specified deadline": the run's
 *       {@code timeout} (the user's to raise).
 * </ul>
 *
 * {@code BackoffLimitExceeded} is no explanation. The messages are the Job controller's format
 * strings, the same the compiled JobSet failure policy matches.
 */
final class JobFailure {

  private static final Pattern EXIT =
      Pattern.compile(
          "^Container (\\S+) for pod \\S+/(\\S+) failed with exit code (\\d+) matching FailJob rule");
  private static final Pattern CONDITION =
      Pattern.compile("^Pod \\S+/(\\S+) has condition (\\w+) matching FailJob rule");

  /** SIGKILL: the kernel's OOM killer or the kubelet under node pressure, not the user's code. */
  static final int SIGKILL = 137;

  private JobFailure() {}

  /**
   * The failure of the first failed Job of the latest attempt (by name) whose condition says why;
   * empty when none does. {@code BackoffLimitExceeded} says only that a pod failed, not why: no
   * evidence (the pods are).
   */
  static Optional<Failure> classify(RunObservation o) {
    return failed(o.jobs()).map(j -> of(j, o.jobSet())).flatMap(Optional::stream).findFirst();
  }

  /**
   * The pod whose exit code failed a Job of the latest attempt ("Container C for pod NS/P failed
   * with exit code N matching FailJob rule"), by name: the rank whose own failure ended the run,
   * before its peers were stopped.
   */
  static Optional<String> failedPod(List<JobSnapshot> jobs) {
    return jobs.stream()
        .sorted(
            Comparator.comparingInt(JobSnapshot::attempt)
                .reversed()
                .thenComparing(JobSnapshot::name))
        .flatMap(
            j ->
                ConditionSnapshot.find(j.conditions(), "Failed")
                    .filter(ConditionSnapshot::isTrue)
                    .stream())
        .filter(c -> "PodFailurePolicy".equals(c.reason()))
        .map(c -> EXIT.matcher(c.message()))
        .filter(Matcher::find)
        .map(m -> m.group(2))
        .findFirst();
  }

  /**
   * Whether a failed Job of the newest failed attempt ran past its deadline: the run's {@code
   * timeout}. JobSet's compiled rule FailOnDeadline comes before FailOnUserExitCode, so any such
   * Job is why the run failed.
   */
  static boolean deadline(List<JobSnapshot> jobs) {
    int attempt = failed(jobs).findFirst().map(JobSnapshot::attempt).orElse(-1);
    return failed(jobs)
        .anyMatch(j -> j.attempt() == attempt && "DeadlineExceeded".equals(condition(j).reason()));
  }

  private static Stream<JobSnapshot> failed(List<JobSnapshot> jobs) {
    return jobs.stream()
        .filter(j -> ConditionSnapshot.holds(j.conditions(), "Failed"))
        .sorted(
            Comparator.comparingInt(JobSnapshot::attempt)
                .reversed()
                .thenComparing(JobSnapshot::name));
  }

  private static ConditionSnapshot condition(JobSnapshot j) {
    return ConditionSnapshot.find(j.conditions(), "Failed").orElseThrow();
  }

  /**
   * The failure Job {@code j} of JobSet {@code js} states in its Failed condition; empty when it
   * does not say why.
   */
  static Optional<Failure> of(JobSnapshot j, JobSetSnapshot js) {
    ConditionSnapshot c = condition(j);
    return switch (c.reason()) {
      case "PodFailurePolicy" -> policy(c.message());
      case "DeadlineExceeded" -> Optional.of(FailureClassifier.timeout(js.settings(), ""));
      case "FailedIndexes", "MaxFailedIndexesExceeded" -> Optional.of(failedIndexes(j, js.name()));
      default -> Optional.empty();
    };
  }

  /**
   * "rank 1 of node-0 exited non-zero (pod gone, exit code unknown)": which index, not how
   * (FailIndex keeps no code).
   */
  private static Failure failedIndexes(JobSnapshot j, String jobSet) {
    String job =
        j.name().startsWith(jobSet + "-") ? j.name().substring(jobSet.length() + 1) : j.name();
    String indexes = j.failedIndexes();
    String ranks =
        indexes.isEmpty() ? "a rank" : (indexes.matches("\\d+") ? "rank " : "ranks ") + indexes;
    String gone =
        indexes.matches("\\d+") || indexes.isEmpty()
            ? "pod gone, exit code unknown"
            : "pods gone, exit codes unknown";
    return new Failure(
        Cause.USER, ranks + " of " + job + " exited non-zero (" + gone + ")", "", null);
  }

  private static Optional<Failure> policy(String message) {
    Matcher exit = EXIT.matcher(message);
    if (exit.find()) {
      int code = Integer.parseInt(exit.group(3));
      String container = exit.group(1);
      if (code == GpuCheck.EXIT_CODE) {
        return Optional.of(
            new Failure(Cause.PLATFORM, "GPU check failed in container " + container, "", code));
      }
      if (code == SIGKILL) {
        return Optional.of(
            new Failure(
                Cause.PLATFORM,
                "killed in container "
                    + container
                    + " (exit code 137: out of memory or node pressure)",
                "",
                code));
      }
      if (FailureClassifier.CODE_SYNC.equals(container)) {
        return Optional.of(
            new Failure(
                Cause.USER,
                "setup failed in init container " + container + " with exit code " + code,
                "",
                code));
      }
      return Optional.of(
          new Failure(
              Cause.USER,
              "command exited with code " + code + " in container " + container,
              "",
              code));
    }
    Matcher condition = CONDITION.matcher(message);
    if (condition.find()) {
      return Optional.of(
          new Failure(
              Cause.PLATFORM,
              "pod "
                  + condition.group(1)
                  + " disrupted ("
                  + condition.group(2)
                  + ": eviction, preemption or node loss)",
              "",
              null));
    }
    return Optional.empty();
  }
}
