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
 * FailJob fixes the Job's failure; FailIndex, or a counted failure with {@code
 * backoffLimitPerIndex: 0}, ends the index, and the Job fails with FailedIndexes once every index
 * ended, {@code job_controller.go} syncJob) and JobSet's failure policy (first rule matching any
 * failed Job; no match means RestartJobSet; jobset {@code pkg/controllers/failure_policy.go}).
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
    JobFailure failure =
        jobFailure(js, firstJob(js), List.of(PodEnd.disrupted(0, 137))).orElseThrow();
    assertEquals("PodFailurePolicy", failure.reason(), failure.toString());
    assertEquals(RESTART, action(js, List.of(failure)));
    assertEquals(2, js.at("/spec/failurePolicy/maxRestarts").asInt(), "retries is maxRestarts");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"torch", "jax", "plain", "mpi", "deepspeed", "mlx"})
  @DisplayName(
      "a non-zero exit of the user's command, then its peers' exits, fails the run without a restart")
  void userExitFails(String runtime) {
    JsonNode js = jobSet(runtime);
    String rjob = firstJob(js);
    List<PodEnd> pods = new ArrayList<>();
    for (int i = 0; i < completions(js, rjob); i++) {
      pods.add(PodEnd.exit(i, i == 0 ? 1 : 134));
    }
    JobFailure failure = jobFailure(js, rjob, pods).orElseThrow();
    assertEquals("FailedIndexes", failure.reason(), failure.toString());
    assertEquals(FAIL, action(js, List.of(failure)), failure.toString());
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"torch", "jax", "plain", "mpi"})
  @DisplayName(
      "a rank's non-zero exit ends only its own index (FailIndex): the Job goes on while any index runs")
  void userExitEndsItsIndexOnly(String runtime) {
    JsonNode js = jobSet(runtime);
    String rjob = firstJob(js);
    assertEquals(Optional.of("FailIndex"), matchingAction(js, rjob, PodEnd.exit(0, 1)));
    assertEquals(
        Optional.of("FailJob"),
        matchingAction(js, rjob, PodEnd.disrupted(0, 1)),
        "DisruptionTarget comes first");
    assertEquals(
        Optional.empty(),
        jobFailure(js, rjob, List.of(PodEnd.exit(0, 1))),
        "the other indexes still run");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"torch", "jax", "plain"})
  @DisplayName(
      "single-Job race: survivors that exit 1 before the disrupted pod fails do not end the Job; the disruption then restarts the run")
  void survivorsBeforeDisruptionRestart(String runtime) {
    JsonNode js = jobSet(runtime);
    List<PodEnd> survivors = List.of(PodEnd.exit(1, 1), PodEnd.exit(2, 1));
    assertEquals(Optional.empty(), jobFailure(js, "node", survivors), "the survivors' exits alone");
    List<PodEnd> all = new ArrayList<>(survivors);
    all.add(PodEnd.disrupted(0, 143));
    JobFailure failure = jobFailure(js, "node", all).orElseThrow();
    assertEquals(RESTART, action(js, List.of(failure)), failure.toString());
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
    JobFailure failure =
        jobFailure(js, firstJob(js), List.of(new PodEnd(0, false, "code-sync", 128))).orElseThrow();
    assertEquals("PodFailurePolicy", failure.reason(), failure.toString());
    assertEquals(RESTART, action(js, List.of(failure)));
  }

  static String firstJob(JsonNode js) {
    return js.at("/spec/replicatedJobs/0/name").asText();
  }

  static int completions(JsonNode js, String rjob) {
    return CaseCompile.replicatedJob(js, rjob).at("/template/spec/completions").asInt();
  }

  /**
   * The Job failure the Job controller records when {@code pods} fail in this order, or empty while
   * the Job still runs. A pod matching no rule is counted against its index's limit ({@code
   * backoffLimitPerIndex}).
   */
  static Optional<JobFailure> jobFailure(JsonNode js, String rjob, List<PodEnd> pods) {
    JsonNode jobSpec = CaseCompile.replicatedJob(js, rjob).path("template").path("spec");
    assertEquals(
        Integer.MAX_VALUE, jobSpec.path("backoffLimit").asInt(-1), "no Job-wide backoffLimit");
    assertEquals(0, jobSpec.path("backoffLimitPerIndex").asInt(-1), "backoffLimitPerIndex");
    JsonNode rules = jobSpec.path("podFailurePolicy").path("rules");
    java.util.Set<Integer> ended = new java.util.TreeSet<>();
    for (PodEnd pod : pods) {
      String podName =
          "ns/" + js.at("/metadata/name").asText() + "-" + rjob + "-0-" + pod.index() + "-abcde";
      for (int i = 0; i < rules.size(); i++) {
        Optional<String> message = podRuleMessage(rules.get(i), i, podName, pod);
        if (message.isPresent() && rules.get(i).path("action").asText().equals("FailJob")) {
          return Optional.of(new JobFailure(rjob, "PodFailurePolicy", message.get()));
        }
        if (message.isPresent()) {
          assertEquals(
              "FailIndex",
              rules.get(i).path("action").asText(),
              "the matching pod rule " + rules.get(i));
          break;
        }
      }
      ended.add(pod.index());
    }
    return ended.size() == jobSpec.path("completions").asInt()
        ? Optional.of(new JobFailure(rjob, "FailedIndexes", "Job has failed indexes"))
        : Optional.empty();
  }

  /** The action of the first pod failure policy rule of {@code rjob} that {@code pod} matches. */
  static Optional<String> matchingAction(JsonNode js, String rjob, PodEnd pod) {
    JsonNode rules =
        CaseCompile.replicatedJob(js, rjob).at("/template/spec/podFailurePolicy/rules");
    for (int i = 0; i < rules.size(); i++) {
      if (podRuleMessage(rules.get(i), i, "ns/pod", pod).isPresent()) {
        return Optional.of(rules.get(i).path("action").asText());
      }
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
