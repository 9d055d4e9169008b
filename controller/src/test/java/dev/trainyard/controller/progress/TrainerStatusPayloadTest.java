package dev.trainyard.controller.progress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.controller.state.Progress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TrainerStatusPayloadTest {

  static final Instant NOW = Instant.parse("2026-12-02T08:00:00Z");

  static TrainerStatusPayload.Parsed parse(String body) {
    return TrainerStatusPayload.parse(body.getBytes(StandardCharsets.UTF_8), NOW);
  }

  static Progress accepted(String body) {
    TrainerStatusPayload.Parsed p = parse(body);
    assertEquals("", p.error());
    assertFalse(p.refused());
    return p.progress().orElseThrow();
  }

  static String refused(String body) {
    TrainerStatusPayload.Parsed p = parse(body);
    assertTrue(p.refused(), body);
    assertEquals(Optional.empty(), p.progress());
    return p.error();
  }

  @Test
  @DisplayName("the KEP's example payload: percent, remaining seconds, metrics in order, its time")
  void kepExample() {
    Progress p =
        accepted(
            "{\"trainerStatus\": {\"progressPercentage\": 45, \"estimatedRemainingSeconds\": 795649,"
                + " \"metrics\": [{\"name\": \"loss\", \"value\": \"0.2347\"},"
                + " {\"name\": \"eval_loss\", \"value\": \"0.2451\"},"
                + " {\"name\": \"accuracy\", \"value\": \"0.9876\"},"
                + " {\"name\": \"currentEpoch\", \"value\": \"2\"},"
                + " {\"name\": \"totalEpochs\", \"value\": \"5\"}],"
                + " \"lastUpdatedTime\": \"2025-01-23T10:30:45Z\"}}");
    assertEquals(45, p.percent());
    assertEquals(Duration.ofSeconds(795649), p.remaining());
    assertEquals(
        List.of("loss", "eval_loss", "accuracy", "currentEpoch", "totalEpochs"),
        p.metrics().stream().map(Progress.Metric::name).toList());
    assertEquals("0.2347", p.metrics().get(0).value());
    assertEquals(Instant.parse("2025-01-23T10:30:45Z"), p.updatedAt());
    assertEquals(Progress.Source.PUSH, p.source());
    assertEquals(null, p.step());
    assertEquals(null, p.totalSteps());
  }

  @Test
  @DisplayName(
      "the Hugging Face callback's body: Python isoformat time, step and total from its metrics")
  void huggingFaceCallback() {
    Progress p =
        accepted(
            "{\"trainerStatus\": {\"lastUpdatedTime\": \"2026-12-02T07:59:58.123456+00:00\","
                + " \"progressPercentage\": 37, \"estimatedRemainingSeconds\": 105,"
                + " \"metrics\": [{\"name\": \"loss\", \"value\": \"0.53\"},"
                + " {\"name\": \"current_step\", \"value\": \"370\"},"
                + " {\"name\": \"total_steps\", \"value\": \"1000\"},"
                + " {\"name\": \"current_epoch\", \"value\": \"1.2\"}]}}");
    assertEquals(370L, p.step());
    assertEquals(1000L, p.totalSteps());
    assertEquals(37, p.percent());
    assertEquals(Instant.parse("2026-12-02T07:59:58.123456Z"), p.updatedAt());
  }

  @Test
  @DisplayName(
      "step and total alone give the percentage; step counters that are not whole numbers are ignored")
  void counters() {
    Progress p =
        accepted(
            "{\"trainerStatus\": {\"metrics\": [{\"name\": \"current_step\", \"value\": \"250\"},"
                + " {\"name\": \"total_steps\", \"value\": \"1000\"}]}}");
    assertEquals(25, p.percent());
    assertEquals(NOW, p.updatedAt());
    Progress q =
        accepted(
            "{\"trainerStatus\": {\"metrics\": [{\"name\": \"current_step\", \"value\": \"-1\"},"
                + " {\"name\": \"total_steps\", \"value\": \"0\"}]}}");
    assertEquals(null, q.step());
    assertEquals(null, q.totalSteps());
    Progress r =
        accepted(
            "{\"trainerStatus\": {\"metrics\": [{\"name\": \"current_step\", \"value\": \"0\"},"
                + " {\"name\": \"total_steps\", \"value\": \"1\"}, {\"name\": \"x\", \"value\": \"y\"}]}}");
    assertEquals(0L, r.step());
    assertEquals(1L, r.totalSteps());
    Progress s =
        accepted(
            "{\"trainerStatus\": {\"metrics\": [{\"name\": \"current_step\", \"value\": \"3.5\"}]}}");
    assertEquals(null, s.step());
  }

  @Test
  @DisplayName(
      "nulls and absent fields are unknown; boundary values are kept; unknown fields ignored")
  void optional() {
    Progress p =
        accepted(
            "{\"trainerStatus\": {\"progressPercentage\": null, \"estimatedRemainingSeconds\": null,"
                + " \"metrics\": null, \"lastUpdatedTime\": null, \"extra\": 1}, \"modelInitializerStatus\": {}}");
    assertEquals(null, p.percent());
    assertEquals(null, p.remaining());
    assertEquals(List.of(), p.metrics());
    assertEquals(NOW, p.updatedAt());
    assertEquals(0, accepted("{\"trainerStatus\": {\"progressPercentage\": 0}}").percent());
    assertEquals(100, accepted("{\"trainerStatus\": {\"progressPercentage\": 100}}").percent());
    assertEquals(
        Duration.ofSeconds(Integer.MAX_VALUE),
        accepted("{\"trainerStatus\": {\"estimatedRemainingSeconds\": 2147483647}}").remaining());
    assertEquals(
        Duration.ZERO,
        accepted("{\"trainerStatus\": {\"estimatedRemainingSeconds\": 0}}").remaining());
  }

  @Test
  @DisplayName("a body without trainerStatus reports nothing and is not refused")
  void nothing() {
    for (String body : List.of("{}", "{\"trainerStatus\": null}")) {
      TrainerStatusPayload.Parsed p = parse(body);
      assertFalse(p.refused());
      assertEquals(Optional.empty(), p.progress());
    }
  }

  @Test
  @DisplayName("a value up to 40 characters is quoted whole, a longer one cut with …")
  void quoted() {
    String forty = "\"" + "x".repeat(38) + "\"";
    assertTrue(
        refused("{\"trainerStatus\": {\"lastUpdatedTime\": " + forty + "}}")
            .endsWith("got " + forty));
    String more = "\"" + "x".repeat(39) + "\"";
    assertTrue(
        refused("{\"trainerStatus\": {\"lastUpdatedTime\": " + more + "}}")
            .endsWith("got \"" + "x".repeat(39) + "…"));
  }

  @Test
  @DisplayName("more than 8 metrics: the first 8 are kept")
  void manyMetrics() {
    String metrics =
        IntStream.range(0, 12)
            .mapToObj(i -> "{\"name\": \"m" + i + "\", \"value\": \"" + i + "\"}")
            .collect(Collectors.joining(","));
    Progress p = accepted("{\"trainerStatus\": {\"metrics\": [" + metrics + "]}}");
    assertEquals(8, p.metrics().size());
    assertEquals("m7", p.metrics().get(7).name());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "not json|the body is not JSON: ",
        "[1]|the body must be a JSON object like {\"trainerStatus\": {...}}",
        "|the body must be a JSON object",
        "{\"trainerStatus\": 5}|trainerStatus must be an object",
        "{\"trainerStatus\": {\"progressPercentage\": 101}}|trainerStatus.progressPercentage must be an integer from 0 to 100, got 101",
        "{\"trainerStatus\": {\"progressPercentage\": -1}}|trainerStatus.progressPercentage must be an integer from 0 to 100, got -1",
        "{\"trainerStatus\": {\"progressPercentage\": 45.5}}|trainerStatus.progressPercentage must be an integer from 0 to 100, got 45.5",
        "{\"trainerStatus\": {\"progressPercentage\": \"45\"}}|trainerStatus.progressPercentage must be an integer from 0 to 100, got \"45\"",
        "{\"trainerStatus\": {\"progressPercentage\": 99999999999999999999999}}|trainerStatus.progressPercentage must be an integer from 0 to 100, got 99999999999999999999999",
        "{\"trainerStatus\": {\"estimatedRemainingSeconds\": 2147483648}}|trainerStatus.estimatedRemainingSeconds must be an integer from 0 to 2147483647, got 2147483648",
        "{\"trainerStatus\": {\"estimatedRemainingSeconds\": -5}}|trainerStatus.estimatedRemainingSeconds must be an integer from 0 to 2147483647, got -5",
        "{\"trainerStatus\": {\"metrics\": {\"loss\": \"1\"}}}|trainerStatus.metrics must be a list of {\"name\": ..., \"value\": ...}",
        "{\"trainerStatus\": {\"metrics\": [{\"value\": \"1\"}]}}|trainerStatus.metrics[0].name must be a non-empty string",
        "{\"trainerStatus\": {\"metrics\": [{\"name\": \" \", \"value\": \"1\"}]}}|trainerStatus.metrics[0].name must be a non-empty string",
        "{\"trainerStatus\": {\"metrics\": [{\"name\": 3, \"value\": \"1\"}]}}|trainerStatus.metrics[0].name must be a non-empty string",
        "{\"trainerStatus\": {\"metrics\": [{\"name\": \"a\", \"value\": \"1\"}, {\"name\": \"loss\", \"value\": 0.5}]}}|trainerStatus.metrics[1].value must be a non-empty string (Kubeflow's Metric.value is a string: send \"0.53\", not 0.53), got 0.5",
        "{\"trainerStatus\": {\"metrics\": [{\"name\": \"loss\"}]}}|trainerStatus.metrics[0].value must be a non-empty string (Kubeflow's Metric.value is a string: send \"0.53\", not 0.53), got nothing",
        "{\"trainerStatus\": {\"metrics\": [{\"name\": \"loss\", \"value\": \"\"}]}}|trainerStatus.metrics[0].value must be a non-empty string (Kubeflow's Metric.value is a string: send \"0.53\", not 0.53), got \"\"",
        "{\"trainerStatus\": {\"lastUpdatedTime\": \"2026-12-02T08:00:00\"}}|trainerStatus.lastUpdatedTime must be an RFC 3339 time with an offset like 2025-01-23T10:30:45Z (Python: datetime.now(timezone.utc).isoformat()), got \"2026-12-02T08:00:00\"",
        "{\"trainerStatus\": {\"lastUpdatedTime\": \"yesterday at noon, more or less, in some time zone\"}}|trainerStatus.lastUpdatedTime must be an RFC 3339 time with an offset like 2025-01-23T10:30:45Z (Python: datetime.now(timezone.utc).isoformat()), got \"yesterday at noon, more or less, in som…",
      })
  @DisplayName("a body that is not the payload is refused with one sentence naming the field")
  void refusals(String body, String message) {
    String error = refused(body == null ? "" : body);
    assertTrue(error.startsWith(message), error);
  }
}
