package dev.trainyard.gitops.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.testing.Wording;
import dev.trainyard.gitops.integration.ArgoHealthLua.HealthResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The JobSet health check ({@code examples/gitops/argocd/health/jobset.lua}) run the way Argo CD
 * runs it, against JobSet objects in each state (test resources {@code jobset-health/*.yaml},
 * shaped like objects the JobSet v0.12.0 controller writes: condition types, reasons and messages
 * from its {@code pkg/constants}).
 */
class JobSetHealthTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  static final String SCRIPT = RepoFiles.text("examples/gitops/argocd/health/jobset.lua");

  @ParameterizedTest(name = "{0} -> {1}: {2}")
  @DisplayName("each JobSet state maps to the Argo CD health a reviewer expects")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
      created             | Progressing | waiting for the JobSet controller
      queued              | Suspended   | waiting in the Kueue queue ml
      preempted           | Suspended   | waiting in the Kueue queue ml
      running             | Progressing | running
      restarting          | Progressing | restarting after a failure: restart 2 of 3 (applying RestartJobSet failure policy action (first failed job: torch-ddp-4e0a62-node-0))
      restarted           | Progressing | running after 1 of 3 restarts
      completed           | Healthy     | jobset completed successfully
      failed              | Degraded    | applying FailJobSet failure policy action (first failed job: torch-ddp-4e0a62-node-0)
      failed-max-restarts | Degraded    | jobset failed due to reaching max number of restarts (first failed job: torch-ddp-4e0a62-node-0)
      """)
  void mapsState(String fixture, String status, String message) {
    assertEquals(new HealthResult(status, message), health(fixture(fixture)));
  }

  @Test
  @DisplayName(
      "a stale Suspended=True condition with spec.suspend cleared (just admitted) is not Suspended")
  void staleSuspendedCondition() {
    ObjectNode jobSet = fixture("queued");
    ((ObjectNode) jobSet.get("spec")).put("suspend", false);
    assertEquals(new HealthResult("Progressing", "running"), health(jobSet));
    ((ObjectNode) jobSet.get("spec")).remove("suspend");
    assertEquals(new HealthResult("Progressing", "running"), health(jobSet));
  }

  @Test
  @DisplayName("a suspended JobSet without a queue label still says it waits in the Kueue queue")
  void suspendedWithoutQueueLabel() {
    ObjectNode jobSet = fixture("queued");
    ((ObjectNode) jobSet.at("/metadata/labels")).remove("kueue.x-k8s.io/queue-name");
    assertEquals(new HealthResult("Suspended", "waiting in the Kueue queue"), health(jobSet));
    ((ObjectNode) jobSet.get("metadata")).remove("labels");
    assertEquals(new HealthResult("Suspended", "waiting in the Kueue queue"), health(jobSet));
  }

  @Test
  @DisplayName("a finished JobSet is Healthy or Degraded even when it is also suspended")
  void terminalWinsOverSuspended() {
    ObjectNode completed = fixture("completed");
    ((ObjectNode) completed.get("spec")).put("suspend", true);
    assertEquals("Healthy", health(completed).status());
    ObjectNode failed = fixture("failed");
    ((ObjectNode) failed.get("spec")).put("suspend", true);
    assertEquals("Degraded", health(failed).status());
  }

  @Test
  @DisplayName("Failed wins over Completed when both are True")
  void failedWinsOverCompleted() {
    ObjectNode jobSet = fixture("completed");
    condition(
        jobSet, "Failed", "True", "FailedJobs", "jobset failed due to one or more job failures");
    assertEquals(
        new HealthResult("Degraded", "jobset failed due to one or more job failures"),
        health(jobSet));
  }

  @Test
  @DisplayName("a condition without a message falls back to its reason, then to a fixed text")
  void messageFallbacks() {
    ObjectNode failed = fixture("failed");
    conditionNode(failed, "Failed").put("message", "");
    assertEquals(new HealthResult("Degraded", "FailJobSetFailurePolicyAction"), health(failed));
    conditionNode(failed, "Failed").remove("reason");
    assertEquals(new HealthResult("Degraded", "JobSet failed"), health(failed));
    ObjectNode completed = fixture("completed");
    conditionNode(completed, "Completed").remove("message");
    assertEquals(new HealthResult("Healthy", "AllJobsCompleted"), health(completed));
    conditionNode(completed, "Completed").put("reason", "");
    assertEquals(new HealthResult("Healthy", "JobSet completed"), health(completed));
  }

  @Test
  @DisplayName(
      "conditions with status False never count: a resumed, not-restarting JobSet is running")
  void falseConditionsIgnored() {
    ObjectNode jobSet = fixture("running");
    condition(jobSet, "Failed", "False", "x", "not failed");
    condition(jobSet, "Completed", "False", "x", "not completed");
    condition(jobSet, "RestartingJobSet", "False", "JobsReady", "all jobs are ready");
    assertEquals(new HealthResult("Progressing", "running"), health(jobSet));
  }

  @Test
  @DisplayName(
      "a restart without failurePolicy.maxRestarts names no limit; a status without restarts counts 0")
  void restartWithoutLimit() {
    ObjectNode restarting = fixture("restarting");
    ((ObjectNode) restarting.get("spec")).remove("failurePolicy");
    WORDING.approve(health(restarting).message());
    ((ObjectNode) restarting.get("status")).remove("restarts");
    ((ObjectNode) restarting.get("status")).remove("restartsCountTowardsMax");
    WORDING.approve(health(restarting).message());
    ObjectNode running = fixture("running");
    ((ObjectNode) running.get("status")).remove("restarts");
    assertEquals(new HealthResult("Progressing", "running"), health(running));
  }

  @Test
  @DisplayName(
      "restartsCountTowardsMax is preferred for 'N of maxRestarts'; restarts that do not count are named as the total")
  void restartsCountTowardsMax() {
    ObjectNode restarting = fixture("restarting");
    ((ObjectNode) restarting.get("status")).put("restarts", 5).put("restartsCountTowardsMax", 3);
    WORDING.approve(health(restarting).message());
    ObjectNode restarted = fixture("restarted");
    ((ObjectNode) restarted.get("status")).put("restarts", 4).put("restartsCountTowardsMax", 0);
    assertEquals(
        new HealthResult("Progressing", "running after 0 of 3 restarts, 4 in all"),
        health(restarted));
    ((ObjectNode) restarted.get("status")).remove("restartsCountTowardsMax");
    assertEquals(
        new HealthResult("Progressing", "running after 4 of 3 restarts"),
        health(restarted),
        "a JobSet that does not report the field: restarts, as before");
  }

  @Test
  @DisplayName("a status with no conditions yet is Progressing, waiting for the JobSet controller")
  void statusWithoutConditions() {
    ObjectNode jobSet = fixture("created");
    jobSet.putObject("status").put("restarts", 0);
    assertEquals(
        new HealthResult("Progressing", "waiting for the JobSet controller"), health(jobSet));
  }

  @Test
  @DisplayName("the runner mirrors Argo CD: no string library, a table result, a valid health code")
  void runnerMirrorsArgoCd() {
    JsonNode jobSet = fixture("running");
    IllegalStateException noStringLib =
        assertThrows(
            IllegalStateException.class,
            () -> ArgoHealthLua.run("return { status = string.upper('healthy') }", jobSet));
    assertTrue(noStringLib.getMessage().startsWith("Lua error"), noStringLib.getMessage());
    assertThrows(IllegalStateException.class, () -> ArgoHealthLua.run("return 'Healthy'", jobSet));
    assertEquals(
        new HealthResult("Unknown", "Lua returned an invalid health status"),
        ArgoHealthLua.run("return { status = 'Fine' }", jobSet));
    assertEquals(
        new HealthResult("Healthy", "2 ml"),
        ArgoHealthLua.run(
            "return { status = 'Healthy', message = obj.spec.replicatedJobs[1].template.spec.parallelism .. ' ' .. obj.metadata.namespace }",
            jobSet));
  }

  static HealthResult health(JsonNode jobSet) {
    return ArgoHealthLua.run(SCRIPT, jobSet);
  }

  /** A fixture from {@code jobset-health/NAME.yaml}, a fresh mutable copy each time. */
  static ObjectNode fixture(String name) {
    try (InputStream in =
        JobSetHealthTest.class.getResourceAsStream("/jobset-health/" + name + ".yaml")) {
      if (in == null) {
        throw new IllegalArgumentException("no fixture " + name);
      }
      return (ObjectNode)
          RepoFiles.parseDocuments(new String(in.readAllBytes(), StandardCharsets.UTF_8)).get(0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void condition(
      ObjectNode jobSet, String type, String status, String reason, String message) {
    ((ArrayNode) jobSet.at("/status/conditions"))
        .addObject()
        .put("type", type)
        .put("status", status)
        .put("reason", reason)
        .put("message", message)
        .put("lastTransitionTime", "2026-11-30T12:00:00Z");
  }

  private static ObjectNode conditionNode(ObjectNode jobSet, String type) {
    for (JsonNode c : jobSet.at("/status/conditions")) {
      if (type.equals(c.path("type").asText())) {
        return (ObjectNode) c;
      }
    }
    throw new IllegalArgumentException("no condition " + type);
  }
}
