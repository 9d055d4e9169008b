package dev.trainyard.compiler.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.resolve.ResolvedJob;
import java.util.List;
import java.util.Map;

/**
 * Which {@code train.yaml} field an emitted field comes from, so an API-server rejection points at
 * the user's line: {@code spec.replicatedJobs[0].template.spec.template.spec.containers[0].image} →
 * {@code /image}, {@code metadata.name} → {@code /name}, {@code ...resources...} → {@code
 * /resources}. First match wins; an unmatched field points at the file.
 */
final class FieldOrigin {
  private static final List<Map.Entry<String, String>> RULES =
      List.of(
          Map.entry("metadata.name", "/name"),
          Map.entry("subdomain", "/name"),
          Map.entry(".image", "/image"),
          Map.entry(".env", "/env"),
          Map.entry("resources", "/resources"),
          Map.entry("volumes", "/volumes"),
          Map.entry("volumeMounts", "/volumes"),
          Map.entry("parallelism", "/nodes"),
          Map.entry("completions", "/nodes"),
          Map.entry("activeDeadlineSeconds", "/timeout"),
          Map.entry("maxRestarts", "/retries"),
          Map.entry("queue-name", "/queue"),
          Map.entry("priority-class", "/priority"),
          Map.entry("workingDir", "/workdir"),
          Map.entry("nodeSelector", "/resources/gpuType"));

  private FieldOrigin() {}

  /** A CLUSTER_REJECTED diagnostic at the train.yaml field behind {@code field}. */
  static Diagnostic diagnostic(ResolvedJob job, String field, String message) {
    String pointer = pointerFor(field, job.spec().document().root());
    return Diagnostic.error(
            DiagnosticCode.CLUSTER_REJECTED,
            job.spec().document().map().at(pointer),
            pointer,
            message)
        .withHint(
            pointer.isEmpty()
                ? "the cluster's CRDs or webhooks disagree with what Trainyard emits; check the JobSet and Kueue versions installed"
                : "change `" + pointer.substring(1).replace('/', '.') + "` in train.yaml");
  }

  /**
   * The pointer for {@code field}, falling back to the runtime when the user did not write the
   * field.
   */
  static String pointerFor(String field, JsonNode trainYaml) {
    for (Map.Entry<String, String> rule : RULES) {
      if (field.contains(rule.getKey())) {
        String pointer = rule.getValue();
        return trainYaml.at(pointer).isMissingNode() ? "" : pointer;
      }
    }
    return "";
  }
}
