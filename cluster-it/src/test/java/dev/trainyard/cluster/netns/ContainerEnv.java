package dev.trainyard.cluster.netns;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A container's environment as the kubelet builds it: the image's {@code ENV} first, then the
 * container's {@code env} in order, each value with {@code $(NAME)} replaced by an earlier
 * container variable and {@code $$} by {@code $} (an unknown reference stays as written: Kubernetes
 * "Define dependent environment variables"), {@code fieldRef} from the pod's downward-API fields
 * and {@code secretKeyRef} from the run's Secrets; {@code HOSTNAME} is the pod's hostname, as
 * container runtimes set it.
 */
final class ContainerEnv {
  private static final Pattern REFERENCE =
      Pattern.compile("\\$\\$|\\$\\(([A-Za-z_][A-Za-z0-9_.-]*)\\)");

  private ContainerEnv() {}

  /**
   * @param fields downward-API field path → value (e.g. the completion-index annotation)
   * @param secrets Secret name → key → bytes
   * @return name → value, image variables first
   * @throws IllegalArgumentException for a field or Secret key the harness does not have
   */
  static Map<String, String> of(
      Container container,
      Map<String, String> imageEnv,
      String hostname,
      Map<String, String> fields,
      Map<String, Map<String, byte[]>> secrets) {
    Map<String, String> env = new LinkedHashMap<>(imageEnv);
    env.put("HOSTNAME", hostname);
    Map<String, String> declared = new LinkedHashMap<>();
    List<EnvVar> vars = container.getEnv() == null ? List.of() : container.getEnv();
    for (EnvVar var : vars) {
      String value = value(var, declared, fields, secrets);
      declared.put(var.getName(), value);
      env.put(var.getName(), value);
    }
    return env;
  }

  private static String value(
      EnvVar var,
      Map<String, String> declared,
      Map<String, String> fields,
      Map<String, Map<String, byte[]>> secrets) {
    if (var.getValueFrom() == null) {
      return expand(var.getValue() == null ? "" : var.getValue(), declared);
    }
    if (var.getValueFrom().getFieldRef() != null) {
      String path = var.getValueFrom().getFieldRef().getFieldPath();
      String value = fields.get(path);
      if (value == null) {
        throw new IllegalArgumentException(
            var.getName() + ": the harness has no downward-API field " + path);
      }
      return value;
    }
    if (var.getValueFrom().getSecretKeyRef() != null) {
      var ref = var.getValueFrom().getSecretKeyRef();
      byte[] bytes = secrets.getOrDefault(ref.getName(), Map.of()).get(ref.getKey());
      if (bytes == null) {
        throw new IllegalArgumentException(
            var.getName() + ": no Secret " + ref.getName() + " key " + ref.getKey());
      }
      return new String(bytes, StandardCharsets.UTF_8);
    }
    throw new IllegalArgumentException(
        var.getName() + ": unsupported valueFrom " + var.getValueFrom());
  }

  /** Kubernetes' expansion of {@code $(NAME)} and {@code $$}, also applied to command and args. */
  static String expand(String text, Map<String, String> declared) {
    Matcher m = REFERENCE.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String replacement = m.group(1) == null ? "$" : declared.getOrDefault(m.group(1), m.group());
      m.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    m.appendTail(out);
    return out.toString();
  }
}
