package dev.trainyard.compiler.render;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.manifest.CanonicalJson;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A container's {@code env}, kept sorted by name so the output is deterministic; a later {@code
 * put} of the same name replaces the earlier one. Values are data: they go into YAML scalars, never
 * into shell code.
 */
public final class EnvList {
  /**
   * The completion index of an Indexed Job pod: the node rank (downward API, not address order;
   * skypilot#9841).
   */
  public static final String COMPLETION_INDEX =
      "metadata.annotations['batch.kubernetes.io/job-completion-index']";

  private final Map<String, ObjectNode> vars = new TreeMap<>();

  /**
   * {@code name: value}, with every {@code $} doubled: the kubelet expands {@code $(VAR)} in env
   * values and turns {@code $$} into {@code $}, so doubling makes the container see exactly {@code
   * value} (Kubernetes "Define dependent environment variables"). User text stays data, never a
   * reference.
   */
  public EnvList put(String name, String value) {
    ObjectNode v =
        CanonicalJson.mapper()
            .createObjectNode()
            .put("name", name)
            .put("value", value.replace("$", "$$"));
    vars.put(name, v);
    return this;
  }

  /** {@code name} from a pod field via the downward API. */
  public EnvList putFieldRef(String name, String fieldPath) {
    ObjectNode v = CanonicalJson.mapper().createObjectNode().put("name", name);
    v.putObject("valueFrom").putObject("fieldRef").put("fieldPath", fieldPath);
    vars.put(name, v);
    return this;
  }

  /** {@code name} from one key of an existing Secret. */
  public EnvList putSecretKey(String name, String secret, String key) {
    ObjectNode v = CanonicalJson.mapper().createObjectNode().put("name", name);
    v.putObject("valueFrom").putObject("secretKeyRef").put("name", secret).put("key", key);
    vars.put(name, v);
    return this;
  }

  /** Every plain and referenced variable of {@code other}, replacing same-named ones here. */
  public EnvList putAll(EnvList other) {
    vars.putAll(other.vars);
    return this;
  }

  /** The names, sorted. */
  public Set<String> names() {
    return Collections.unmodifiableSet(vars.keySet());
  }

  /** The {@code env} array. */
  public ArrayNode toArray() {
    ArrayNode out = CanonicalJson.mapper().createArrayNode();
    vars.values().forEach(v -> out.add(v.deepCopy()));
    return out;
  }
}
