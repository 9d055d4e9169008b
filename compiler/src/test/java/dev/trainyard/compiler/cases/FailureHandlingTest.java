package dev.trainyard.compiler.cases;

import static dev.trainyard.compiler.testing.TrainProject.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * DESIGN §4 "Failure handling", checked by evaluating the emitted policies the way the controllers
 * do: the Job controller's pod failure policy (per failed pod, first matching rule; FailJob
 * messages format as in Kubernetes {@code pkg/controller/job/pod_failure_policy.go}; the first
 * FailJob fixes the Job's failure, and a failure matching no rule counts against {@code
 * backoffLimit: 0}, reason BackoffLimitExceeded, {@code job_controller.go} syncJob) and JobSet's
 * failure policy (first rule matching any failed Job; no match means RestartJobSet; jobset {@code
 * pkg/controllers/failure_policy.go}). Which pod fails first when a peer is disrupted is the pods'
 * own script's doing ({@link PeerExitTest}, {@link LauncherGraceTest}).
 */
class FailureHandlingTest {
  static final String RESTART = "RestartJobSet";
  static final String FAIL = "FailJobSet";

  @TempDir Path dir;

  /** A failed Job as the JobSet controller sees it: its failure condition's reason and message. */
  record JobFailure(String replicatedJob, String reason, String message) {}

  /**
   * A failed pod: completion index, its DisruptionTarget condition, the container that exited and
   * its code.
   */
  record PodEnd(int index, boolean disrupted, String container, int exitCode) {
    static PodEnd exit(int index, int exitCode) {
      return new PodEnd(index, false, "node", exitCode);
    }

    static PodEnd disrupted(int index, int exitCode) {
      return new PodEnd(index, true, "node", exitCode);
    }
  }

  JsonNode jobSet(String runtime) {
    return object(
        TrainProject.create(
                dir, "runtime: " + runtime + "\nrun: python train.py\nnodes: 3\nretries: 2\n")
            .compile(),
        "JobSet");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"torch", "jax", "plain", "mpi", "deepspeed", "mlx"})
  @DisplayName("a timeout (DeadlineExceeded) fails the run; it never restarts it")
  void deadlineFails(String runtime) {
    JsonNode js = jobSet(runtime);
    assertEquals(
        FAIL,
        action(
            js,
            List.of(
                new JobFailure(
                    firstJob(js),
                    "DeadlineExceeded",
                    "Job was active longer than specified deadline"))));
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"torch", "jax", "plain", "mpi", "deepspeed", "mlx"})
  @DisplayName(
      "an evicted, preempted or lost pod (DisruptionTarget, also exiting 137) restarts the run, counted against retries")
  void disruptionRestarts(String runtime) {
    JsonNode js = jobSet(runtime);
    onePodFails(js, firstJob(js), PodEnd.disrupted(0, 137), "PodFailurePolicy", RESTART);
    assertEquals(2, js.at("/spec/failurePolicy/maxRestarts").asInt(), "retries is maxRestarts");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"torch", "jax", "plain", "mpi", "deepspeed", "mlx"})
  @DisplayName(
      "one rank's non-zero exit fails the Job at once, naming that pod and code, and fails the run without a restart")
  void userExitFailsAtOnce(String runtime) {
    JsonNode js = jobSet(runtime);
    String rjob = lastJob(js);
    JobFailure failure = onePodFails(js, rjob, PodEnd.exit(0, 1), "PodFailurePolicy", FAIL);
    assertTrue(
        failure
            .message()
            .matches(
                "Container node for pod ns/\\S+-"
                    + rjob
                    + "-0-0-abcde failed with exit code 1 matching FailJob rule at index 1"),
        failure.message());
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"torch", "jax", "plain"})
  @DisplayName(
      "single-Job race: a disrupted pod that fails before its survivors (their script waits while a peer is gone) restarts the run")
  void disruptionBeforeSurvivorsRestarts(String runtime) {
    JsonNode js = jobSet(runtime);
    List<PodEnd> order = List.of(PodEnd.disrupted(0, 143), PodEnd.exit(1, 1), PodEnd.exit(2, 1));
    JobFailure failure = jobFailure(js, "node", order).orElseThrow();
    assertEquals(RESTART, action(js, List.of(failure)), failure.toString());
    String command =
        CaseCompile.replicatedJob(js, "node")
            .at("/template/spec/template/spec/containers/0/command/2")
            .asText();
    assertTrue(
        command.contains("/dev/tcp/$0/29499") && command.contains("waiting ${grace}s"),
        "the pods' own wait: " + command);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"torch", "mpi"})
  @DisplayName(
      "a pod that fails matching no rule (e.g. rejected by the kubelet) exceeds backoffLimit 0 and gets JobSet's default restart")
  void unmatchedPodFailureRestarts(String runtime) {
    JsonNode js = jobSet(runtime);
    onePodFails(js, firstJob(js), new PodEnd(0, false, "node", 0), "BackoffLimitExceeded", RESTART);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"mpi", "deepspeed", "mlx"})
  @DisplayName(
      "MPI: an evicted node pod restarts the run even when the launcher's mpirun then exits non-zero")
  void mpiDisruptionBeatsLauncherExit(String runtime) {
    JsonNode js = jobSet(runtime);
    JobFailure node = jobFailure(js, "node", List.of(PodEnd.disrupted(1, 143))).orElseThrow();
    JobFailure launcher = jobFailure(js, "launcher", List.of(PodEnd.exit(0, 1))).orElseThrow();
    assertEquals(RESTART, action(js, List.of(launcher, node)));
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"torch", "mpi"})
  @DisplayName(
      "a failed source fetch (the code-sync init container) fails the Job at once and gets JobSet's default restart")
  void codeSyncFailureRestarts(String runtime) {
    JsonNode js = jobSet(runtime);
    onePodFails(
        js, firstJob(js), new PodEnd(0, false, "code-sync", 128), "PodFailurePolicy", RESTART);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"torch", "jax", "plain", "mpi", "deepspeed", "mlx"})
  @DisplayName(
      "a pod stopped by SIGTERM without DisruptionTarget (Kueue's suspension: the Job controller deletes it) matches no FailJob rule, in any container")
  void sigtermExitFailsNoJob(String runtime) {
    JsonNode js = jobSet(runtime);
    for (JsonNode rjob : js.at("/spec/replicatedJobs")) {
      JsonNode rules = rjob.at("/template/spec/podFailurePolicy/rules");
      for (String container : List.of("node", "code-sync")) {
        PodEnd stopped = new PodEnd(0, false, container, 143);
        for (int i = 0; i < rules.size(); i++) {
          assertEquals(
              Optional.empty(),
              podRuleMessage(rules.get(i), i, "ns/pod", stopped),
              "its exit arrives after the suspension (KueueLateExitIT): " + rules.get(i));
        }
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"torch", "mpi"})
  @DisplayName(
      "a counted pod stopped by SIGTERM without DisruptionTarget (kubectl delete pod) exceeds backoffLimit 0 and restarts the run, never a user error")
  void trackedSigtermExitRestarts(String runtime) {
    JsonNode js = jobSet(runtime);
    onePodFails(js, lastJob(js), PodEnd.exit(0, 143), "BackoffLimitExceeded", RESTART);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"torch", "mpi"})
  @DisplayName("the exits next to 143 (142, 144) stay the user's and fail the run at once")
  void exitsNextToSigtermStayTheUsers(String runtime) {
    JsonNode js = jobSet(runtime);
    for (int code : List.of(142, 144)) {
      JobFailure failure =
          onePodFails(js, lastJob(js), PodEnd.exit(0, code), "PodFailurePolicy", FAIL);
      assertTrue(failure.message().contains("exit code " + code), failure.toString());
    }
  }

  /**
   * The one pod {@code pod} of {@code rjob} fails: asserts the reason of the Job's failure ( {@code
   * PodFailurePolicy} or {@code BackoffLimitExceeded}) and what JobSet's failure policy then does
   * ({@link #RESTART} or {@link #FAIL}); returns the failure.
   */
  static JobFailure onePodFails(
      JsonNode js, String rjob, PodEnd pod, String reason, String jobSetAction) {
    JobFailure failure = jobFailure(js, rjob, List.of(pod)).orElseThrow();
    assertEquals(reason, failure.reason(), failure.toString());
    assertEquals(jobSetAction, action(js, List.of(failure)), failure.toString());
    return failure;
  }

  static String firstJob(JsonNode js) {
    return js.at("/spec/replicatedJobs/0/name").asText();
  }

  /**
   * The replicated job that runs the user's command: the launcher of an MPI run, else the only one.
   */
  static String lastJob(JsonNode js) {
    JsonNode rjobs = js.at("/spec/replicatedJobs");
    return rjobs.get(rjobs.size() - 1).path("name").asText();
  }

  /**
   * The Job failure the Job controller records when {@code pods} fail in this order, or empty while
   * the Job still runs: the first pod matching a FailJob rule, else the first one matching no rule
   * (counted against {@code backoffLimit: 0}).
   */
  static Optional<JobFailure> jobFailure(JsonNode js, String rjob, List<PodEnd> pods) {
    JsonNode jobSpec = CaseCompile.replicatedJob(js, rjob).path("template").path("spec");
    assertEquals(0, jobSpec.path("backoffLimit").asInt(-1), "backoffLimit");
    assertTrue(
        jobSpec.path("backoffLimitPerIndex").isMissingNode(), "no per-index limit: " + jobSpec);
    JsonNode rules = jobSpec.path("podFailurePolicy").path("rules");
    for (PodEnd pod : pods) {
      String podName =
          "ns/" + js.at("/metadata/name").asText() + "-" + rjob + "-0-" + pod.index() + "-abcde";
      Optional<String> matched = Optional.empty();
      for (int i = 0; i < rules.size() && matched.isEmpty(); i++) {
        matched = podRuleMessage(rules.get(i), i, podName, pod);
        if (matched.isPresent()) {
          assertEquals(
              "FailJob",
              rules.get(i).path("action").asText(),
              "every compiled pod rule fails the Job: " + rules.get(i));
        }
      }
      return Optional.of(
          matched
              .map(m -> new JobFailure(rjob, "PodFailurePolicy", m))
              .orElseGet(
                  () ->
                      new JobFailure(
                          rjob,
                          "BackoffLimitExceeded",
                          "Job has reached the specified backoff limit")));
    }
    return Optional.empty();
  }

  /**
   * Kubernetes pod_failure_policy.go: the FailJob message when {@code rule} (index {@code i})
   * matches.
   */
  static Optional<String> podRuleMessage(JsonNode rule, int i, String podName, PodEnd pod) {
    // The API server requires exactly one of them (Kubernetes pkg/apis/batch/validation
    // validatePodFailurePolicyRule).
    assertTrue(
        rule.has("onExitCodes") != rule.has("onPodConditions"),
        "rule " + i + " needs one requirement: " + rule);
    String action = rule.path("action").asText();
    for (JsonNode c : rule.path("onPodConditions")) {
      if (pod.disrupted()
          && c.path("type").asText().equals("DisruptionTarget")
          && c.path("status").asText().equals("True")) {
        return Optional.of(
            "Pod "
                + podName
                + " has condition DisruptionTarget matching "
                + action
                + " rule at index "
                + i);
      }
    }
    JsonNode codes = rule.path("onExitCodes");
    if (codes.isObject()
        && pod.exitCode() != 0
        && codes.path("containerName").asText().equals(pod.container())) {
      List<Integer> values = new ArrayList<>();
      codes.path("values").forEach(v -> values.add(v.asInt()));
      boolean in = values.contains(pod.exitCode());
      if (codes.path("operator").asText().equals("In") == in) {
        return Optional.of(
            "Container "
                + pod.container()
                + " for pod "
                + podName
                + " failed with exit code "
                + pod.exitCode()
                + " matching "
                + action
                + " rule at index "
                + i);
      }
    }
    return Optional.empty();
  }

  /**
   * JobSet: the first rule that matches any failed Job decides; none matching means RestartJobSet.
   */
  static String action(JsonNode js, List<JobFailure> failed) {
    for (JsonNode rule : js.at("/spec/failurePolicy/rules")) {
      for (JobFailure f : failed) {
        if (matches(rule, f)) {
          return rule.path("action").asText();
        }
      }
    }
    return RESTART;
  }

  static boolean matches(JsonNode rule, JobFailure f) {
    List<String> reasons = new ArrayList<>();
    rule.path("onJobFailureReasons").forEach(r -> reasons.add(r.asText()));
    List<String> patterns = new ArrayList<>();
    rule.path("onJobFailureMessagePatterns").forEach(p -> patterns.add(p.asText()));
    List<String> targets = new ArrayList<>();
    rule.path("targetReplicatedJobs").forEach(t -> targets.add(t.asText()));
    boolean reason = reasons.isEmpty() || reasons.contains(f.reason());
    boolean message =
        patterns.isEmpty()
            || patterns.stream().anyMatch(p -> Pattern.compile(p).matcher(f.message()).find());
    boolean target = targets.isEmpty() || targets.contains(f.replicatedJob());
    assertTrue(
        rule.path("name").asText().matches("^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"),
        "rule name " + rule);
    return reason && message && target;
  }
}
