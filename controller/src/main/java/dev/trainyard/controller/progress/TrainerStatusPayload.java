package dev.trainyard.controller.progress;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trainyard.controller.state.Progress;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads the body of a progress push: Kubeflow Trainer's {@code UpdateTrainJobStatusRequest}
 * (KEP-2779, {@code pkg/apis/trainer/v1alpha1} {@code TrainerStatus}), as its SDK, its Hugging Face
 * callback and its docs' raw-HTTP example send it.
 *
 * <pre>
 * {"trainerStatus": {
 *    "progressPercentage": 45,               # integer 0..100, optional
 *    "estimatedRemainingSeconds": 795649,    # integer 0..2147483647 (int32), optional
 *    "metrics": [{"name": "loss", "value": "0.2347"}],   # name and value non-empty strings, optional
 *    "lastUpdatedTime": "2025-01-23T10:30:45Z"}}         # RFC 3339, optional here (receipt time)
 * </pre>
 *
 * <p>Kubeflow's limits are kept: its CRD's minimum and maximum, strings for metric values (its
 * {@code Metric.Value} is a Go string: a JSON number there fails to decode), an RFC 3339 time with
 * an offset (Go's {@code metav1.Time}). Unknown fields are ignored, as Go's decoder ignores them; a
 * body without {@code trainerStatus} is accepted and changes nothing (Kubeflow answers it 200 too).
 * The Hugging Face callback's {@code current_step} and {@code total_steps} metrics also give the
 * step and total ({@code transformers.integrations.KubeflowCallback.on_step_end}). At most {@link
 * Progress#MAX_METRICS} metrics are kept, the first ones.
 */
public final class TrainerStatusPayload {

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The body read: {@code progress} when the body carried a {@code trainerStatus}, {@code error}
   * (one sentence naming the field, never echoing more than 40 characters of a value) when it is
   * refused; neither for a body that reports nothing.
   */
  public record Parsed(Optional<Progress> progress, String error) {
    /** Whether the body is refused. */
    public boolean refused() {
      return !error.isEmpty();
    }
  }

  private TrainerStatusPayload() {}

  /**
   * The progress in {@code body} (UTF-8 JSON), stamped {@code now} when it names no time.
   *
   * @return never throws for a bad body: {@link Parsed#error()} says what is wrong
   */
  public static Parsed parse(byte[] body, Instant now) {
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (IOException e) {
      // Only JsonProcessingException comes from a byte array; its original message has no location.
      return refused(
          "the body is not JSON: "
              + (e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage()));
    }
    if (root == null || !root.isObject()) {
      return refused("the body must be a JSON object like {\"trainerStatus\": {...}}");
    }
    JsonNode status = root.path("trainerStatus");
    if (status.isMissingNode() || status.isNull()) {
      return new Parsed(Optional.empty(), "");
    }
    if (!status.isObject()) {
      return refused("trainerStatus must be an object");
    }
    try {
      return new Parsed(Optional.of(progress(status, now)), "");
    } catch (IllegalArgumentException e) {
      return refused(e.getMessage());
    }
  }

  private static Progress progress(JsonNode status, Instant now) {
    Integer percent = integer(status, "progressPercentage", 100);
    Integer remaining = integer(status, "estimatedRemainingSeconds", Integer.MAX_VALUE);
    List<Progress.Metric> metrics = metrics(status.path("metrics"));
    return new Progress(
        count(metrics, "current_step", 0),
        count(metrics, "total_steps", 1),
        percent,
        remaining == null ? null : Duration.ofSeconds(remaining),
        metrics,
        time(status.path("lastUpdatedTime"), now),
        Progress.Source.PUSH);
  }

  /** {@code status.name}: null when absent or null, else an integer in 0..max. */
  private static Integer integer(JsonNode status, String name, int max) {
    JsonNode v = status.path(name);
    if (v.isMissingNode() || v.isNull()) {
      return null;
    }
    if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < 0 || v.asLong() > max) {
      throw new IllegalArgumentException(
          "trainerStatus."
              + name
              + " must be an integer from 0 to "
              + max
              + ", got "
              + shorten(v.toString()));
    }
    return v.intValue();
  }

  private static List<Progress.Metric> metrics(JsonNode list) {
    List<Progress.Metric> out = new ArrayList<>();
    if (list.isMissingNode() || list.isNull()) {
      return out;
    }
    if (!list.isArray()) {
      throw new IllegalArgumentException(
          "trainerStatus.metrics must be a list of {\"name\": ..., \"value\": ...}");
    }
    for (int i = 0; i < list.size(); i++) {
      JsonNode m = list.get(i);
      JsonNode name = m.path("name");
      JsonNode value = m.path("value");
      if (!name.isTextual() || name.asText().isBlank()) {
        throw new IllegalArgumentException(
            "trainerStatus.metrics[" + i + "].name must be a non-empty string");
      }
      if (!value.isTextual() || value.asText().isBlank()) {
        throw new IllegalArgumentException(
            "trainerStatus.metrics["
                + i
                + "].value must be a non-empty string (Kubeflow's Metric.value is a string:"
                + " send \"0.53\", not 0.53), got "
                + shorten(value.isMissingNode() ? "nothing" : value.toString()));
      }
      out.add(new Progress.Metric(name.asText(), value.asText()));
    }
    return out;
  }

  /**
   * The whole number a metric {@code name} holds when it is at least {@code min}, as the Hugging
   * Face callback sends its step counters; null otherwise.
   */
  private static Long count(List<Progress.Metric> metrics, String name, long min) {
    for (Progress.Metric m : metrics) {
      if (m.name().equals(name)) {
        try {
          long n = Long.parseLong(m.value().trim());
          return n >= min ? n : null;
        } catch (NumberFormatException e) {
          return null;
        }
      }
    }
    return null;
  }

  private static Instant time(JsonNode v, Instant now) {
    if (v.isMissingNode() || v.isNull()) {
      return now;
    }
    try {
      return OffsetDateTime.parse(v.asText()).toInstant();
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "trainerStatus.lastUpdatedTime must be an RFC 3339 time with an offset like"
              + " 2025-01-23T10:30:45Z (Python: datetime.now(timezone.utc).isoformat()), got "
              + shorten(v.toString()));
    }
  }

  private static String shorten(String text) {
    return text.length() <= 40 ? text : text.substring(0, 40) + "…";
  }

  private static Parsed refused(String why) {
    return new Parsed(Optional.empty(), why);
  }
}
