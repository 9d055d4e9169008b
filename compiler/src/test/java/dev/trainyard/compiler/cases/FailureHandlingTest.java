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
 * DESIGN §4 "Failure handling", checked by evaluating the emitted policies the way the controllers do:
 * the Job controller's pod failure policy (first matching rule; its FailJob message formats from Kubernetes
 * {@code pkg/controller/job/pod_failure_policy.go}) and JobSet's failure policy (first rule matching any
 * failed Job; no match means RestartJobSet; jobset {@code pkg/controllers/failure_policy.go}).
 */
class FailureHandlingTest {
  static final String RESTART = "RestartJobSet";
  static final String FAIL = "FailJobSet";

  @TempDir Path dir;

  /** A failed Job as the JobSet controller sees it: its failure condition's reason and message. */
  record JobFailure(String replicatedJob, String reason, String message) {}

  /** A failed pod: its DisruptionTarget condition and the node container's exit code. */
  record PodEnd(boolean disrupted, int exitCode) {}

  JsonNode jobSet(String runtime) {
    return object(TrainProject.create(dir, "runtime: " + runtime + "\nrun: python train.py\nnodes: 3\nretries: 2\n").compile(), "JobSet");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"torch", "jax", "plain", "mpi", "deepspeed", "mlx"})
  @DisplayName("a timeout (DeadlineExceeded) fails the run; it never restarts it")
  void deadlineFails(String runtime) {
    JsonNode js = jobSet(runtime);
    assertEquals(FAIL, action(js, List.of(new JobFailure(firstJob(js), "DeadlineExceeded", "Job was active longer than specified deadline"))));
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"torch", "jax", "plain", "mpi", "deepspeed", "mlx"})
  @DisplayName("an evicted, preempted or lost pod (DisruptionTarget, also exiting 137) restarts the run, counted against retries")
  void disruptionRestarts(String runtime) {
    JsonNode js = jobSet(runtime);
    String rjob = firstJob(js);
    JobFailure failure = jobFailure(js, rjob, new PodEnd(true, 137));
    assertEquals("PodFailurePolicy", failure.reason(), failure.toString());
    assertEquals(RESTART, action(js, List.of(failure)));
    assertEquals(2, js.at("/spec/failurePolicy/maxRestarts").asInt(), "retries is maxRestarts");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"torch", "jax", "plain", "mpi", "deepspeed", "mlx"})
  @DisplayName("a non-zero exit of the user's command fails the run at once")
  void userExitFails(String runtime) {
    JsonNode js = jobSet(runtime);
    JobFailure failure = jobFailure(js, firstJob(js), new PodEnd(false, 1));
    assertEquals(FAIL, action(js, List.of(failure)), failure.toString());
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"mpi", "deepspeed", "mlx"})
  @DisplayName("MPI: an evicted node pod restarts the run even when the launcher's mpirun then exits non-zero")
  void mpiDisruptionBeatsLauncherExit(String runtime) {
    JsonNode js = jobSet(runtime);
    JobFailure node = jobFailure(js, "node", new PodEnd(true, 143));
    JobFailure launcher = jobFailure(js, "launcher", new PodEnd(false, 1));
    assertEquals(RESTART, action(js, List.of(launcher, node)));
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"torch", "mpi"})
  @DisplayName("a failure no rule names (an init container, BackoffLimitExceeded) gets JobSet's default restart")
  void otherFailuresRestart(String runtime) {
    JsonNode js = jobSet(runtime);
    assertEquals(RESTART, action(js, List.of(new JobFailure(firstJob(js), "BackoffLimitExceeded", "Job has reached the specified backoff limit"))));
  }

  static String firstJob(JsonNode js) {
    return js.at("/spec/replicatedJobs/0/name").asText();
  }

  /** The Job failure the Job controller records for the first failed pod of {@code rjob}. */
  static JobFailure jobFailure(JsonNode js, String rjob, PodEnd pod) {
    JsonNode jobSpec = CaseCompile.replicatedJob(js, rjob).path("template").path("spec");
    assertEquals(0, jobSpec.path("backoffLimit").asInt(-1), "backoffLimit");
    String podName = "ns/" + js.at("/metadata/name").asText() + "-" + rjob + "-0-1-abcde";
    JsonNode rules = jobSpec.path("podFailurePolicy").path("rules");
    for (int i = 0; i < rules.size(); i++) {
      Optional<String> message = podRuleMessage(rules.get(i), i, podName, pod);
      if (message.isPresent()) {
        String action = rules.get(i).path("action").asText();
        assertEquals("FailJob", action, "the matching pod rule " + rules.get(i));
        return new JobFailure(rjob, "PodFailurePolicy", message.get());
      }
    }
    return new JobFailure(rjob, "BackoffLimitExceeded", "Job has reached the specified backoff limit");
  }

  /** Kubernetes pod_failure_policy.go: the FailJob message when {@code rule} (index {@code i}) matches. */
  static Optional<String> podRuleMessage(JsonNode rule, int i, String podName, PodEnd pod) {
    String action = rule.path("action").asText();
    for (JsonNode c : rule.path("onPodConditions")) {
      if (pod.disrupted() && c.path("type").asText().equals("DisruptionTarget") && c.path("status").asText().equals("True")) {
        return Optional.of("Pod " + podName + " has condition DisruptionTarget matching " + action + " rule at index " + i);
      }
    }
    JsonNode codes = rule.path("onExitCodes");
    if (codes.isObject() && pod.exitCode() != 0 && codes.path("containerName").asText().equals("node")) {
      List<Integer> values = new ArrayList<>();
      codes.path("values").forEach(v -> values.add(v.asInt()));
      boolean in = values.contains(pod.exitCode());
      if (codes.path("operator").asText().equals("In") == in) {
        return Optional.of("Container node for pod " + podName + " failed with exit code " + pod.exitCode()
            + " matching " + action + " rule at index " + i);
      }
    }
    return Optional.empty();
  }

  /** JobSet: the first rule that matches any failed Job decides; none matching means RestartJobSet. */
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
    boolean message = patterns.isEmpty() || patterns.stream().anyMatch(p -> Pattern.compile(p).matcher(f.message()).find());
    boolean target = targets.isEmpty() || targets.contains(f.replicatedJob());
    assertTrue(rule.path("name").asText().matches("^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"), "rule name " + rule);
    return reason && message && target;
  }
}
