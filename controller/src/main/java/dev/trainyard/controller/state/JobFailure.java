package dev.trainyard.controller.state;

import dev.trainyard.compiler.render.GpuCheck;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The failure a child Job's Failed condition records, for when the failed pod is gone: the Job
 * controller writes it once and keeps it while the Job exists (Kubernetes {@code
 * pkg/controller/job}): reason {@code PodFailurePolicy} with "Container C for pod NS/P failed with
 * exit code N matching FailJob rule at index I" (the user's exit code, the compiled rule 1) or "Pod
 * NS/P has condition DisruptionTarget matching FailJob rule at index 0" (eviction, preemption, node
 * loss), reason {@code DeadlineExceeded} ("Job was active longer than specified deadline"); {@code
 * BackoffLimitExceeded} is no explanation. The messages are the Job controller's format strings
 * ({@code pod_failure_policy.go}), the same the compiled JobSet failure policy matches.
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
  static Optional<Failure> classify(List<JobSnapshot> jobs) {
    return jobs.stream()
        .sorted(
            Comparator.comparingInt(JobSnapshot::attempt)
                .reversed()
                .thenComparing(JobSnapshot::name))
        .map(
            j ->
                ConditionSnapshot.find(j.conditions(), "Failed")
                    .filter(ConditionSnapshot::isTrue)
                    .flatMap(JobFailure::of))
        .flatMap(Optional::stream)
        .findFirst();
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
   * The failure one Job's Failed condition {@code c} states; empty when its reason does not say
   * why.
   */
  static Optional<Failure> of(ConditionSnapshot c) {
    return Optional.ofNullable(stated(c));
  }

  private static Failure stated(ConditionSnapshot c) {
    Matcher exit = EXIT.matcher(c.message());
    if ("PodFailurePolicy".equals(c.reason()) && exit.find()) {
      int code = Integer.parseInt(exit.group(3));
      String container = exit.group(1);
      if (code == GpuCheck.EXIT_CODE) {
        return new Failure(Cause.PLATFORM, "GPU check failed in container " + container, "", code);
      }
      if (code == SIGKILL) {
        return new Failure(
            Cause.PLATFORM,
            "killed in container " + container + " (exit code 137: out of memory or node pressure)",
            "",
            code);
      }
      return new Failure(
          Cause.USER, "command exited with code " + code + " in container " + container, "", code);
    }
    Matcher condition = CONDITION.matcher(c.message());
    if ("PodFailurePolicy".equals(c.reason()) && condition.find()) {
      return new Failure(
          Cause.PLATFORM,
          "pod "
              + condition.group(1)
              + " disrupted ("
              + condition.group(2)
              + ": eviction, preemption or node loss)",
          "",
          null);
    }
    if ("DeadlineExceeded".equals(c.reason())) {
      return new Failure(Cause.PLATFORM, "deadline exceeded (activeDeadlineSeconds)", "", null);
    }
    return null;
  }
}
