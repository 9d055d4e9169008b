package dev.trainyard.compiler.spec;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.source.ParsedDocument;
import dev.trainyard.compiler.source.SourceMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Builds a {@link TrainSpec} from a {@code train.yaml} that passed {@code
 * schemas/train.v1.schema.json}.
 *
 * <p>Numbers and booleans in {@code env} and {@code resources.cpu} become the text the user wrote
 * ({@code cpu: 4} → {@code "4"}, {@code env: {X: 1.0}} → {@code "1.0"}, {@code true} → {@code
 * "true"}), taken from the {@link SourceMap} so that {@code 1.0} does not turn into {@code 1} or
 * {@code 1.00} into {@code 1.0}. Absent fields stay empty; defaults are the resolve stage's job.
 *
 * <pre>
 * TrainSpec spec = new TrainSpecBinder().bind(doc);   // doc already validated
 * </pre>
 */
public final class TrainSpecBinder {

  /**
   * @param doc a document the train schema accepted
   * @throws IllegalArgumentException when {@code doc} lacks {@code run}, i.e. it was not validated
   *     first (a bug)
   */
  public TrainSpec bind(ParsedDocument doc) {
    JsonNode root = doc.root();
    if (!root.path("run").isTextual()) {
      throw new IllegalArgumentException(
          "bind() needs a schema-validated train.yaml; `run` is missing");
    }
    return new TrainSpec(
        text(root, "name"),
        text(root, "runtime"),
        text(root, "image"),
        text(root, "workdir"),
        text(root, "setup"),
        root.get("run").asText(),
        integer(root, "nodes"),
        procsPerNode(root.get("procsPerNode")),
        resources(doc),
        env(doc),
        secrets(root.path("secrets")),
        volumes(root.path("volumes")),
        text(root, "queue"),
        text(root, "priority"),
        integer(root, "retries"),
        text(root, "timeout"),
        mpi(doc),
        checkpoint(root.get("checkpoint")),
        doc);
  }

  private static Optional<ProcsPerNode> procsPerNode(JsonNode value) {
    if (value == null) {
      return Optional.empty();
    }
    return Optional.of(value.isTextual() ? ProcsPerNode.AUTO : ProcsPerNode.of(value.asInt()));
  }

  private static ResourceRequest resources(ParsedDocument doc) {
    // Without `resources` every part reads as empty, which is ResourceRequest.NONE.
    JsonNode resources = doc.root().path("resources");
    return new ResourceRequest(
        integer(resources, "gpus"),
        text(resources, "gpuType"),
        asWritten(doc, "/resources/cpu"),
        text(resources, "memory"),
        text(resources, "shm"));
  }

  private static SortedMap<String, String> env(ParsedDocument doc) {
    SortedMap<String, String> env = new TreeMap<>();
    doc.root()
        .path("env")
        .fieldNames()
        .forEachRemaining(
            name -> env.put(name, asWritten(doc, SourceMap.child("/env", name)).orElse("")));
    return env;
  }

  private static Optional<MpiOptions> mpi(ParsedDocument doc) {
    JsonNode mpi = doc.root().path("mpi");
    if (!mpi.isObject()) {
      return Optional.empty();
    }
    SortedMap<String, String> mca = new TreeMap<>();
    mpi.path("mca")
        .fieldNames()
        .forEachRemaining(
            name -> mca.put(name, asWritten(doc, SourceMap.child("/mpi/mca", name)).orElse("")));
    return Optional.of(new MpiOptions(text(mpi, "bindTo"), text(mpi, "mapBy"), mca));
  }

  private static Optional<CheckpointSpec> checkpoint(JsonNode node) {
    if (node == null) {
      return Optional.empty();
    }
    List<Integer> codes = new ArrayList<>();
    node.path("recoverOnExitCodes").forEach(c -> codes.add(c.intValue()));
    return Optional.of(
        new CheckpointSpec(
            text(node, "path"), integer(node, "keep"), integer(node, "saveSeconds"), codes));
  }

  private static List<SecretRef> secrets(JsonNode list) {
    List<SecretRef> secrets = new ArrayList<>();
    for (JsonNode item : list) {
      secrets.add(
          new SecretRef(
              item.get("name").asText(), text(item, "key"), text(item, "env"), text(item, "path")));
    }
    return secrets;
  }

  private static List<VolumeMount> volumes(JsonNode list) {
    List<VolumeMount> volumes = new ArrayList<>();
    for (JsonNode item : list) {
      volumes.add(
          new VolumeMount(
              item.get("claim").asText(),
              item.get("path").asText(),
              item.path("readOnly").asBoolean(false)));
    }
    return volumes;
  }

  /**
   * Whether the scalar at {@code pointer} is bound {@link #asWritten} (its text, not its YAML
   * value): {@code resources.cpu}, {@code env} values and {@code mpi.mca} values. An integer there
   * means what its text says, so {@link IntegerForms} leaves it alone.
   */
  static boolean boundAsWritten(String pointer) {
    return pointer.equals("/resources/cpu")
        || pointer.startsWith("/env/")
        || pointer.startsWith("/mpi/mca/");
  }

  /**
   * A scalar as the user wrote it: strings as they are, numbers and booleans as their YAML text
   * (the loader records the text of every non-string scalar). The schema admits no null and no
   * number out of int range in any field bound here, so neither needs a case of its own.
   */
  private static Optional<String> asWritten(ParsedDocument doc, String pointer) {
    JsonNode value = doc.root().at(pointer);
    return value.isTextual() ? Optional.of(value.asText()) : doc.map().scalarText(pointer);
  }

  private static Optional<String> text(JsonNode parent, String field) {
    return Optional.ofNullable(parent.get(field)).map(JsonNode::asText);
  }

  private static Optional<Integer> integer(JsonNode parent, String field) {
    return Optional.ofNullable(parent.get(field)).map(JsonNode::intValue);
  }
}
